/* iRCCE tagged flags ([SCC-2BOARD] sec. V (docs/references.md)): a big flag's line holds the
 * 4-byte value and up to RCCE_TAG_BYTES of payload.  The payload is written
 * before the value (RCCE_flag_write stores it with release semantics) and
 * read after it, so whoever sees the value sees the payload written with it.
 * Big flags only, as in iRCCE. */
#include <string.h>

#include "ircce_internal.h"

_Static_assert(iRCCE_MAX_TAGGED_LEN == RCCE_TAG_BYTES, "tag size differs between header and library");

/* The line of flag in UE ue's MPB, after checking flag, ue and len. */
static int tag_line(RCCE_FLAG flag, int ue, int len, const char *where, unsigned char **line) {
  uint32_t off = 0;
  int rc = rcce_flag_payload_offset(flag, &off);
  if (rc != RCCE_SUCCESS)
    return rcce_error(RCCE_DEBUG_SYNCH, rc, where, "flag not usable (tagged flags need big flags)");
  if (len < 0 || len > RCCE_TAG_BYTES)
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_MESSAGE_LENGTH, where, "tag of %d bytes (at most %d)", len,
                      RCCE_TAG_BYTES);
  if ((rc = rcce_check_ue(ue, where)) != RCCE_SUCCESS) return rc;
  *line = rcce_mpb_of(ue) + off;
  return RCCE_SUCCESS;
}

int iRCCE_flag_alloc_tagged(RCCE_FLAG *flag) { return RCCE_flag_alloc(flag); }

int iRCCE_get_max_tagged_len(void) { return RCCE_TAG_BYTES; }

int iRCCE_flag_write_tagged(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int ID, void *tag, int len) {
  TIMING_SCOPE();
  unsigned char *line = NULL;
  int rc = tag_line(flag ? *flag : NULL, ID, tag ? len : 0, "iRCCE_flag_write_tagged", &line);
  if (rc != RCCE_SUCCESS) return rc;
  if (val != RCCE_FLAG_SET && val != RCCE_FLAG_UNSET)
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, "iRCCE_flag_write_tagged", "value %d", val);
  unsigned char bytes[RCCE_TAG_BYTES] = {0}; /* the rest of the line reads as zeros, as in iRCCE */
  if (tag) memcpy(bytes, tag, (size_t)len);
  hw_mpb_copy(rcce_job(), line, bytes, sizeof bytes);
  return RCCE_flag_write(flag, val, ID);
}

int iRCCE_flag_read_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int ID, void *tag, int len) {
  TIMING_SCOPE();
  unsigned char *line = NULL;
  int rc = tag_line(flag, ID, tag ? len : 0, "iRCCE_flag_read_tagged", &line);
  if (rc == RCCE_SUCCESS) rc = RCCE_flag_read(flag, val, ID);
  if (rc == RCCE_SUCCESS && tag) memcpy(tag, line, (size_t)len);
  return rc;
}

int iRCCE_wait_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS val, void *tag, int len) {
  TIMING_SCOPE();
  unsigned char *line = NULL;
  int rc = tag_line(flag, rcce_my_ue(), tag ? len : 0, "iRCCE_wait_tagged", &line);
  if (rc == RCCE_SUCCESS) rc = RCCE_wait_until(flag, val);
  if (rc == RCCE_SUCCESS && tag) memcpy(tag, line, (size_t)len);
  return rc;
}

int iRCCE_test_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result, void *tag, int len) {
  TIMING_SCOPE();
  unsigned char *line = NULL;
  int rc = tag_line(flag, rcce_my_ue(), tag ? len : 0, "iRCCE_test_tagged", &line);
  if (rc == RCCE_SUCCESS) rc = RCCE_test_flag(flag, val, result);
  if (rc == RCCE_SUCCESS && *result && tag) memcpy(tag, line, (size_t)len);
  return rc;
}

/* The MPB allocator (RCCE_malloc family) and one-sided copies (put/get).
 * Addresses are in the caller's own MPB; put/get apply the same offset to
 * the MPB of UE ID, as RCCE does. */
#include <string.h>

#include "rcce_internal.h"

t_vcharp RCCE_malloc(size_t size) {
  uint64_t lines = (size + rcce_g.line - 1) / rcce_g.line;
  int64_t start = lines ? range_alloc_low(&rcce_g.mpb_alloc, lines) : -1;
  if (start < 0) {
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_malloc",
               "%zu bytes requested, largest free MPB block %llu bytes", size,
               (unsigned long long)(range_largest_free(&rcce_g.mpb_alloc) * rcce_g.line));
    return NULL;
  }
  return RCCE_comm_buffer[rcce_g.ue] + start * rcce_g.line;
}

t_vcharp RCCE_malloc_request(size_t size, size_t *chunk) {
  size_t want = size;
  uint64_t largest = range_largest_free(&rcce_g.mpb_alloc) * rcce_g.line;
  while (want >= rcce_g.line && want > largest) want /= 2;
  want = want / rcce_g.line * rcce_g.line;
  t_vcharp p = want ? RCCE_malloc(want) : NULL;
  if (chunk) *chunk = p ? want : 0;
  return p;
}

static int mpb_offset(t_vcharp addr, size_t len, uint64_t *off) {
  unsigned char *mine = (unsigned char *)RCCE_comm_buffer[rcce_g.ue];
  if (!addr || (unsigned char *)addr < mine || (unsigned char *)addr + len > mine + rcce_g.mpb_bytes) return -1;
  *off = (uint64_t)((unsigned char *)addr - mine);
  return 0;
}

void RCCE_free(t_vcharp ptr) {
  uint64_t off;
  if (mpb_offset(ptr, 0, &off) != 0 || off % rcce_g.line || rcce_g.flag_line[off / rcce_g.line] ||
      range_free(&rcce_g.mpb_alloc, off / rcce_g.line) < 0)
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_free", "pointer was not returned by RCCE_malloc");
}

int RCCE_put(t_vcharp target, t_vcharp source, int num_bytes, int ID) {
  uint64_t off;
  int rc = rcce_check_ue(ID, "RCCE_put");
  if (rc != RCCE_SUCCESS) return rc;
  if (num_bytes < 0 || mpb_offset(target, (size_t)num_bytes, &off) != 0)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_put", "%d bytes do not fit the MPB at the target",
                      num_bytes);
  if (!source && num_bytes) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_SOURCE, "RCCE_put", "NULL source");
  memcpy(rcce_mpb_of(ID) + off, (const void *)source, (size_t)num_bytes);
  struct hw_counters *c = rcce_counters();
  c->puts++;
  c->put_bytes += (uint64_t)num_bytes;
  return RCCE_SUCCESS;
}

int RCCE_get(t_vcharp target, t_vcharp source, int num_bytes, int ID) {
  uint64_t off;
  int rc = rcce_check_ue(ID, "RCCE_get");
  if (rc != RCCE_SUCCESS) return rc;
  if (num_bytes < 0 || mpb_offset(source, (size_t)num_bytes, &off) != 0)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_SOURCE, "RCCE_get", "%d bytes do not fit the MPB at the source",
                      num_bytes);
  if (!target && num_bytes) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_get", "NULL target");
  memcpy((void *)target, rcce_mpb_of(ID) + off, (size_t)num_bytes);
  struct hw_counters *c = rcce_counters();
  c->gets++;
  c->get_bytes += (uint64_t)num_bytes;
  return RCCE_SUCCESS;
}

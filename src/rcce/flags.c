/* RCCE flags: big flags (one 32-byte line each) and single-bit flags
 * (256 per line), both as race-free atomic word operations (the bug of
 * writing flags with memcpy is what loses messages in Intel's emulator). */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>

#include "../openscc_api.h"
#include "rcce_internal.h"

int64_t rcce_flag_line_alloc(void) {
  int64_t l = rcce_range_alloc_high(&rcce_g.mpb_alloc, 1);
  if (l >= 0) rcce_g.flag_line[l] = 1;
  return l;
}

static int sbline_new(void) {
  int64_t l = rcce_flag_line_alloc();
  if (l < 0) return -1;
  if (rcce_g.nsblines == rcce_g.sblines_cap) {
    int cap = rcce_g.sblines_cap ? 2 * rcce_g.sblines_cap : 8;
    void *p = realloc(rcce_g.sblines, (size_t)cap * sizeof *rcce_g.sblines);
    if (!p) return -1;
    rcce_g.sblines = p;
    rcce_g.sblines_cap = cap;
  }
  struct rcce_sbline *s = &rcce_g.sblines[rcce_g.nsblines++];
  memset(s, 0, sizeof *s);
  s->off = (uint32_t)l * rcce_g.line;
  return rcce_g.nsblines - 1;
}

int rcce_iflag_alloc(struct rcce_iflag *f) {
  if (rcce_g.flag_mode == RCCE_FLAGMODE_BIG) {
    int64_t l = rcce_flag_line_alloc();
    if (l < 0) return RCCE_ERROR_FLAG_NOT_ALLOCATED;
    *f = (struct rcce_iflag){(uint32_t)l * rcce_g.line, -1};
  } else {
    int found = -1, bit = -1;
    for (int i = 0; i < rcce_g.nsblines && found < 0; i++)
      for (int b = 0; b < 256; b++)
        if (!(rcce_g.sblines[i].used[b / 32] & (1u << (b % 32)))) {
          found = i;
          bit = b;
          break;
        }
    if (found < 0) {
      found = sbline_new();
      bit = 0;
      if (found < 0) return RCCE_ERROR_FLAG_NOT_ALLOCATED;
    }
    rcce_g.sblines[found].used[bit / 32] |= 1u << (bit % 32);
    *f = (struct rcce_iflag){rcce_g.sblines[found].off, bit};
  }
  /* Allocation only reserves MPB space, as RCCE_flag_alloc does in RCCE
   * 1.0.13: writing the flag here would erase a SET that a faster UE has
   * already put into my copy.  The MPB is zero at job start (hw segment), so a
   * new flag reads UNSET; a freed and reallocated one keeps its last value,
   * as in RCCE (RCCE_flag_free does not clear either). */
  return RCCE_SUCCESS;
}

int rcce_iflag_free(struct rcce_iflag f) {
  if (f.bit < 0) {
    rcce_g.flag_line[f.off / rcce_g.line] = 0;
    rcce_range_free(&rcce_g.mpb_alloc, f.off / rcce_g.line);
    return RCCE_SUCCESS;
  }
  for (int i = 0; i < rcce_g.nsblines; i++)
    if (rcce_g.sblines[i].off == f.off) rcce_g.sblines[i].used[f.bit / 32] &= ~(1u << (f.bit % 32));
  return RCCE_SUCCESS;
}

/* A big flag holds any value (the basic interface stores sequence numbers);
 * a single-bit flag holds 0 or 1. */
static uint32_t flag_bits(struct rcce_iflag f, int val) {
  return f.bit < 0 ? (uint32_t)val : (val ? rcce_iflag_mask(f) : 0);
}

int rcce_iflag_seen(struct rcce_iflag f, int ue) {
  int v = rcce_iflag_read(f, ue);
  if (timing_enabled) timing_flag_seen(rcce_iflag_word(f, ue), rcce_iflag_slot(f), (uint32_t)v);
  return v;
}

void rcce_iflag_wait(struct rcce_iflag f, int val, const struct hw_wait_desc *why) {
  volatile uint32_t *w = rcce_iflag_word(f, rcce_g.ue);
  uint32_t mask = rcce_iflag_mask(f), want = flag_bits(f, val);
  /* Fast path: the flag is usually already set when a message is waiting. */
  if ((__atomic_load_n(w, __ATOMIC_ACQUIRE) & mask) == want) return;
  hw_wait_bits(&rcce_g.job, rcce_g.ue, w, mask, want, why);
}

/* --- checks of user-supplied flags --------------------------------------- */

static int check_line(t_vcharp addr, uint32_t *off) {
  unsigned char *mine = rcce_mpb_of(rcce_g.ue);
  if (!addr) return RCCE_ERROR_FLAG_UNDEFINED;
  if ((unsigned char *)addr < mine || (unsigned char *)addr >= mine + rcce_g.mpb_bytes)
    return RCCE_ERROR_FLAG_NOT_IN_COMM_BUFFER;
  *off = (uint32_t)((unsigned char *)addr - mine);
  if (*off % rcce_g.line || !rcce_g.flag_line[*off / rcce_g.line]) return RCCE_ERROR_FLAG_NOT_ALLOCATED;
  return RCCE_SUCCESS;
}

int rcce_iflag_from_big(RCCE_FLAG f, struct rcce_iflag *out) {
  if (rcce_g.flag_mode != RCCE_FLAGMODE_BIG) return RCCE_ERROR_FLAG_UNDEFINED;
  uint32_t off = 0;
  int rc = check_line((t_vcharp)f, &off);
  if (rc == RCCE_SUCCESS) *out = (struct rcce_iflag){off, -1};
  return rc;
}

int rcce_iflag_from_sb(const rcce_sbflag *f, struct rcce_iflag *out) {
  if (rcce_g.flag_mode != RCCE_FLAGMODE_SINGLEBIT || !f) return RCCE_ERROR_FLAG_UNDEFINED;
  uint32_t off = 0;
  int rc = check_line(f->line_address, &off);
  if (rc != RCCE_SUCCESS) return rc;
  if (f->location < 0 || f->location > 255) return RCCE_ERROR_FLAG_NOT_ALLOCATED;
  for (int i = 0; i < rcce_g.nsblines; i++)
    if (rcce_g.sblines[i].off == off && (rcce_g.sblines[i].used[f->location / 32] & (1u << (f->location % 32)))) {
      *out = (struct rcce_iflag){off, f->location};
      return RCCE_SUCCESS;
    }
  return RCCE_ERROR_FLAG_NOT_ALLOCATED;
}

/* --- the public API, both flag forms -------------------------------------- */

static int flag_status_ok(RCCE_FLAG_STATUS v) { return v == RCCE_FLAG_SET || v == RCCE_FLAG_UNSET; }

static int do_write(int rc, struct rcce_iflag f, RCCE_FLAG_STATUS val, int ID, const char *where) {
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, where, "flag not usable");
  if (!flag_status_ok(val))
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, where, "value %d", val);
  if ((rc = rcce_check_ue(ID, where)) != RCCE_SUCCESS) return rc;
  rcce_iflag_write(f, val, ID);
  rcce_g.flag_reads_unchanged = 0;
  return RCCE_SUCCESS;
}

static int do_read(int rc, struct rcce_iflag f, RCCE_FLAG_STATUS *val, int ID, const char *where) {
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, where, "flag not usable");
  if (!val) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_VAL_UNDEFINED, where, "NULL value pointer");
  if ((rc = rcce_check_ue(ID, where)) != RCCE_SUCCESS) return rc;
  *val = rcce_iflag_seen(f, ID);
  /* A program polling a flag in a loop must not starve the UE that will set
   * it when UEs outnumber host cores: yield now and then. */
  if (++rcce_g.flag_reads_unchanged % 256 == 0 && rcce_g.job.hdr->set.oversubscribed) sched_yield();
  return RCCE_SUCCESS;
}

static int do_wait(int rc, struct rcce_iflag f, RCCE_FLAG_STATUS val, const char *where) {
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, where, "flag not usable");
  if (!flag_status_ok(val))
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, where, "value %d", val);
  struct hw_wait_desc why = {.kind = HW_WAIT_FLAG, .peer = -1, .mpb_offset = f.off, .value = val};
  rcce_iflag_wait(f, val, &why);
  if (timing_enabled) rcce_iflag_seen(f, rcce_g.ue);
  return RCCE_SUCCESS;
}

static int do_test(int rc, struct rcce_iflag f, RCCE_FLAG_STATUS val, int *result, const char *where) {
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, where, "flag not usable");
  if (!flag_status_ok(val))
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, where, "value %d", val);
  if (!result) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_VAL_UNDEFINED, where, "NULL result pointer");
  *result = rcce_iflag_seen(f, rcce_g.ue) == val;
  return RCCE_SUCCESS;
}

int RCCE_flag_alloc(RCCE_FLAG *flag) {
  if (!flag) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_flag_alloc", "NULL flag");
  struct rcce_iflag f;
  int rc = rcce_g.flag_mode == RCCE_FLAGMODE_BIG ? rcce_iflag_alloc(&f) : RCCE_ERROR_FLAG_UNDEFINED;
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, "RCCE_flag_alloc", "no MPB line left for a flag");
  *flag = (RCCE_FLAG)(rcce_mpb_of(rcce_g.ue) + f.off);
  return RCCE_SUCCESS;
}

int RCCE_flag_free(RCCE_FLAG *flag) {
  struct rcce_iflag f;
  int rc = flag ? rcce_iflag_from_big(*flag, &f) : RCCE_ERROR_FLAG_UNDEFINED;
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, "RCCE_flag_free", "flag not allocated");
  return rcce_iflag_free(f);
}

int RCCE_flag_write(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int ID) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, -1};
  int rc = flag ? rcce_iflag_from_big(*flag, &f) : RCCE_ERROR_FLAG_UNDEFINED;
  return do_write(rc, f, val, ID, "RCCE_flag_write");
}

int RCCE_flag_read(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int ID) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, -1};
  return do_read(rcce_iflag_from_big(flag, &f), f, val, ID, "RCCE_flag_read");
}

int RCCE_wait_until(RCCE_FLAG flag, RCCE_FLAG_STATUS val) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, -1};
  return do_wait(rcce_iflag_from_big(flag, &f), f, val, "RCCE_wait_until");
}

int RCCE_test_flag(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, -1};
  return do_test(rcce_iflag_from_big(flag, &f), f, val, result, "RCCE_test_flag");
}

/* The -DSINGLEBITFLAGS names (RCCE.h), exported: not declared in this build. */
OPENSCC_API int RCCE_test_flag_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS val, int *result);
int RCCE_test_flag_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS val, int *result) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, 0};
  return do_test(rcce_iflag_from_sb(&flag, &f), f, val, result, "RCCE_test_flag");
}

OPENSCC_API int RCCE_flag_alloc_singlebit(rcce_sbflag *flag);
OPENSCC_API int RCCE_flag_free_singlebit(rcce_sbflag *flag);
OPENSCC_API int RCCE_flag_write_singlebit(rcce_sbflag *flag, RCCE_FLAG_STATUS val, int ID);
OPENSCC_API int RCCE_flag_read_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS *val, int ID);
OPENSCC_API int RCCE_wait_until_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS val);

int RCCE_flag_alloc_singlebit(rcce_sbflag *flag) {
  if (!flag) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_flag_alloc", "NULL flag");
  struct rcce_iflag f;
  int rc = rcce_g.flag_mode == RCCE_FLAGMODE_SINGLEBIT ? rcce_iflag_alloc(&f) : RCCE_ERROR_FLAG_UNDEFINED;
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, "RCCE_flag_alloc", "no MPB line left for a flag");
  flag->location = f.bit;
  flag->line_address = rcce_mpb_of(rcce_g.ue) + f.off;
  return RCCE_SUCCESS;
}

int RCCE_flag_free_singlebit(rcce_sbflag *flag) {
  struct rcce_iflag f;
  int rc = rcce_iflag_from_sb(flag, &f);
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, rc, "RCCE_flag_free", "flag not allocated");
  return rcce_iflag_free(f);
}

int RCCE_flag_write_singlebit(rcce_sbflag *flag, RCCE_FLAG_STATUS val, int ID) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, 0};
  return do_write(rcce_iflag_from_sb(flag, &f), f, val, ID, "RCCE_flag_write");
}

int RCCE_flag_read_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS *val, int ID) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, 0};
  return do_read(rcce_iflag_from_sb(&flag, &f), f, val, ID, "RCCE_flag_read");
}

int RCCE_wait_until_singlebit(rcce_sbflag flag, RCCE_FLAG_STATUS val) {
  TIMING_SCOPE();
  struct rcce_iflag f = {0, 0};
  return do_wait(rcce_iflag_from_sb(&flag, &f), f, val, "RCCE_wait_until");
}

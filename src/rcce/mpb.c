/* The MPB allocator (RCCE_malloc family) and one-sided copies (put/get).
 * Addresses are in the caller's own MPB; put/get apply the same offset to
 * the MPB of UE ID, as RCCE does. */
#include <string.h>

#include "rcce_internal.h"

t_vcharp rcce_alloc_lines(struct range_alloc *ra, unsigned char *base, size_t size, const char *where,
                          const char *what) {
  uint64_t lines = (size + rcce_g.line - 1) / rcce_g.line;
  int64_t start = lines ? rcce_range_alloc_low(ra, lines) : -1;
  if (start < 0) {
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, where, "%zu bytes requested, largest free %s block %llu bytes", size,
               what, (unsigned long long)(rcce_range_largest_free(ra) * rcce_g.line));
    return NULL;
  }
  return base + start * rcce_g.line;
}

t_vcharp RCCE_malloc(size_t size) {
  return rcce_alloc_lines(&rcce_g.mpb_alloc, rcce_mpb_of(rcce_g.ue), size, "RCCE_malloc", "MPB");
}

/* The basic interface's buffer keeps at least this many lines (two pipeline halves). */
#define MIN_BUFFER_LINES 2

int64_t rcce_reserve_mpb_lines(uint64_t lines) {
  if (rcce_g.gory) return rcce_range_alloc_low(&rcce_g.mpb_alloc, lines);
  uint64_t have = RCCE_chunk / rcce_g.line;
  if (have < lines + MIN_BUFFER_LINES) return -1;
  RCCE_chunk = (have - lines) * rcce_g.line;
  return (int64_t)(rcce_basic_buff_off() / rcce_g.line + (have - lines));
}

t_vcharp RCCE_malloc_request(size_t size, size_t *chunk) {
  size_t want = size;
  uint64_t largest = rcce_range_largest_free(&rcce_g.mpb_alloc) * rcce_g.line;
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
      rcce_range_free(&rcce_g.mpb_alloc, off / rcce_g.line) < 0)
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_free", "pointer was not returned by RCCE_malloc");
}

/* One-sided copy between private memory and the MPB of UE ID; the MPB
 * address is given in the caller's own MPB (RCCE's convention). */
static int copy_one_sided(t_vcharp mpb_addr, t_vcharp priv, int num_bytes, int ID, int to_mpb) {
  const char *where = to_mpb ? "RCCE_put" : "RCCE_get";
  int mpb_err = to_mpb ? RCCE_ERROR_TARGET : RCCE_ERROR_SOURCE,
      priv_err = to_mpb ? RCCE_ERROR_SOURCE : RCCE_ERROR_TARGET;
  uint64_t off;
  int rc = rcce_check_ue(ID, where);
  if (rc != RCCE_SUCCESS) return rc;
  if (num_bytes < 0 || mpb_offset(mpb_addr, (size_t)num_bytes, &off) != 0)
    return rcce_error(RCCE_DEBUG_COMM, mpb_err, where, "%d bytes do not fit the MPB at that address", num_bytes);
  if (!priv && num_bytes) return rcce_error(RCCE_DEBUG_COMM, priv_err, where, "NULL private buffer");
  unsigned char *mpb = rcce_mpb_of(ID) + off;
  struct rcce_ue_counters *c = rcce_counters();
  if (to_mpb) {
    rcce_mpb_write(mpb, (const void *)priv, (size_t)num_bytes);
    c->puts++;
    c->put_bytes += (uint64_t)num_bytes;
  } else {
    rcce_mpb_read((void *)priv, mpb, (size_t)num_bytes);
    c->gets++;
    c->get_bytes += (uint64_t)num_bytes;
  }
  return RCCE_SUCCESS;
}

int RCCE_put(t_vcharp target, t_vcharp source, int num_bytes, int ID) {
  TIMING_SCOPE();
  return copy_one_sided(target, source, num_bytes, ID, 1);
}

int RCCE_get(t_vcharp target, t_vcharp source, int num_bytes, int ID) {
  TIMING_SCOPE();
  return copy_one_sided(source, target, num_bytes, ID, 0);
}

/* Whether [p, p + n) lies in the MPBs of the chip's cores. */
static int in_mpbs(const volatile void *p, size_t n) {
  const unsigned char *lo = hw_mpb(&rcce_g.job, 0);
  const unsigned char *hi = hw_mpb(&rcce_g.job, chip_num_cores(&rcce_g.job.hdr->chip));
  return (const unsigned char *)p >= lo && (const unsigned char *)p + n <= hi;
}

/* RCCE 2.0's copies (RCCE_put's own copy loop there): charged as MPB lines
 * when one side is an MPB (RCCE_memcpy_put: the destination first). */
static void *memcpy_mpb(void *dest, const void *src, size_t count) {
  if (in_mpbs(dest, count)) rcce_mpb_write(dest, src, count);
  else if (in_mpbs(src, count)) rcce_mpb_read(dest, src, count);
  else memcpy(dest, src, count);
  return dest;
}

void *RCCE_memcpy_put(void *dest, const void *src, size_t count) {
  TIMING_SCOPE();
  return memcpy_mpb(dest, src, count);
}

void *RCCE_memcpy_get(void *dest, const void *src, size_t count) {
  TIMING_SCOPE();
  return memcpy_mpb(dest, src, count);
}

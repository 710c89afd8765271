/*
 * The lookup tables (include/scc_lut.h, docs/data-movement.md): every UE's
 * 256 entries of 16 MB, each a window of this process's address space that
 * maps a frame of the job segment -- a UE's private memory partition
 * (hw_private), the off-chip shared region, or a tile's MPB -- for real
 * (mmap of the segment's file at the frame's offset: zero copy, the owner's
 * pages).  The windows are reserved at first use, entries 0.. mapping the
 * UE's own private memory, cached ([SVP-SCC] sec. III.B: the LUT is how a
 * core reaches every memory).  The timing layer is told what each entry
 * maps, so a counted build's accesses through it cost what they cost on
 * the chip (timing_lut_entry).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../rcce/rcce_iface.h"
#include "lut_internal.h"
#include "scc_lut.h"

struct lut_state lut_g;

const char *scc_lut_error_string(int code) {
  switch (code) {
    case SCC_LUT_SUCCESS: return "success";
    case SCC_LUT_ERROR_NOT_INIT: return "RCCE_init was not called";
    case SCC_LUT_ERROR_ENTRY: return "LUT entry outside 0..255";
    case SCC_LUT_ERROR_KIND: return "unknown entry kind or attribute";
    case SCC_LUT_ERROR_OWNER: return "owner is no UE of the job";
    case SCC_LUT_ERROR_FRAME: return "frame beyond the memory it names";
    case SCC_LUT_ERROR_RANGE: return "address range outside the memory it names";
    case SCC_LUT_ERROR_FULL: return "no run of free LUT entries long enough";
    case SCC_LUT_ERROR_ARG: return "NULL pointer, or an address no LUT entry maps";
    case SCC_LUT_ERROR_MAP: return "the host refused the mapping";
    default: return "unknown LUT error";
  }
}

/* The frame's bytes in the segment: its offset and how much of the 16 MB
 * exist (a partition or the shared region may end inside a frame; an MPB
 * entry holds the tile's MPBs).  Error code when the entry names nothing. */
int lut_frame_bytes(const scc_lut_entry *e, uint64_t *off, uint64_t *bytes) {
  const struct hw_job *job = rcce_job();
  const struct hw_header *h = job->hdr;
  uint64_t start = (uint64_t)e->frame * SCC_LUT_PAGE_BYTES, size;
  switch (e->kind) {
    case SCC_LUT_PRIVATE:
      if (e->owner < 0 || e->owner >= (int)h->nue) return SCC_LUT_ERROR_OWNER;
      *off = (uint64_t)(hw_private(job, e->owner) - job->base) + start;
      size = h->private_bytes;
      break;
    case SCC_LUT_SHARED:
      *off = h->shared_off + start;
      size = h->shared_bytes;
      break;
    case SCC_LUT_MPB: {
      if (e->owner < 0 || e->owner >= (int)h->nue) return SCC_LUT_ERROR_OWNER;
      if (e->frame != 0) return SCC_LUT_ERROR_FRAME;
      int first = hw_ue(job, e->owner)->core / h->chip.cores_per_tile * h->chip.cores_per_tile;
      *off = (uint64_t)(hw_mpb(job, first) - job->base);
      *bytes = (uint64_t)h->chip.mpb_bytes_per_core * (uint64_t)h->chip.cores_per_tile;
      return SCC_LUT_SUCCESS;
    }
    default: return SCC_LUT_ERROR_KIND;
  }
  if (start >= size) return SCC_LUT_ERROR_FRAME;
  *bytes = size - start < SCC_LUT_PAGE_BYTES ? size - start : SCC_LUT_PAGE_BYTES;
  return SCC_LUT_SUCCESS;
}

/* What the timing layer needs of an entry: where its memory is. */
static void tell_timing(int entry, const scc_lut_entry *e) {
  const struct hw_job *job = rcce_job();
  const struct chip_desc *c = &job->hdr->chip;
  enum timing_lut_kind kind = TIMING_LUT_NONE;
  uint64_t home = 0;
  if (e->kind == SCC_LUT_PRIVATE) {
    kind = TIMING_LUT_DDR;
    home = (uint64_t)chip_nearest_mc(c, hw_ue(job, e->owner)->core);
  } else if (e->kind == SCC_LUT_SHARED) {
    kind = TIMING_LUT_SHARED;
    home = (uint64_t)e->frame * SCC_LUT_PAGE_BYTES;
  } else if (e->kind == SCC_LUT_MPB) {
    kind = TIMING_LUT_MPB;
    home = (uint64_t)hw_ue(job, e->owner)->core;
  }
  timing_lut_entry(entry, kind, home, (enum timing_lut_attr)e->attr);
}

/* Map entry's window: the frame's bytes (whole pages), the rest of the
 * 16 MB inaccessible.  An entry set to nothing keeps its pages, made
 * inaccessible (mprotect), so that setting it to the same frame again --
 * a ping-pong's every round -- costs no page faults natively. */
static int map_window(int entry, const scc_lut_entry *e) {
  unsigned char *w = lut_g.windows + (size_t)entry * SCC_LUT_PAGE_BYTES;
  struct lut_held *held = &lut_g.held[entry];
  if (e->kind == SCC_LUT_UNMAPPED)
    return held->bytes && mprotect(w, held->bytes, PROT_NONE) != 0 ? SCC_LUT_ERROR_MAP : SCC_LUT_SUCCESS;
  uint64_t off = 0, bytes = 0;
  int rc = lut_frame_bytes(e, &off, &bytes);
  if (rc != SCC_LUT_SUCCESS) return rc;
  bytes = hw_align_up(bytes, (uint64_t)sysconf(_SC_PAGESIZE));
  if (held->bytes == bytes && held->off == off)
    return mprotect(w, bytes, PROT_READ | PROT_WRITE) ? SCC_LUT_ERROR_MAP : 0;
  if (mmap(w, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rcce_job()->fd, (off_t)off) == MAP_FAILED)
    return SCC_LUT_ERROR_MAP;
  if (bytes < held->bytes && mmap(w + bytes, held->bytes - bytes, PROT_NONE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
    return SCC_LUT_ERROR_MAP;
  *held = (struct lut_held){off, bytes};
  return SCC_LUT_SUCCESS;
}

static int check_entry(const scc_lut_entry *e) {
  if (e->kind < SCC_LUT_UNMAPPED || e->kind > SCC_LUT_MPB || e->attr < SCC_LUT_CACHED || e->attr > SCC_LUT_UNCACHED)
    return SCC_LUT_ERROR_KIND;
  uint64_t off, bytes;
  return e->kind == SCC_LUT_UNMAPPED ? SCC_LUT_SUCCESS : lut_frame_bytes(e, &off, &bytes);
}

int lut_write_entry(int entry, const scc_lut_entry *e) {
  int rc = check_entry(e);
  if (rc == SCC_LUT_SUCCESS) rc = map_window(entry, e);
  if (rc != SCC_LUT_SUCCESS) return rc;
  lut_g.entries[entry] = *e;
  tell_timing(entry, e);
  return SCC_LUT_SUCCESS;
}

/* Reserve the windows and map this UE's private memory at entries 0..
 * (the UE's core-physical memory starts at 0, as on the SCC). */
int lut_ready(const char *where) {
  if (lut_g.windows) return SCC_LUT_SUCCESS;
  if (!rcce_running()) return rcce_report(SCC_LUT_ERROR_NOT_INIT, where, "call RCCE_init first");
  void *w =
      mmap(NULL, SCC_LUT_ENTRIES * SCC_LUT_PAGE_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (w == MAP_FAILED)
    return rcce_report(SCC_LUT_ERROR_MAP, where, "cannot reserve the LUT windows: %s", strerror(errno));
  lut_g.windows = w;
  timing_lut_window((uintptr_t)w, SCC_LUT_ENTRIES);
  uint64_t frames = (rcce_job()->hdr->private_bytes + SCC_LUT_PAGE_BYTES - 1) / SCC_LUT_PAGE_BYTES;
  for (unsigned f = 0; f < frames; f++) {
    scc_lut_entry own = {SCC_LUT_PRIVATE, rcce_my_ue(), f, SCC_LUT_CACHED};
    int rc = lut_write_entry((int)f, &own);
    if (rc != SCC_LUT_SUCCESS) return rcce_report(rc, where, "cannot map private frame %u: %s", f, strerror(errno));
  }
  lut_fault_report_install();
  return SCC_LUT_SUCCESS;
}

static int check_index(int entry, const char *where) {
  if (entry < 0 || entry >= SCC_LUT_ENTRIES)
    return rcce_report(SCC_LUT_ERROR_ENTRY, where, "entry %d is outside 0..%d", entry, SCC_LUT_ENTRIES - 1);
  return SCC_LUT_SUCCESS;
}

int scc_lut_read(int entry, scc_lut_entry *out) {
  int rc = lut_ready("scc_lut_read");
  if (rc == SCC_LUT_SUCCESS) rc = check_index(entry, "scc_lut_read");
  if (rc != SCC_LUT_SUCCESS) return rc;
  if (!out) return rcce_report(SCC_LUT_ERROR_ARG, "scc_lut_read", "out is NULL");
  *out = lut_g.entries[entry];
  return SCC_LUT_SUCCESS;
}

int scc_lut_write(int entry, const scc_lut_entry *e) {
  TIMING_SCOPE();
  int rc = lut_ready("scc_lut_write");
  if (rc == SCC_LUT_SUCCESS) rc = check_index(entry, "scc_lut_write");
  if (rc != SCC_LUT_SUCCESS) return rc;
  if (!e) return rcce_report(SCC_LUT_ERROR_ARG, "scc_lut_write", "e is NULL");
  rc = lut_write_entry(entry, e);
  if (rc != SCC_LUT_SUCCESS)
    return rcce_report(rc, "scc_lut_write", "entry %d (kind %d, owner %d, frame %u): %s", entry, e->kind, e->owner,
                       e->frame, scc_lut_error_string(rc));
  /* A LUT entry is a register of the core's tile (sccsys): one access. */
  timing_tas_access(rcce_my_core());
  return SCC_LUT_SUCCESS;
}

void *scc_lut_address(int entry) {
  if (entry < 0 || entry >= SCC_LUT_ENTRIES || lut_ready("scc_lut_address") != SCC_LUT_SUCCESS) return NULL;
  return lut_g.windows + (size_t)entry * SCC_LUT_PAGE_BYTES;
}

int scc_lut_entry_of(const void *addr) {
  uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)lut_g.windows;
  if (!lut_g.windows || a < lo || a - lo >= SCC_LUT_ENTRIES * SCC_LUT_PAGE_BYTES) return -1;
  return (int)((a - lo) / SCC_LUT_PAGE_BYTES);
}

size_t scc_private_size(void) { return rcce_running() ? (size_t)rcce_job()->hdr->private_bytes : 0; }

void *scc_private_base(void) {
  return scc_private_size() && lut_ready("scc_private_base") == SCC_LUT_SUCCESS ? lut_g.windows : NULL;
}

int scc_memory_controller(int ue) {
  if (!rcce_running() || ue < 0 || ue >= rcce_ue_count()) return -1;
  const struct hw_job *job = rcce_job();
  return chip_nearest_mc(&job->hdr->chip, hw_ue(job, ue)->core);
}

/* [SVP-SCC] sec. III.B's remapping in one call (scc_map_private,
 * scc_map_shared): the range's frames onto the first free run of entries
 * from entry 128 (the lower half holds the UE's own private memory), and
 * the way back (scc_unmap); and the address other UEs name a UE's private
 * memory by (scc_private_offset, the paper's core-physical address). */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "../rcce/rcce_iface.h"
#include "lut_internal.h"

#define FIRST_MAPPED_ENTRY (SCC_LUT_ENTRIES / 2)

/* The first run of n unmapped entries from FIRST_MAPPED_ENTRY whose first
 * window still holds the segment bytes at `off` (map_window keeps an
 * unmapped entry's pages: no faults natively), else the first run; -1 when
 * there is none. */
static int free_run(int n, uint64_t off) {
  int any = -1;
  for (int first = FIRST_MAPPED_ENTRY; first + n <= SCC_LUT_ENTRIES; first++) {
    int k = 0;
    while (k < n && lut_g.entries[first + k].kind == SCC_LUT_UNMAPPED) k++;
    if (k < n) {
      first += k;
      continue;
    }
    if (lut_g.held[first].bytes && lut_g.held[first].off == off) return first;
    if (any < 0) any = first;
  }
  return any;
}

/* Map [offset, offset + bytes) of a memory of `size` bytes (kind, owner)
 * onto free entries; *addr is where offset appears. */
static int map_range(int kind, int owner, uint64_t size, size_t offset, size_t bytes, int attr, void **addr,
                     int populate, const char *where) {
  TIMING_SCOPE();
  int rc = lut_ready(where);
  if (rc != SCC_LUT_SUCCESS) return rc;
  if (!addr) return rcce_report(SCC_LUT_ERROR_ARG, where, "addr is NULL");
  if (bytes == 0 || offset > size || bytes > size - offset)
    return rcce_report(SCC_LUT_ERROR_RANGE, where, "%zu bytes at offset %zu do not lie in the %llu bytes of memory",
                       bytes, offset, (unsigned long long)size);
  unsigned first_frame = (unsigned)(offset / SCC_LUT_PAGE_BYTES);
  uint64_t first_off = 0, first_bytes;
  scc_lut_entry head = {kind, owner, first_frame, attr};
  lut_frame_bytes(&head, &first_off, &first_bytes);
  int n = (int)((offset + bytes - 1) / SCC_LUT_PAGE_BYTES - first_frame + 1), entry = free_run(n, first_off);
  if (entry < 0)
    return rcce_report(SCC_LUT_ERROR_FULL, where, "no %d free LUT entries in a row from %d", n, FIRST_MAPPED_ENTRY);
  for (int k = 0; k < n; k++) {
    scc_lut_entry e = {kind, owner, first_frame + (unsigned)k, attr};
    rc = lut_write_entry(entry + k, &e);
    if (rc != SCC_LUT_SUCCESS) {
      while (k-- > 0) lut_write_entry(entry + k, &(scc_lut_entry){SCC_LUT_UNMAPPED, -1, 0, SCC_LUT_CACHED});
      return rcce_report(rc, where, "%s", scc_lut_error_string(rc));
    }
    timing_tas_access(rcce_my_core()); /* each entry is a register of the core's tile */
  }
  *addr = lut_g.windows + (size_t)entry * SCC_LUT_PAGE_BYTES + offset % SCC_LUT_PAGE_BYTES;
  /* Natively the range's pages are mapped now, not by a fault per page in
   * the copy that follows (no effect on the model's time). */
  if (populate)
    madvise((void *)((uintptr_t)*addr & ~(uintptr_t)4095), bytes + ((uintptr_t)*addr & 4095), MADV_POPULATE_WRITE);
  return SCC_LUT_SUCCESS;
}

int scc_map_private(int ue, size_t offset, size_t bytes, int attr, void **addr) {
  if (rcce_running() && (ue < 0 || ue >= (int)rcce_job()->hdr->nue))
    return rcce_report(SCC_LUT_ERROR_OWNER, "scc_map_private", "UE %d is no UE of the job", ue);
  if (attr < SCC_LUT_CACHED || attr > SCC_LUT_UNCACHED)
    return rcce_report(SCC_LUT_ERROR_KIND, "scc_map_private", "unknown attribute %d", attr);
  uint64_t size = rcce_running() ? rcce_job()->hdr->private_bytes : 0;
  return map_range(SCC_LUT_PRIVATE, ue, size, offset, bytes, attr, addr, 1, "scc_map_private");
}

int scc_map_shared(const void *shm, size_t bytes, int attr, void **addr) {
  if (!rcce_running()) return rcce_report(SCC_LUT_ERROR_NOT_INIT, "scc_map_shared", "call RCCE_init first");
  if (attr < SCC_LUT_CACHED || attr > SCC_LUT_UNCACHED)
    return rcce_report(SCC_LUT_ERROR_KIND, "scc_map_shared", "unknown attribute %d", attr);
  const struct hw_job *job = rcce_job();
  uintptr_t lo = (uintptr_t)hw_shared(job), p = (uintptr_t)shm;
  if (!shm || p < lo || p - lo >= job->hdr->shared_bytes)
    return rcce_report(SCC_LUT_ERROR_RANGE, "scc_map_shared", "%p is not in the shared memory (RCCE_shmalloc)", shm);
  return map_range(SCC_LUT_SHARED, -1, job->hdr->shared_bytes, p - lo, bytes, attr, addr, 1, "scc_map_shared");
}

int scc_unmap(void *addr, size_t bytes) {
  TIMING_SCOPE();
  int first = scc_lut_entry_of(addr), last = bytes ? scc_lut_entry_of((char *)addr + bytes - 1) : first;
  if (first < FIRST_MAPPED_ENTRY || last < first)
    return rcce_report(SCC_LUT_ERROR_ARG, "scc_unmap", "%p is not an address scc_map_private/scc_map_shared returned",
                       addr);
  for (int entry = first; entry <= last; entry++) {
    int rc = lut_write_entry(entry, &(scc_lut_entry){SCC_LUT_UNMAPPED, -1, 0, SCC_LUT_CACHED});
    if (rc != SCC_LUT_SUCCESS) return rcce_report(rc, "scc_unmap", "entry %d: %s", entry, scc_lut_error_string(rc));
    timing_tas_access(rcce_my_core());
  }
  return SCC_LUT_SUCCESS;
}

int scc_private_offset(const void *p, size_t *offset) {
  int rc = lut_ready("scc_private_offset");
  if (rc != SCC_LUT_SUCCESS) return rc;
  uintptr_t lo = (uintptr_t)lut_g.windows, a = (uintptr_t)p;
  if (!offset || a < lo || a - lo >= rcce_job()->hdr->private_bytes)
    return rcce_report(SCC_LUT_ERROR_RANGE, "scc_private_offset", "%p is not in this UE's private memory", p);
  *offset = a - lo;
  return SCC_LUT_SUCCESS;
}

/* The tile MPB holding seg_off, as an MPB entry names it: by a UE on that
 * tile (an MPB entry maps the tile's whole MPB, cores_per_tile x 8 KB). */
static int mpb_at(uint64_t seg_off, int *kind, int *owner, uint64_t *size, uint64_t *within) {
  const struct hw_job *job = rcce_job();
  const struct chip_desc *c = &job->hdr->chip;
  uint64_t first = (uint64_t)(hw_mpb(job, 0) - job->base),
           per_tile = (uint64_t)c->mpb_bytes_per_core * c->cores_per_tile;
  if (seg_off < first || seg_off - first >= per_tile * (uint64_t)chip_num_tiles(c)) return SCC_LUT_ERROR_RANGE;
  int tile = (int)((seg_off - first) / per_tile);
  for (int u = 0; u < (int)job->hdr->nue; u++)
    if (hw_ue(job, u)->core / c->cores_per_tile == tile) {
      *kind = SCC_LUT_MPB, *owner = u, *size = per_tile, *within = (seg_off - first) % per_tile;
      return SCC_LUT_SUCCESS;
    }
  return SCC_LUT_ERROR_RANGE; /* no UE on that tile names it */
}

/* The memory behind a job-segment offset: a UE's private partition, the
 * shared region or a tile's MPB (kind, owner, its size and the offset
 * within it). */
static int memory_at(uint64_t seg_off, int *kind, int *owner, uint64_t *size, uint64_t *within) {
  const struct hw_header *h = rcce_job()->hdr;
  if (h->private_bytes && seg_off >= h->private_off && seg_off - h->private_off < h->private_bytes * h->nue) {
    *kind = SCC_LUT_PRIVATE, *owner = (int)((seg_off - h->private_off) / h->private_bytes);
    *size = h->private_bytes, *within = (seg_off - h->private_off) % h->private_bytes;
    return SCC_LUT_SUCCESS;
  }
  if (seg_off >= h->shared_off && seg_off - h->shared_off < h->shared_bytes) {
    *kind = SCC_LUT_SHARED, *owner = -1, *size = h->shared_bytes, *within = seg_off - h->shared_off;
    return SCC_LUT_SUCCESS;
  }
  return mpb_at(seg_off, kind, owner, size, within);
}

int lut_map_offset(uint64_t seg_off, size_t bytes, int attr, void **addr) {
  int kind, owner;
  uint64_t size, within;
  int rc = memory_at(seg_off, &kind, &owner, &size, &within);
  if (rc != SCC_LUT_SUCCESS) return rc;
  return map_range(kind, owner, size, (size_t)within, bytes, attr, addr, 0, "lut_map_offset");
}

int lut_segment_offset(const void *p, size_t bytes, uint64_t *seg_off) {
  const struct hw_job *job = rcce_job();
  uintptr_t a = (uintptr_t)p;
  int entry = scc_lut_entry_of(p);
  if (entry >= 0) {
    uint64_t off, have;
    const scc_lut_entry *e = &lut_g.entries[entry];
    if (lut_frame_bytes(e, &off, &have) != SCC_LUT_SUCCESS) return SCC_LUT_ERROR_RANGE;
    *seg_off = off + (a - (uintptr_t)lut_g.windows) % SCC_LUT_PAGE_BYTES;
  } else if (a >= (uintptr_t)job->base && a - (uintptr_t)job->base < job->bytes) {
    *seg_off = a - (uintptr_t)job->base;
  } else {
    return SCC_LUT_ERROR_RANGE;
  }
  /* The whole range must be one memory, mapped in order: its last byte is
   * where the first one's offset says. */
  uint64_t last;
  if (bytes > 1 && lut_segment_offset((const char *)p + bytes - 1, 1, &last) != SCC_LUT_SUCCESS)
    return SCC_LUT_ERROR_RANGE;
  if (bytes > 1 && last != *seg_off + bytes - 1) return SCC_LUT_ERROR_RANGE;
  int kind, owner;
  uint64_t size, within;
  return memory_at(*seg_off, &kind, &owner, &size, &within) == SCC_LUT_SUCCESS && bytes <= size - within
             ? SCC_LUT_SUCCESS
             : SCC_LUT_ERROR_RANGE;
}

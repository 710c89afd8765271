/* A copy by remapping (copy_internal.h, [SVP-SCC] sec. III.B): the paper's
 * flags on both sides, MPBT (level 1 only, stores merging in the
 * write-combine buffer), so no level-2 flush is needed on this core. */
#include "../lut/lut_internal.h"
#include "../rcce/rcce_iface.h"
#include "copy_internal.h"
#include "scc_copy.h"

int copy_remapped(uint64_t dst_off, uint64_t src_off, uint64_t bytes, uint64_t first, uint64_t chunk, uint64_t stride,
                  uint64_t *copied) {
  void *src, *dst;
  if (lut_map_offset(src_off, bytes, SCC_LUT_MPBT, &src) != SCC_LUT_SUCCESS) return SCC_COPY_ERROR_ADDRESS;
  if (lut_map_offset(dst_off, bytes, SCC_LUT_MPBT, &dst) != SCC_LUT_SUCCESS) {
    scc_unmap(src, bytes);
    return SCC_COPY_ERROR_ADDRESS;
  }
  scc_cl1invmb();
  for (uint64_t at = first; at < bytes; at += stride) {
    uint64_t n = bytes - at < chunk ? bytes - at : chunk;
    scc_copy_local((char *)dst + at, (const char *)src + at, n);
    *copied += n;
  }
  scc_wcb_flush();
  scc_unmap(src, bytes);
  scc_unmap(dst, bytes);
  return SCC_COPY_SUCCESS;
}

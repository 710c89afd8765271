/* The cache instructions a program uses around remapped memory
 * ([SVP-SCC] sec. III.B; ref 1 "MPBT type"): natively the host keeps its
 * caches coherent, so they only order the UE's own accesses; in model mode
 * the timing layer charges them (timing_l2_flush, CL1INVMB's one clock). */
#include "../rcce/rcce_iface.h"
#include "scc_lut.h"

void scc_cl1invmb(void) {
  TIMING_SCOPE();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  timing_cache_window_invalidate();
  timing_cycles(1);
}

void scc_l2_flush(void) {
  TIMING_SCOPE();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  timing_l2_flush();
}

void scc_wcb_flush(void) {
  TIMING_SCOPE();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  timing_cache_window_flush();
}

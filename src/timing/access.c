/* What one load or store of a program costs, by where it goes (docs/model.md
 * "Memory" and "Caches"): an uncached word of the off-chip shared region at
 * its controller, or the UE's caches for other memory outside the job
 * segment.  The instrumentation hooks (memory_access.c) and the runtime's own
 * charged copies (timing_copy) both come here. */
#include <stddef.h>
#include <stdint.h>

#include "timing_internal.h"

/* One uncached word at offset off of the off-chip shared memory (the SVM
 * pool continues the shared region's offsets, hw/segment.h). */
void timing_ddr_word(uint64_t off, int write) {
  const struct chip_desc *c = timing_g.chip;
  int mc = chip_shared_mc(c, off);
  double cycles = timing_ddr_cycles(mc);
  /* With ddr_outstanding_reads > 1 reads may be in flight together, so in a
   * stream of reads only every n-th one waits for the memory
   * ([PERFPOWER-2011]'s dot-product model: two); a write or a runtime call in
   * between ends the stream.  The scc preset has one: TN005's uncached line
   * costs eight word reads (ref 3).  Writes are posted, one at a time (ref 1
   * "L1 / L2"). */
  if (!write && timing_g.reads_in_flight++ % c->lat.ddr_outstanding_reads != 0) cycles = 0;
  if (write) timing_g.reads_in_flight = 0;
  double ps = cycles * timing_ps_per_cycle() + timing_mc_queue_ps(mc, 1);
  timing_advance((uint64_t)(ps + 0.5), TIMING_COMM, TIMING_STALLED);
  if (write) timing_g.clock->ddr_writes++;
  else timing_g.clock->ddr_reads++;
}

void timing_access(uintptr_t addr, size_t size, int write) {
  if (addr - timing_fast.shared_lo < timing_fast.shared_len) timing_ddr_word(addr - timing_fast.shared_lo, write);
  else if (addr - timing_segment_lo >= timing_segment_len) timing_cache_access(addr, size, write);
}

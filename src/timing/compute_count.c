/* Counted computation (docs/model.md "Computation"): a program built with
 * `rccecc --model-build` calls this at every basic block it enters
 * (GCC's -fsanitize-coverage=trace-pc), so model mode charges computation
 * the same on every run, whatever the host does meanwhile.
 *
 * rccecc's compiler wrapper (src/launch/blockcost) writes each block's P54C
 * cycles right after its call, as the displacement of a 7-byte NOP
 * (0f 1f 80 disp32): the return address points at it.  A block without it
 * (code instrumented by other means) is charged the chip's flat
 * time_compute_bb_cycles. */
#include <stdint.h>
#include <string.h>

#include "../openscc_api.h"
#include "timing_internal.h"

uint64_t timing_bb_count;
uint64_t timing_bb_cycles;
uint64_t timing_bb_unpriced;

/* Blocks between two checkpoints of a stretch without runtime calls
 * (timing_compute_checkpoint): a few tens of microseconds of virtual time. */
#define CHECKPOINT_BLOCKS 4096u

OPENSCC_API void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {
  const unsigned char *after = __builtin_return_address(0);
  if (__builtin_expect((++timing_bb_count & (CHECKPOINT_BLOCKS - 1)) == 0, 0)) timing_compute_checkpoint();
  if (after[0] == 0x0f && after[1] == 0x1f && after[2] == 0x80) {
    uint32_t cycles;
    memcpy(&cycles, after + 3, sizeof cycles);
    timing_bb_cycles += cycles;
  } else {
    timing_bb_unpriced++;
  }
}

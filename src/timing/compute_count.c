/* Counted computation (docs/model.md "Computation"): a program built with
 * `rccecc --model-build` calls this at every basic block it enters
 * (GCC's -fsanitize-coverage=trace-pc), so model mode charges computation
 * the same on every run, whatever the host does meanwhile.
 *
 * rccecc's compiler wrapper (src/launch/blockcost) writes each block's P54C
 * cycles right after its call, as the displacement of a 7-byte NOP
 * (0f 1f 80 disp32): the return address points at it.  A block without it
 * (code instrumented by other means) is charged the chip's flat
 * time_compute_bb_cycles.  Where the wrapper priced a block it replaces the
 * call by the same counting inline (inline_hooks.py), which calls
 * __openscc_checkpoint in place of the call's checkpoint. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../openscc_api.h"
#include "timing_internal.h"

OPENSCC_API struct timing_fast_paths timing_fast;
/* The offsets rccecc's inlined hooks use (src/launch/blockcost/inline_hooks.py, FIELDS). */
_Static_assert(offsetof(struct timing_fast_paths, bb_count) == 0, "inline_hooks.py: bb_count");
_Static_assert(offsetof(struct timing_fast_paths, bb_cycles) == 8, "inline_hooks.py: bb_cycles");
_Static_assert(offsetof(struct timing_fast_paths, shared_lo) == 24, "inline_hooks.py: shared_lo");
_Static_assert(offsetof(struct timing_fast_paths, shared_len) == 32, "inline_hooks.py: shared_len");
_Static_assert(offsetof(struct timing_fast_paths, caches_on) == 40, "inline_hooks.py: caches_on");
_Static_assert(offsetof(struct timing_fast_paths, ways) == 44, "inline_hooks.py: ways");
_Static_assert(offsetof(struct timing_fast_paths, l1) == 48, "inline_hooks.py: l1");
_Static_assert(offsetof(struct timing_fast_paths, set_mask) == 56, "inline_hooks.py: set_mask");
_Static_assert(offsetof(struct timing_fast_paths, line_shift) == 64, "inline_hooks.py: line_shift");
_Static_assert(offsetof(struct timing_fast_paths, window_lo) == 72, "inline_hooks.py: window_lo");
_Static_assert(offsetof(struct timing_fast_paths, window_len) == 80, "inline_hooks.py: window_len");
_Static_assert(offsetof(struct timing_fast_paths, lut_lo) == 88, "inline_hooks.py: lut_lo");
_Static_assert(offsetof(struct timing_fast_paths, lut_len) == 96, "inline_hooks.py: lut_len");
_Static_assert(TIMING_CACHE_DIRTY == 1ULL << 63, "inline_hooks.py: the dirty bit is bit 63");
_Static_assert(sizeof(struct timing_fast_paths) == 13 * sizeof(uint64_t), "model_hooks_stub.c: 13 words");

/* Blocks between two checkpoints of a stretch without runtime calls
 * (timing_compute_checkpoint): a few tens of microseconds of virtual time
 * (inline_hooks.py counts alike). */
#define CHECKPOINT_BLOCKS 4096u

/* The inlined block counter's call every CHECKPOINT_BLOCKS blocks. */
OPENSCC_API void __openscc_checkpoint(void);
void __openscc_checkpoint(void) { timing_compute_checkpoint(); }

OPENSCC_API void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {
  const unsigned char *after = __builtin_return_address(0);
  if (__builtin_expect((++timing_fast.bb_count & (CHECKPOINT_BLOCKS - 1)) == 0, 0)) timing_compute_checkpoint();
  if (after[0] == 0x0f && after[1] == 0x1f && after[2] == 0x80) {
    uint32_t cycles;
    memcpy(&cycles, after + 3, sizeof cycles);
    timing_fast.bb_cycles += cycles;
  } else {
    timing_fast.bb_unpriced++;
  }
}

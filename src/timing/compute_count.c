/* Counted computation (docs/model.md "Computation"): a program built with
 * `rccecc --model-build` calls this at every basic block it enters
 * (GCC's -fsanitize-coverage=trace-pc), so model mode can charge
 * computation as basic blocks x the chip's time_compute_bb_cycles: the same
 * virtual time on every run, whatever the host does meanwhile. */
#include <stdint.h>

#include "../openscc_api.h"
#include "timing_internal.h"

uint64_t timing_bb_count;

OPENSCC_API void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) { timing_bb_count++; }

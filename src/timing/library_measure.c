/* Measuring an uninstrumented library's own instructions under callgrind
 * (docs/model.md "The MPI library's own work").
 *
 * With OPENSCC_MEASURE_LIBRARY=1 in a model-mode job run under
 * `valgrind --tool=callgrind --collect-atstart=no`, instructions are
 * collected exactly where a plain build charges host time as computation:
 * outside the runtime (timing_enter .. timing_leave), and not after a poll
 * that found nothing (the library's progress loop spinning, which on the
 * chip would have been the same loop waiting).  The runtime's own work is
 * left out: the model charges it by what it touches.  Outside callgrind, or
 * without the variable, nothing happens.
 */
#include <stdlib.h>

#include "timing_internal.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define LIBRARY_MEASURE_POSSIBLE 1
#else
#define LIBRARY_MEASURE_POSSIBLE 0
#endif

int timing_measuring_library;
static int collecting;

void timing_library_measure_init(void) {
#if LIBRARY_MEASURE_POSSIBLE
  const char *on = getenv("OPENSCC_MEASURE_LIBRARY");
  timing_measuring_library = on && *on == '1' && RUNNING_ON_VALGRIND;
#endif
}

static void collect(int on) {
#if LIBRARY_MEASURE_POSSIBLE
  if (on == collecting) return;
  CALLGRIND_TOGGLE_COLLECT;
  collecting = on;
#else
  (void)on;
#endif
}

void timing_library_measure_enter(void) { collect(0); }

void timing_library_measure_leave(int after_empty_poll) { collect(!after_empty_poll); }

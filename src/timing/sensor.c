/* The power sensor of model mode (include/scc_power.h; docs/model.md
 * "Power sensor"): a reading is the chip's average power over one
 * contention window, the one TIMING_WINDOW_LAG windows before the reader's,
 * as every UE recorded it.  Like an access's queueing (contention.c) it is
 * read once every other UE is past that window, so a counted build reads
 * the same on every run however the host interleaves the UEs: the sensor
 * samples with a delay of 30-40 us of virtual time and averages over 10 us
 * (a real sensor averages over far longer).  Before the reader's clock
 * reaches the lag, the sensor shows the chip at rest.
 *
 * Every UE records its dynamic energy per window in a ring (timing.energy);
 * so that an entry a reader needs is still there, a counted UE does not run
 * more than half the ring ahead of the slowest running UE: every
 * LOOKAHEAD_CHECK windows it waits for them to come within LOOKAHEAD
 * windows (conservative synchronisation with that lookahead,
 * [CHANDY-MISRA-1979]; it costs host time only). */
#include "energy.h"
#include "timing_internal.h"

#define LOOKAHEAD (TIMING_ENERGY_WINDOWS / 2)
#define LOOKAHEAD_CHECK 256

/* Window k's entry of my ring, started afresh when it still holds an older window. */
static struct timing_window_energy *entry(uint64_t k) {
  struct timing_window_energy *e = &timing_g.energy[k % TIMING_ENERGY_WINDOWS];
  if (__atomic_load_n(&e->tag, __ATOMIC_RELAXED) != k + 1) {
    e->joules = 0;
    __atomic_store_n(&e->tag, k + 1, __ATOMIC_RELEASE);
  }
  return e;
}

static void add_to_window(void *unused, uint64_t k, double joules) {
  (void)unused;
  entry(k)->joules += joules;
}

void timing_sensor_record(uint64_t t0, uint64_t t1, double joules) {
  /* The common step stays in the window the clock is in (no division). */
  if (t1 <= timing_g.window_end_ps) {
    if (t1 > t0) entry(timing_g.window)->joules += joules;
    return;
  }
  timing_spread(t0, t1, timing_g.window_ps, joules, add_to_window, NULL);
}

void timing_sensor_lookahead(uint64_t from_window, uint64_t to_window) {
  if (!timing_g.counted || to_window / LOOKAHEAD_CHECK == from_window / LOOKAHEAD_CHECK || to_window <= LOOKAHEAD)
    return;
  timing_floor_wait(to_window - LOOKAHEAD);
}

double timing_sensor_read(void) {
  uint64_t k = timing_g.clock->now_ps / timing_g.window_ps;
  if (k < TIMING_WINDOW_LAG) return timing_rest_power(timing_g.job);
  uint64_t sampled = k - TIMING_WINDOW_LAG;
  /* A plain build reads as found (its clock moves only at runtime calls). */
  if (timing_g.counted) timing_floor_wait(sampled + 1);
  return timing_window_power(timing_g.job, sampled, timing_g.window_ps);
}

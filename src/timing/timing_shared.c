/* The timing layer's regions of the job segment (timing_shared.h). */
#include "timing_shared.h"

/* Model mode only: a stamp per bit of every line of every MPB (docs/model.md). */
static uint64_t stamp_count(const struct hw_job_params *p) {
  if (!p->set.model) return 0;
  uint64_t lines = (uint64_t)p->chip.mpb_bytes_per_core / (uint64_t)p->chip.line_bytes * chip_num_cores(&p->chip);
  return lines * (uint64_t)p->chip.line_bytes * 8;
}
static uint64_t vlog_count(const struct hw_job_params *p) {
  return p->set.model ? (uint64_t)chip_num_voltage_domains(&p->chip) : 0;
}
/* Model mode only: a floor per UE and the count of lowerings (floor.c). */
static uint64_t floor_count(const struct hw_job_params *p) { return p->set.model ? (uint64_t)p->nue + 1 : 0; }

/* Model mode only: per UE, its windows of busy time per shared resource (contention.c). */
static uint64_t window_words(const struct hw_job_params *p) {
  return p->set.model ? TIMING_WINDOW_SLOTS * (1 + timing_resource_count(&p->chip)) : 0;
}

/* Model mode only: one release time per test-and-set register (one per core). */
static uint64_t lock_count(const struct hw_job_params *p) {
  return p->set.model ? (uint64_t)chip_num_cores(&p->chip) : 0;
}

HW_REGION_DECLARE(timing_clock, TIMING_CLOCK_REGION, TIMING_CLOCK_VERSION, HW_REGION_PER_UE,
                  sizeof(struct timing_vclock), NULL)
HW_REGION_DECLARE(timing_stamps, TIMING_STAMPS_REGION, TIMING_STAMPS_VERSION, HW_REGION_PER_JOB, sizeof(uint64_t),
                  stamp_count)
HW_REGION_DECLARE(timing_vlog, TIMING_VLOG_REGION, TIMING_VLOG_VERSION, HW_REGION_PER_JOB, sizeof(struct timing_vlog),
                  vlog_count)
HW_REGION_DECLARE(timing_floors, TIMING_FLOORS_REGION, TIMING_FLOORS_VERSION, HW_REGION_PER_JOB,
                  sizeof(struct timing_floor), floor_count)
HW_REGION_DECLARE(timing_windows, TIMING_WINDOWS_REGION, TIMING_WINDOWS_VERSION, HW_REGION_PER_UE, sizeof(uint64_t),
                  window_words)
/* Model mode only: per UE, its dynamic energy per window (sensor.c). */
static uint64_t energy_windows(const struct hw_job_params *p) { return p->set.model ? TIMING_ENERGY_WINDOWS : 0; }

HW_REGION_DECLARE(timing_energy, TIMING_ENERGY_REGION, TIMING_ENERGY_VERSION, HW_REGION_PER_UE,
                  sizeof(struct timing_window_energy), energy_windows)
HW_REGION_DECLARE(timing_locks, TIMING_LOCKS_REGION, TIMING_LOCKS_VERSION, HW_REGION_PER_JOB, sizeof(uint64_t),
                  lock_count)

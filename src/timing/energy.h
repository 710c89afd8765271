/* Chip power and energy of a model-mode job, from the segment (energy.c):
 * used by the launcher's job summary and by the power sensor. */
#ifndef OPENSCC_TIMING_ENERGY_H
#define OPENSCC_TIMING_ENERGY_H

#include "../hw/segment.h"

struct timing_energy {
  double start_s; /* where the interval starts in virtual time */
  double seconds; /* its length (the whole job: up to the latest UE clock) */
  double dynamic_j, static_j, uncore_j, energy_j;
  double average_w; /* energy / seconds */
  double edp_js;    /* energy-delay product */
};

void timing_job_energy(const struct hw_job *j, struct timing_energy *out);
/* The same over the measured region (docs/model.md "Measured region"): from
 * the earliest first to the latest last clock read (RCCE_wtime, MPI_Wtime)
 * of any UE.  Returns 0 (and leaves out alone) when no UE read the clock
 * twice apart in time. */
int timing_region_energy(const struct hw_job *j, struct timing_energy *out);
/* Chip power per bucket of virtual time; returns the number of buckets
 * written (at most max) and their width in seconds. */
int timing_power_trace(const struct hw_job *j, double *watts, int max, double *bucket_s);
/* The dynamic energy of core `core` at `activity` over [t0, t1), its
 * domain's voltage and clock followed through the domain's log. */
double timing_core_joules(const struct hw_job *j, int core, uint64_t t0, uint64_t t1, double activity);
/* The chip at rest at virtual time 0: every core idle. */
double timing_rest_power(const struct hw_job *j);
/* The chip's average power over window k (of window_ps): the UEs' energy
 * per window, a blocked UE waiting and a finished one's core idle from its
 * clock on, every domain's static power, idle cores and the uncore
 * (the power sensor's reading, sensor.c). */
double timing_window_power(const struct hw_job *j, uint64_t k, uint64_t window_ps);

#endif

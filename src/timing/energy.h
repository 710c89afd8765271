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
/* The chip's power at virtual time t: every domain's and core's state then,
 * each running UE's core at its latest activity. */
double timing_power_at(const struct hw_job *j, uint64_t t);

#endif

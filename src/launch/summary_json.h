/* summary.json of the job directory: schema in docs/monitoring.md. */
#ifndef OPENSCC_LAUNCH_SUMMARY_JSON_H
#define OPENSCC_LAUNCH_SUMMARY_JSON_H

#include <stdio.h>

#include "../timing/energy.h"
#include "options.h"

#define SUMMARY_VERSION 1

struct summary_files {
  int comm_matrix, message_sizes, trace, power; /* which files the directory holds */
  double power_bucket_s;
};

/* Whether every UE's program counts its computation (rccecc --model-build). */
int summary_all_counted(const struct hw_job *job);
/* Write the summary; e is the chip's energy in model mode, else NULL;
 * region the measured region's (timing_region_energy), or NULL. */
void summary_json_write(FILE *f, const struct launch_options *o, const struct hw_job *job, const char *id,
                        double host_s, const struct timing_energy *e, const struct timing_energy *region,
                        const struct summary_files *files);

#endif

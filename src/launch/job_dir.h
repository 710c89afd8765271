/* The job directory (docs/monitoring.md): summary.json for every job run
 * with --trace or --model, and the files of the trace level and the model. */
#ifndef OPENSCC_LAUNCH_JOB_DIR_H
#define OPENSCC_LAUNCH_JOB_DIR_H

#include "options.h"

/* Whether the job writes a job directory. */
int job_dir_wanted(const struct launch_options *o);
/* Write it (creating the directory) after a successful job that ran for
 * host_s seconds, with the model's lines on stderr.  Returns 0, or -1 after
 * printing why the files are missing. */
int job_dir_write(const struct launch_options *o, const struct hw_job *job, double host_s);

#endif

/* Model mode's job summary (docs/model.md "Job summary"): summary.json and
 * power.csv in the job directory, and a few lines at the end of the run. */
#ifndef OPENSCC_LAUNCH_MODEL_SUMMARY_H
#define OPENSCC_LAUNCH_MODEL_SUMMARY_H

#include "options.h"

/* Write the files (creating the directory) and print the brief summary to
 * stderr.  Returns 0, or -1 after printing why the files are missing. */
int model_summary_write(const struct launch_options *o, const struct hw_job *job);

#endif

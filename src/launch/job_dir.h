/* The job directory (docs/monitoring.md): summary.json for every job run
 * with --trace or --model, and the files of the trace level and the model. */
#ifndef OPENSCC_LAUNCH_JOB_DIR_H
#define OPENSCC_LAUNCH_JOB_DIR_H

#include "options.h"

/* Whether the job writes a job directory. */
int job_dir_wanted(const struct launch_options *o);
/* Claim the directory before any UE starts (docs/monitoring.md "The job
 * directory"): create it, lock it for this process's life, and refuse one
 * that holds a job unless --replace-job-dir.  Returns 0, or -1 after printing
 * why. */
int job_dir_claim(const struct launch_options *o);
/* rccerun --hosts (docs/cluster.md "Several hosts"): the head claims the
 * directory and hands it over to host 0's agent, which writes into it (the
 * head keeps the lock): job_dir_hand_over puts its absolute path and the
 * job's id into the environment mpirun passes on, job_dir_adopt takes them.
 * Both return 0, or -1 after printing why. */
#define JOB_DIR_HANDOVER_DIR "OPENSCC_HOSTS_JOB_DIR"
#define JOB_DIR_HANDOVER_ID "OPENSCC_HOSTS_JOB_ID"
int job_dir_hand_over(void);
int job_dir_adopt(const struct launch_options *o);
/* Give the claimed directory up at the end: removed again if this job made
 * it and wrote nothing into it. */
void job_dir_release(void);
/* Write it into the claimed directory after a successful job that ran for
 * host_s seconds, with the model's lines on stderr; --replace-job-dir
 * removes the old job's files first.  Returns 0, or -1 after
 * printing why the files are missing. */
int job_dir_write(const struct launch_options *o, const struct hw_job *job, double host_s);

#endif

/* rccerun --hosts: start the job's host agents with Open MPI's mpirun. */
#ifndef OPENSCC_LAUNCH_HOSTS_LAUNCH_H
#define OPENSCC_LAUNCH_HOSTS_LAUNCH_H

#include "options.h"

/* Run the job on the hosts of o->hosts_file, passing argv on to every host's
 * agent; returns rccerun's exit code (the first failing host's). */
int launch_hosts_run(const struct launch_options *o, int argc, char **argv);

#endif

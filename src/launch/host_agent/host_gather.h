/* After a successful job that writes a job directory (--trace), every
 * agent's UEs' monitoring records go to host 0's agent, which writes the
 * directory (host_gather.c; docs/cluster.md "Several hosts"). */
#ifndef OPENSCC_LAUNCH_HOST_GATHER_H
#define OPENSCC_LAUNCH_HOST_GATHER_H

#include <mpi.h>

#include "host_link.h"

/* Called by every agent once the link has ended, over comm: a duplicate of
 * the link's world, so that a link still running on another host never
 * takes these messages for its own.  Returns 1 on host 0, which now holds
 * every UE's records, else 0. */
int host_gather(MPI_Comm comm, struct hw_job *job, int me, int hosts);

#endif

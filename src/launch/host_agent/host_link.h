/* The agents' link (host_link.c): one thread per agent carries this host's
 * log of MPB writes to the other hosts and applies theirs (hw/hosts.h), over
 * the MPI world mpirun started the agents in. */
#ifndef OPENSCC_LAUNCH_HOST_LINK_H
#define OPENSCC_LAUNCH_HOST_LINK_H

#include "../../hw/hosts.h"

/* The agents' MPI tags: the link's messages; host_gather.c's, on a communicator of their own. */
enum host_tag { HOST_TAG_BATCH = 1, HOST_TAG_END, HOST_TAG_STUCK, HOST_TAG_CLOCK, HOST_TAG_UE };

/* Start the link of host me of hosts for the replica job; 0 or -1. */
int host_link_start(struct hw_job *job, int me, int hosts);
/* 0, or the exit code another host's part of the job failed with. */
int host_link_remote_failure(void);
/* This host's UEs are gone with exit code rc: tell the other hosts, serve
 * them until every host's part has ended, stop the link; returns the job's
 * exit code (rc, else the first other host's failure). */
int host_link_finish(int rc);
/* Deadlocks across hosts: this host's UEs are all stuck (here 1) or not;
 * the link tells the other hosts when that changes.  Returns whether every
 * host's UEs are stuck or have ended, as last heard. */
int host_link_stuck(int here);
/* Whether every host's end has been heard (after host_link_finish). */
int host_link_all_ended(void);

#endif

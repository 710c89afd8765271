/* openscc-host-agent: one per host of rccerun --hosts, started by mpirun
 * with rccerun's arguments (launch/hosts_launch.c).  MPI rank h is host h of
 * the hosts file: it lays out its replica of the job's segment, starts and
 * supervises the UEs of its boards as rccerun does on one host, and runs the
 * link that keeps the replicas' MPBs alike (host_link.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../options.h"
#include "../supervise.h"
#include "../job_dir.h"
#include "host_gather.h"

static int me, hosts;
static MPI_Comm gather_comm; /* host_gather.h */

/* An MPI job's ranks are started by host 0's mpirun (mpi_hosts.c); each
 * opens its host's replica through the agent's descriptor, whose name is
 * gone already: every agent's /proc/PID/fd/FD goes to host 0, in host
 * order, for the ranks' wrappers (OPENSCC_SHM_PATHS, rank/openscc_rank.c). */
static void share_segment_paths(const struct hw_job *job) {
  int mine[2] = {(int)getpid(), job->fd}, all[2 * HW_MAX_HOSTS];
  MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, gather_comm);
  if (me != 0) return;
  char paths[HW_MAX_HOSTS * 40] = "";
  for (int h = 0; h < hosts; h++) {
    size_t used = strlen(paths);
    snprintf(paths + used, sizeof paths - used, "%s/proc/%d/fd/%d", h ? ":" : "", all[2 * h], all[2 * h + 1]);
  }
  setenv("OPENSCC_SHM_PATHS", paths, 1);
}

static void started(struct hw_job *job) {
  if (job->hdr->set.mpi_library) share_segment_paths(job);
  if (host_link_start(job, me, hosts) != 0) {
    fprintf(stderr, "rccerun: host %d: cannot start the link to the other hosts\n", me);
    MPI_Abort(MPI_COMM_WORLD, RCCERUN_SETUP);
  }
}

static int gather(struct hw_job *job) { return host_gather(gather_comm, job, me, hosts); }

static const struct launch_host_agent agent = {started, host_link_remote_failure, host_link_finish, host_link_stuck,
                                               gather};

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &hosts);
  MPI_Comm_dup(MPI_COMM_WORLD, &gather_comm);
  static struct launch_options o;
  launch_ignore_sigpipe();
  if (provided < MPI_THREAD_SERIALIZED) {
    fprintf(stderr, "rccerun: host %d: the MPI library gives no thread support (MPI_THREAD_SERIALIZED)\n", me);
    MPI_Abort(MPI_COMM_WORLD, RCCERUN_SETUP);
  }
  /* The arguments were checked by rccerun before mpirun started: a failure
   * here is this host's (a missing program, another chip file). */
  argv[0] = "rccerun";
  launch_hosts_as_agent(); /* the host names come from rccerun, not from its hosts file */
  int rc = launch_parse(argc, argv, &o);
  if (rc == 0 && o.job.set.hosts != hosts) {
    fprintf(stderr, "rccerun: host %d: %d agents for %d hosts\n", me, hosts, o.job.set.hosts);
    rc = -1;
  }
  if (rc != 0) MPI_Abort(MPI_COMM_WORLD, RCCERUN_USAGE);
  /* The head claimed the job directory; host 0 writes into it. */
  if (me == 0 && job_dir_wanted(&o) && job_dir_adopt(&o) != 0) MPI_Abort(MPI_COMM_WORLD, RCCERUN_SETUP);
  o.job.set.host = me;
  launch_set_host_agent(&agent);
  rc = launch_run(&o);
  /* After a failure the other agents may be gone: leave without MPI's end. */
  if (rc != 0 && !host_link_all_ended()) _exit(rc);
  MPI_Finalize();
  return rc;
}

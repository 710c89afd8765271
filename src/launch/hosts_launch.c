/* rccerun --hosts FILE (docs/cluster.md, "Several hosts"): Open MPI's mpirun
 * starts one openscc-host-agent per host, rank h on the h-th host of FILE,
 * with rccerun's own arguments; each agent runs the UEs of its host's boards
 * (host_agent/).  mpirun reaches other hosts with its rsh/ssh agent
 * (OMPI_MCA_plm_rsh_agent, e.g. `ip netns exec` in the tests), stops every
 * agent when one fails or is lost, and returns the first failing exit code. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hosts_launch.h"
#include "mpi_launch.h"
#include "own_dir.h"
#include "supervise.h"

extern char **environ;

#define MAX_EXPORTS 64
#define MPIRUN_LAUNCH_FAILED 255 /* Open MPI's exit code when its daemons did not start */

static pid_t mpirun_pid;
static volatile sig_atomic_t interrupted; /* the first signal passed on to mpirun */
static void forward_signal(int sig) {
  if (!interrupted) interrupted = sig;
  if (mpirun_pid > 0) kill(mpirun_pid, sig);
}

/* mpirun's --host list: one slot per host, so rank h lands on host h (a
 * list, not a hostfile: nothing to leave in /tmp, and a host named twice is
 * two slots of that host, two agents on one machine). */
static void host_list(const struct launch_options *o, char *list, size_t len) {
  list[0] = '\0';
  for (int h = 0; h < o->job.set.hosts; h++) {
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%s:1", h ? "," : "", o->host_names[h]);
  }
}

/* The environment the agents (and so the UEs) get: OpenSCC's knobs, PMIx's
 * settings and hydra's (the launcher of --mpi mpich, started by host 0's
 * agent), which mpirun does not forward by itself (it does OMPI_MCA_*). */
static int add_exports(char **argv, int n, int max) {
  for (char **e = environ; *e && n + 2 < max; e++)
    if (!strncmp(*e, "OPENSCC_", 8) || !strncmp(*e, "PMIX_MCA_", 9) || !strncmp(*e, "HYDRA_", 6)) {
      argv[n++] = "-x";
      argv[n++] = strndup(*e, strcspn(*e, "="));
    }
  return n;
}

/* MPICH's ranks leave their segments in /dev/shm when they are killed
 * (mpi_launch.c): host 0's agent sweeps them after its ranks, but a lost
 * host's agent dies with mpirun's SIGKILL before its sweep.  rccerun sweeps
 * its own machine's once mpirun is back, giving ranks still dying 2 s to go;
 * another machine's are left to the next job there. */
static void sweep_mpich_segments(const struct timespec *started) {
  for (int i = 0; i < 20 && mpi_remove_orphaned_mpich_segments(started) > 0; i++) {
    struct timespec tick = {0, 100000000L};
    nanosleep(&tick, NULL);
  }
}

int launch_hosts_run(const struct launch_options *o, int argc, char **argv) {
  char mpirun[4096], bin[4096], agent[4096 + 32], hosts[HW_MAX_HOSTS * (sizeof o->host_names[0] + 3)], np[16];
  if (!mpi_find_openmpi_launcher(mpirun, sizeof mpirun)) {
    fprintf(stderr,
            "rccerun: --hosts needs Open MPI's mpirun on PATH (install openmpi-bin: scripts/install-deps.sh)\n");
    return RCCERUN_SETUP;
  }
  if (launch_own_directory(bin, sizeof bin) != 0) return RCCERUN_SETUP;
  snprintf(agent, sizeof agent, "%s/openscc-host-agent", bin);
  if (access(agent, X_OK) != 0) {
    fprintf(stderr, "rccerun: --hosts needs %s (built when Open MPI's development files are installed)\n", agent);
    return RCCERUN_SETUP;
  }
  if (launch_hosts_hand_over(o) != 0) {
    fprintf(stderr, "rccerun: cannot pass the host names on: %s\n", strerror(errno));
    return RCCERUN_SETUP;
  }
  host_list(o, hosts, sizeof hosts);
  snprintf(np, sizeof np, "%d", o->job.set.hosts);
  /* --bind-to none: an agent's UEs share its host's CPUs (Open MPI would bind
   * each agent, and every process it forks, to one core).  When an agent
   * fails, Open MPI's daemons stop the job's processes with SIGCONT, SIGTERM
   * and SIGKILL, each a sigkill timeout apart (1 s by default), even those
   * already gone: 2 s added to every failed job.  Without the wait an agent
   * still running dies at once and its UEs with it (PR_SET_PDEATHSIG), and its
   * segment has no name left to leak (supervise.c).  --mca btl self,tcp:
   * the agents' link never waits for a receiver, as Open MPI's TCP transport
   * sends its batches (up to 64 KB) eagerly; its shared-memory transport,
   * which it would pick between two agents of one machine, hands over
   * batches above 4 KB only when the receiver takes them, and two agents
   * sending to each other would wait for ever (host_link.c). */
  static char *args[MAX_EXPORTS + 4096];
  int n = 0;
  const char *fixed[] = {mpirun, "--quiet",   "--host", hosts,     "-np",
                         np,     "--bind-to", "none",   "--mca",   "odls_base_sigkill_timeout",
                         "0",    "--mca",     "btl",    "self,tcp"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) args[n++] = (char *)fixed[i];
  n = add_exports(args, n, MAX_EXPORTS);
  args[n++] = agent;
  for (int i = 1; i < argc && n < (int)(sizeof args / sizeof args[0]) - 1; i++) args[n++] = argv[i];
  args[n] = NULL;
  if (geteuid() == 0) { /* Open MPI refuses root unless told twice */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  struct timespec started;
  mpi_job_files_since(&started);
  struct sigaction fwd = {.sa_handler = forward_signal};
  sigemptyset(&fwd.sa_mask);
  mpirun_pid = fork();
  if (mpirun_pid == 0) {
    /* rccerun killed outright (kill -9): mpirun stops every agent, as on a
     * signal passed on, and the agents their UEs. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    execv(mpirun, args);
    fprintf(stderr, "rccerun: cannot execute %s: %s\n", mpirun, strerror(errno));
    _exit(127);
  }
  int rc = RCCERUN_SETUP, st;
  if (mpirun_pid > 0) {
    for (int s = 0, sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT}; s < 4; s++) sigaction(sigs[s], &fwd, NULL);
    while (waitpid(mpirun_pid, &st, 0) < 0 && errno == EINTR) continue;
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : RCCERUN_SIGNALLED + WTERMSIG(st);
    /* mpirun passes on an agent's death by signal as 128 + the signal, and
     * says 255 when it could not start or reach its daemons (agents exit with
     * rccerun's own codes). */
    if (interrupted) { /* as on one host: the signal's exit code (mpirun says 1) */
      fprintf(stderr, "rccerun: interrupted by %s; mpirun stopped the UEs of every host\n", strsignal(interrupted));
      rc = RCCERUN_SIGNALLED + interrupted;
    } else if (rc == MPIRUN_LAUNCH_FAILED) {
      fprintf(stderr,
              "rccerun: mpirun could not start an agent on every host of %s (see its message above): check the host "
              "names and that mpirun's rsh/ssh agent reaches each host (docs/cluster.md \"Several hosts\")\n",
              o->hosts_file);
      rc = RCCERUN_SETUP;
    } else if (rc > RCCERUN_SIGNALLED && rc < RCCERUN_SIGNALLED + 64)
      fprintf(stderr,
              "rccerun: a host left the job: its agent ended by signal %d (%s), killed or cut off; mpirun stopped "
              "the UEs of every host\n",
              rc - RCCERUN_SIGNALLED, strsignal(rc - RCCERUN_SIGNALLED));
  } else fprintf(stderr, "rccerun: cannot start %s: %s\n", mpirun, strerror(errno));
  if (o->mpi == LAUNCH_MPI_MPICH) sweep_mpich_segments(&started);
  return rc;
}

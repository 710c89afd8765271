/*
 * openscc-rank PROGRAM [ARGS...]: the rank wrapper of `rccerun --mpi`
 * (docs/rccerun.md "MPI jobs").  The MPI library's launcher starts it once
 * per rank; it maps its rank to the UE of the same number, attaches to the
 * job segment rccerun created (OPENSCC_SHM_NAME), and runs the program as its
 * child in the environment rccerun gives the UEs of RCCE jobs (OPENSCC_SHM_FD,
 * OPENSCC_UE, OPENSCC_CORE, OPENSCC_NUE).  Then it records the program's pid
 * and how it ended in the launch layer's region (launch_shared.h), where
 * rccerun's supervision reads them, and exits as the program did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../chip/text_input.h"
#include "../fixed_addresses.h"
#include "../../hw/hosts.h"
#include "../launch_shared.h"

/* The rank's variable of each launcher: Open MPI, MPICH's hydra (PMI-1/2), PMIx. */
static const char *const rank_variables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};

#define SETUP_FAILED 127 /* as a shell's "cannot execute" */

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("openscc-rank: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(SETUP_FAILED);
}

static int parse_rank(const char *var, const char *v) {
  long long rank;
  if (chip_text_parse_int(v, 0, HW_MAX_UES - 1, &rank))
    fail("%s must be a rank from 0 to %d, got '%s'", var, HW_MAX_UES - 1, v);
  return (int)rank;
}

/* The rank from the variable rccerun names (OPENSCC_RANK_VAR: the one its
 * launcher sets; another launcher's, inherited from around rccerun, may hold
 * a different rank); without it the first of rank_variables. */
static int rank_from_environment(void) {
  const char *var = getenv("OPENSCC_RANK_VAR");
  if (var && *var) {
    const char *v = getenv(var);
    if (!v) fail("OPENSCC_RANK_VAR names %s, which the MPI launcher did not set", var);
    return parse_rank(var, v);
  }
  for (int i = 0; rank_variables[i]; i++)
    if (getenv(rank_variables[i])) return parse_rank(rank_variables[i], getenv(rank_variables[i]));
  fail("no MPI rank in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK): openscc-rank is started by "
       "the MPI launcher of rccerun --mpi");
}

/* The signals a launcher sends its ranks (Open MPI's mpirun forwards SIGTERM,
 * SIGUSR1/2 and SIGCONT to them; hydra SIGINT and SIGTERM; a terminal SIGHUP)
 * go to the program, whose end the wrapper then records as any other. */
static const int forwarded_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT};
#define NFORWARDED (int)(sizeof forwarded_signals / sizeof forwarded_signals[0])

static volatile sig_atomic_t program; /* its pid, once forked */

static void forward(int sig) {
  if (program > 0) kill((pid_t)program, sig);
}

/* Handlers in place with the forwarded signals blocked: they stay pending
 * until the program's pid is known (unblock_forwarded). */
static void install_forwarding(sigset_t *orig) {
  sigset_t set;
  sigemptyset(&set);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NFORWARDED; i++) {
    sigaddset(&set, forwarded_signals[i]);
    sigaction(forwarded_signals[i], &sa, NULL);
  }
  sigprocmask(SIG_BLOCK, &set, orig);
}

/* Claim UE ue's record with a compare-and-swap of this wrapper's pid: a
 * record has one wrapper, whose pids and status it holds.  NULL: taken. */
static struct launch_ue_shared *try_claim(const struct hw_job *job, int ue) {
  struct launch_ue_shared *rec = launch_ue_shared_of(job, ue);
  int32_t expected = 0;
  return __atomic_compare_exchange_n(&rec->wrapper_pid, &expected, (int32_t)getpid(), 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)
             ? rec
             : NULL;
}

/* Whether the MPI launcher started this process for MPI_Comm_spawn: Open
 * MPI gives a spawned process its parent's port (OMPI_PARENT_PORT), MPICH's
 * hydra sets PMI_SPAWNED=1 (checked on both, 2026-11-24). */
static int spawned_process(void) {
  const char *pmi = getenv("PMI_SPAWNED");
  return getenv("OMPI_PARENT_PORT") != NULL || (pmi && strcmp(pmi, "0") != 0);
}

/* The ranks rccerun's launcher starts (OPENSCC_MPI_WORLD, -nue); the UEs
 * after them are the spare ones of --mpi-spawn-ues.  Unset: every UE. */
static int world_size(const struct hw_job *job) {
  const char *v = getenv("OPENSCC_MPI_WORLD");
  long long n;
  if (!v) return (int)job->hdr->nue;
  if (chip_text_parse_int(v, 1, job->hdr->nue, &n))
    fail("OPENSCC_MPI_WORLD must be a number of ranks from 1 to %u, got '%s'", job->hdr->nue, v);
  return (int)n;
}

/* A rank of the world is the UE of its number.  A second wrapper of the
 * same rank (a launcher starting a rank twice) finds its record taken. */
static struct launch_ue_shared *claim_world_ue(const struct hw_job *job, int world, int rank) {
  if (rank >= world)
    fail("rank %d does not exist in this job of %d UEs (rccerun -nue %d): the MPI launcher started more ranks", rank,
         world, world);
  struct launch_ue_shared *rec = try_claim(job, rank);
  if (!rec) fail("rank %d started twice", rank);
  return rec;
}

/* A rank of a spawned group (its rank counts in its own MPI_COMM_WORLD)
 * takes the first spare UE nobody has claimed, and keeps it for the rest of
 * the job: a UE never hosts two processes, so an address of the provider
 * (fi_openscc://JOB:UE:EP) never names another process than the one that
 * published it. */
static struct launch_ue_shared *claim_spare_ue(const struct hw_job *job, int world, int rank, int *ue) {
  int nue = (int)job->hdr->nue;
  for (int u = world; u < nue; u++) {
    struct launch_ue_shared *rec = try_claim(job, u);
    if (!rec) continue;
    rec->spawned_rank = rank;
    __atomic_store_n(&rec->spawned, 1, __ATOMIC_RELEASE);
    *ue = u;
    return rec;
  }
  fprintf(stderr,
          "openscc-rank: spawned rank %d finds no free UE: the job's %d spare UEs (rccerun --mpi-spawn-ues %d) "
          "are taken\n",
          rank, nue - world, nue - world);
  /* Killed, not an exit status: MPICH's hydra waits on for a spawned process
   * that exits non-zero before MPI_Init (its group then waits in MPI_Init
   * for it), but ends the job when one is killed. */
  kill(getpid(), SIGKILL);
  exit(SETUP_FAILED);
}

/* Across hosts (rccerun --hosts, launch/mpi_hosts.c): the replica of the
 * host that runs `rank`, among the agents' descriptors in OPENSCC_SHM_PATHS
 * (/proc/PID/fd/FD, one per host; another host's may not exist here, or be
 * reachable when the "hosts" share a machine: the replica says its host). */
static int attach_host_replica(struct hw_job *job, const char *paths, int rank) {
  char list[4096], err[512] = "no replica listed";
  snprintf(list, sizeof list, "%s", paths);
  char *save = NULL;
  for (char *path = strtok_r(list, ":", &save); path; path = strtok_r(NULL, ":", &save)) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      snprintf(err, sizeof err, "cannot open %s: %s", path, strerror(errno));
      continue;
    }
    if (hw_job_attach(fd, job, err, sizeof err) == 0) {
      if (rank < (int)job->hdr->nue && hw_host_of_ue(job, rank) == job->hdr->set.host) return fd;
      snprintf(err, sizeof err, "%s is host %d's replica", path, job->hdr->set.host);
      hw_job_detach(job);
    }
    close(fd);
  }
  fail("rank %d finds its host's replica of the job in none of %s (last: %s)", rank, paths, err);
}

/* The job segment named by rccerun, checked like a UE's (layout hash). */
static int attach(struct hw_job *job, int rank) {
  const char *paths = getenv("OPENSCC_SHM_PATHS");
  if (paths && *paths) return attach_host_replica(job, paths, rank);
  const char *name = getenv("OPENSCC_SHM_NAME");
  if (!name || !*name) fail("OPENSCC_SHM_NAME is not set: openscc-rank runs under rccerun --mpi");
  int fd = shm_open(name, O_RDWR, 0); /* close-on-exec: the program gets it only explicitly */
  if (fd < 0) fail("cannot open the job segment %s: %s", name, strerror(errno));
  char err[512];
  if (hw_job_attach(fd, job, err, sizeof err) != 0) fail("%s", err);
  return fd;
}

static void set_number(const char *name, long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", v);
  setenv(name, buf, 1);
}

/* The child: dies with the wrapper (as a UE with rccerun), maps the segment
 * from the inherited fd like a UE of an RCCE job, runs the program. */
static void __attribute__((noreturn))
run_program(const struct hw_job *job, int fd, int ue, pid_t wrapper, char **argv, const sigset_t *orig) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != wrapper) _exit(SETUP_FAILED); /* the wrapper is already gone */
  for (int i = 0; i < NFORWARDED; i++) signal(forwarded_signals[i], SIG_DFL);
  sigprocmask(SIG_SETMASK, orig, NULL);
  fcntl(fd, F_SETFD, 0);
  set_number("OPENSCC_SHM_FD", fd);
  set_number("OPENSCC_UE", ue);
  set_number("OPENSCC_CORE", hw_ue(job, ue)->core);
  set_number("OPENSCC_NUE", (long)job->hdr->nue);
  /* rccerun --model: the provider preloaded into the program only (docs/mpi.md
   * "Model mode"), not into this wrapper, whose AddressSanitizer build refuses it. */
  const char *preload = getenv("OPENSCC_RANK_PRELOAD");
  if (preload && *preload) setenv("LD_PRELOAD", preload, 1);
  unsetenv("OPENSCC_RANK_PRELOAD");
  if (job->hdr->set.model) launch_fixed_addresses();
  execvp(argv[0], argv);
  fprintf(stderr, "openscc-rank: rank %d: cannot execute %s: %s\n", ue, argv[0], strerror(errno));
  _exit(SETUP_FAILED);
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int wait_program(pid_t pid) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) fail("waitpid: %s", strerror(errno));
  return st;
}

int main(int argc, char **argv) {
  pid_t launcher = getppid();
  /* A wrapper whose launcher died (rccerun stopped the job) dies too. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) return SETUP_FAILED;
  if (argc < 2) fail("usage: openscc-rank PROGRAM [ARGS...] (started by rccerun --mpi's MPI launcher)");
  int rank = rank_from_environment();
  struct hw_job job;
  int fd = attach(&job, rank), world = world_size(&job), ue = rank;
  struct launch_ue_shared *rec =
      spawned_process() ? claim_spare_ue(&job, world, rank, &ue) : claim_world_ue(&job, world, rank);
  sigset_t orig;
  install_forwarding(&orig);
  pid_t wrapper = getpid(), pid = fork();
  if (pid < 0) fail("rank %d: cannot fork: %s", rank, strerror(errno));
  if (pid == 0) run_program(&job, fd, ue, wrapper, &argv[1], &orig);
  close(fd);
  __atomic_store_n(&rec->program_pid, (int32_t)pid, __ATOMIC_RELEASE);
  program = pid;
  sigprocmask(SIG_SETMASK, &orig, NULL); /* signals that came meanwhile go to the program now */
  int st = wait_program(pid);
  rec->status = st;
  rec->exit_ns = monotonic_ns();
  __atomic_store_n(&rec->exited, 1, __ATOMIC_RELEASE); /* rccerun reads status once it sees this */
  hw_job_detach(&job);
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

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

/* Claim the rank's record: a second wrapper of the same rank (a launcher
 * starting a rank twice) would overwrite the first one's pids and status. */
static struct launch_ue_shared *claim_record(const struct hw_job *job, int rank) {
  struct launch_ue_shared *rec = launch_ue_shared_of(job, rank);
  int32_t expected = 0;
  if (!__atomic_compare_exchange_n(&rec->wrapper_pid, &expected, (int32_t)getpid(), 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    fail("rank %d started twice", rank);
  return rec;
}

/* The job segment named by rccerun, checked like a UE's (layout hash). */
static int attach(struct hw_job *job) {
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
  int fd = attach(&job);
  if (rank >= (int)job.hdr->nue)
    fail("rank %d does not exist in this job of %u UEs (rccerun -nue %u): the MPI launcher started more ranks", rank,
         job.hdr->nue, job.hdr->nue);
  struct launch_ue_shared *rec = claim_record(&job, rank);
  sigset_t orig;
  install_forwarding(&orig);
  pid_t wrapper = getpid(), pid = fork();
  if (pid < 0) fail("rank %d: cannot fork: %s", rank, strerror(errno));
  if (pid == 0) run_program(&job, fd, rank, wrapper, &argv[1], &orig);
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

/*
 * Job lifecycle.  The UEs form one process group apart from rccerun, so a
 * terminal's Ctrl-C reaches rccerun alone, which then stops the group.  Each
 * UE dies with rccerun (PR_SET_PDEATHSIG), so even kill -9 of the launcher
 * leaves no UE behind; its segment is then removed by the next rccerun.
 *
 * MPI jobs (rccerun --mpi, docs/rccerun.md "MPI jobs"): rccerun's one child is
 * the MPI library's launcher, in a process group of its own; the ranks are
 * its descendants, each an openscc-rank wrapper recording its program's exit
 * in launch.ue (launch_shared.h).  rccerun is a child subreaper, so whatever
 * the launcher leaves behind (daemons, orphaned ranks) stays its descendant,
 * is stopped with the job and keeps the single-copy ptrace rule's ancestry
 * (hw_allow_peer_copies, src/hw/peer_copy.h).  The checks are those of RCCE jobs,
 * on the recorded exits.
 */
#define _GNU_SOURCE
#include "supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../copy/copy_shared.h"
#include "../hw/hosts.h"
#include "../hw/wait.h"
#include "fixed_addresses.h"
#include "job_dir.h"
#include "launch_shared.h"
#include "mpi_launch.h"
#include "own_dir.h"
#include "python_env.h"
#include "report.h"

#define TICK_MS 50
#define DEADLOCK_SAMPLES 4 /* consecutive ticks with every live UE asleep */
/* MPI jobs: the MPI library also waits for its launcher's out-of-band
 * exchanges (a PMI fence in MPI_Init and MPI_Finalize) while its progress
 * engine sleeps in the provider; on a loaded host such a fence may take
 * longer than DEADLOCK_SAMPLES ticks, so a deadlock must last 2 s. */
#define MPI_DEADLOCK_SAMPLES 40
/* Several hosts: ticks with every host's UEs stuck (or ended) before a
 * deadlock is declared; the hosts' states travel between agents. */
#define HOSTS_DEADLOCK_SAMPLES 40
#define GRACE_MS 1000 /* after a UE failed: time the others get to exit on their own */
/* Across hosts, MPI: how long an agent waits for another host's verdict when
 * its MPI launcher failed or stopped its ranks (that host's agent reports
 * after its own grace, GRACE_MS, and stopping its UEs). */
#define REMOTE_VERDICT_MS (2 * GRACE_MS + 1000)
#define LAUNCHER_TERM_MS 1500 /* MPI jobs: time the launcher gets to stop its ranks after SIGTERM */
#define STOP_MS 5000          /* time to kill every descendant before naming the survivors */
#define GRACE_TICK_MS 10

struct job_run {
  const struct launch_options *o;
  struct hw_job job;
  pid_t pids[HW_MAX_UES];
  struct ue_exit ex[HW_MAX_UES];
  uint64_t last_sleeps[HW_MAX_UES];
  struct ue_seen seen[HW_MAX_UES]; /* states the deadlock check judged on its last tick */
  int nalive;
  pid_t pgid;
  int asleep_ticks;
  int hosts_stuck_ticks; /* --hosts: ticks with every host's UEs stuck */
  /* MPI jobs: the ranks' exits come from launch.ue, rccerun waits for the launcher. */
  int mpi;
  int launcher_here; /* the MPI launcher runs on this host (across hosts: host 0's agent starts it) */
  const struct mpi_command *cmd;
  pid_t launcher;
  int launcher_exited, launcher_status;
  int copy_cores_stopped; /* rccerun --copy-cores: told to stop (stop_copy_cores) */
};

static const struct launch_host_agent *host_agent; /* rccerun --hosts: this host's agent, else NULL */
void launch_set_host_agent(const struct launch_host_agent *agent) { host_agent = agent; }

/* SIGPIPE as rccerun found it, for the UEs (launch_ignore_sigpipe). */
static struct sigaction inherited_sigpipe;

void launch_ignore_sigpipe(void) {
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &inherited_sigpipe);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* In a child of rccerun (a UE, or an MPI job's launcher): process group pgid
 * (0: its own), death with rccerun, the signal state rccerun found. */
static void child_setup(pid_t pgid, pid_t launcher, const sigset_t *orig) {
  setpgid(0, pgid);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(127); /* launcher already gone */
  sigprocmask(SIG_SETMASK, orig, NULL);
  /* The program gets SIGPIPE as it would without rccerun (normally: a UE
   * writing to a pipe whose reader left dies of it, like any filter). */
  sigaction(SIGPIPE, &inherited_sigpipe, NULL);
  /* UEs run in a background process group: reading a terminal would stop
   * them (SIGTTIN), so they read /dev/null instead; files and pipes stay. */
  if (isatty(STDIN_FILENO)) {
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  }
}

/* A copy core runs openscc-copy-core from rccerun's lib/openscc/. */
static void exec_copy_core(int u) {
  char bin[4096], path[4096 + 64];
  if (launch_own_directory(bin, sizeof bin) == 0) {
    snprintf(path, sizeof path, "%s/../lib/openscc/openscc-copy-core", bin);
    execl(path, "openscc-copy-core", (char *)NULL);
  }
  fprintf(stderr, "rccerun: UE %d (copy core): cannot execute openscc-copy-core beside rccerun: %s\n", u,
          strerror(errno));
  _exit(127);
}

static void child_exec(const struct launch_options *o, struct job_run *r, int u, pid_t launcher, const sigset_t *orig) {
  child_setup(r->pgid, launcher, orig);
  fcntl(r->job.fd, F_SETFD, 0); /* shm_open sets close-on-exec; the UE maps this fd */
  char buf[32];
  snprintf(buf, sizeof buf, "%d", r->job.fd);
  setenv("OPENSCC_SHM_FD", buf, 1);
  snprintf(buf, sizeof buf, "%d", u);
  setenv("OPENSCC_UE", buf, 1);
  snprintf(buf, sizeof buf, "%d", o->job.nue);
  setenv("OPENSCC_NUE", buf, 1);
  snprintf(buf, sizeof buf, "%d", o->job.ue_core[u]);
  setenv("OPENSCC_CORE", buf, 1);
  if (o->job.set.model) launch_fixed_addresses();
  if (u >= HW_PROGRAM_UES(r->job.hdr)) exec_copy_core(u);
  execv(o->app, o->app_argv);
  fprintf(stderr, "rccerun: UE %d: cannot execute %s: %s\n", u, o->app, strerror(errno));
  _exit(127);
}

/* Once the program's UEs have all left, the copy cores stop serving
 * (copy_shared.h): they finish the requests they have, then exit. */
static void stop_copy_cores(struct job_run *r) {
  int program = HW_PROGRAM_UES(r->job.hdr);
  if (r->copy_cores_stopped || program == (int)r->job.hdr->nue) return;
  for (int u = 0; u < program; u++)
    if (!r->ex[u].exited) return;
  r->copy_cores_stopped = 1;
  for (int u = program; u < (int)r->job.hdr->nue; u++) {
    __atomic_store_n(&copy_ue_shared_of(&r->job, u)->stop, 1, __ATOMIC_RELEASE);
    hw_ring(&r->job, u);
  }
}

static int ue_of_pid(const struct job_run *r, pid_t pid) {
  for (int u = 0; u < r->o->job.nue; u++)
    if (r->pids[u] == pid) return u;
  return -1;
}

/* The parent of pid (/proc/PID/stat: the field after the command's closing
 * parenthesis), or -1 when it is gone. */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *end = strrchr(buf, ')');
  char state;
  int ppid;
  return end && sscanf(end + 1, " %c %d", &state, &ppid) == 2 ? ppid : -1;
}

static int descends_from_rccerun(pid_t pid) {
  pid_t self = getpid();
  for (int depth = 0; pid > 1 && depth < 256; depth++)
    if ((pid = parent_of(pid)) == self) return 1;
  return 0;
}

/* act(pid) for every descendant of rccerun; returns how many there were. */
static int each_descendant(void (*act)(pid_t pid)) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid > 1 && descends_from_rccerun(pid)) {
      act(pid);
      found++;
    }
  }
  closedir(d);
  return found;
}

static void kill_process(pid_t pid) { kill(pid, SIGKILL); }

/* A descendant that survived stop_descendants, with its command. */
static void report_survivor(pid_t pid) {
  char path[64], comm[64] = "?";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  if (f && fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
  if (f) fclose(f);
  fprintf(stderr, "rccerun: warning: process %d (%s) survived SIGKILL; left running\n", (int)pid, comm);
}

/* Until no descendant is left: kill them all, reap what comes back to the
 * subreaper.  A killed process's children are reparented to rccerun, so each
 * round finds what the previous one left.  A process that does not die (one
 * stuck in the kernel, uninterruptible) is named after STOP_MS and left: the
 * job's cleanup goes on. */
static void stop_descendants(void) {
  double end = now_s() + STOP_MS / 1000.0;
  for (;;) {
    int found = each_descendant(kill_process);
    while (waitpid(-1, NULL, WNOHANG) > 0) continue;
    if (!found && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
    if (now_s() > end) {
      each_descendant(report_survivor);
      return;
    }
    struct timespec pause = {0, 2000000L};
    nanosleep(&pause, NULL);
  }
}

/* Up to LAUNCHER_TERM_MS for the launcher to end after SIGTERM, reaping it
 * and whatever it leaves to the subreaper meanwhile. */
static void wait_launcher_exit(struct job_run *r) {
  double end = now_s() + LAUNCHER_TERM_MS / 1000.0;
  while (!r->launcher_exited && now_s() < end) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
      if (pid == r->launcher) r->launcher_exited = 1, r->launcher_status = st;
    struct timespec tick = {0, GRACE_TICK_MS * 1000000L};
    nanosleep(&tick, NULL);
  }
}

/* An MPI job: first SIGTERM to the launcher, which then stops its ranks and
 * daemons itself and removes its files (a launcher killed outright leaves
 * Open MPI's session directory, PMIx files, hydra's topology file, MPICH's
 * segments); then SIGKILL to the launcher's process group, every rank's
 * wrapper and program still running (if still rccerun's descendants: pids
 * come from the segment), and whatever else descends from rccerun. */
static void stop_mpi_job(struct job_run *r) {
  if (r->launcher > 0 && !r->launcher_exited) {
    kill(r->launcher, SIGTERM);
    wait_launcher_exit(r);
  }
  if (r->pgid > 0) kill(-r->pgid, SIGKILL);
  for (int u = 0; u < r->o->job.nue; u++) {
    struct launch_ue_shared *rec = launch_ue_shared_of(&r->job, u);
    pid_t pids[2] = {__atomic_load_n(&rec->program_pid, __ATOMIC_ACQUIRE),
                     __atomic_load_n(&rec->wrapper_pid, __ATOMIC_ACQUIRE)};
    /* Across hosts a rank of this host descends from the MPI launcher's
     * daemon here, not from this agent: its record (in this host's replica) names it. */
    for (int i = 0; i < 2 && !__atomic_load_n(&rec->exited, __ATOMIC_ACQUIRE); i++)
      if (pids[i] > 1 && (host_agent || descends_from_rccerun(pids[i]))) kill(pids[i], SIGKILL);
  }
  stop_descendants();
}

static void stop_all(struct job_run *r) {
  if (r->mpi) {
    stop_mpi_job(r);
    return;
  }
  if (r->pgid > 0) kill(-r->pgid, SIGKILL);
  for (int u = 0; u < r->o->job.nue; u++)
    if (r->pids[u] > 0 && !r->ex[u].exited) {
      kill(r->pids[u], SIGKILL);
      waitpid(r->pids[u], &r->ex[u].status, 0);
      r->ex[u].exited = 1;
    }
}

static int ue_state(const struct job_run *r, int u) {
  return __atomic_load_n(&hw_ue(&r->job, u)->state, __ATOMIC_ACQUIRE);
}

/* Another host's verdict on the job if one comes within REMOTE_VERDICT_MS, else 0. */
static int remote_verdict_within_grace(void) {
  double end = now_s() + REMOTE_VERDICT_MS / 1000.0;
  int rc;
  while ((rc = host_agent->verdict()) == 0 && now_s() < end) {
    struct timespec tick = {0, GRACE_TICK_MS * 1000000L};
    nanosleep(&tick, NULL);
  }
  return rc;
}

/* A UE's exit: returns 0 to go on, or an exit code ending the job. */
static int on_exit_of(struct job_run *r, int u) {
  int st = r->ex[u].status;
  char name[64];
  report_ue_name(name, sizeof name, &r->job, u);
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) { /* not a bug of the UE: `rccerun ... | head` */
    fprintf(stderr, "rccerun: %s ended by signal %d (%s): it wrote to a pipe nobody reads any more\n", name, SIGPIPE,
            strsignal(SIGPIPE));
    return RCCERUN_UE_FAILED;
  }
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st), rc;
    /* Across hosts, the MPI launcher stops the other ranks once one failed
     * on another host, whose agent reports that cause. */
    if (r->mpi && host_agent && (sig == SIGTERM || sig == SIGKILL) && (rc = remote_verdict_within_grace()) != 0)
      return rc;
    fprintf(stderr, "rccerun: %s crashed: killed by signal %d (%s)%s\n", name, sig, strsignal(sig),
            WCOREDUMP(st) ? ", core dumped" : "");
    return RCCERUN_UE_FAILED;
  }
  if (WEXITSTATUS(st) != 0) {
    fprintf(stderr, "rccerun: %s exited with status %d\n", name, WEXITSTATUS(st));
    return RCCERUN_UE_FAILED;
  }
  /* No silent fallback: a rank that ran to the end without attaching moved
   * its bytes some other way (or is no MPI/RCCE program at all). */
  if (r->mpi && ue_state(r, u) == HW_UE_NOT_STARTED) {
    fprintf(stderr,
            "rccerun: rank %d never attached to the emulated SCC (the MPI library did not use the openscc provider)\n",
            u);
    return RCCERUN_UE_FAILED;
  }
  return 0;
}

/* Whether UE u sleeps on a futex word that still holds the value it went to
 * sleep on.  A UE whose word has changed has been woken (its wait may be
 * satisfied) even if it has not run yet and still shows HW_UE_BLOCKED; a UE
 * woken for nothing re-publishes a new value before sleeping again
 * (hw/wait.c note_sleep). */
static int seen_asleep_unwoken(const struct job_run *r, const struct ue_seen *seen) {
  if (seen->state != HW_UE_BLOCKED) return 0;
  const volatile uint32_t *word = (const volatile uint32_t *)(r->job.base + seen->wait.futex_off);
  return __atomic_load_n(word, __ATOMIC_ACQUIRE) == seen->wait.futex_val;
}

static int asleep_unwoken(const struct job_run *r, int u) {
  struct ue_seen seen;
  report_see(&r->job, u, &seen);
  return seen_asleep_unwoken(r, &seen);
}

/* A UE asleep waiting for a UE that has exited unfinished will never wake.
 * The peer has been reaped, so every store it made (and every doorbell it
 * rang) is visible: if the sleeper's word is still unchanged, nobody will
 * change it. */
static int check_orphaned_waits(struct job_run *r) {
  for (int u = 0; u < r->o->job.nue; u++) {
    if (r->ex[u].exited || !asleep_unwoken(r, u)) continue;
    int p = hw_ue(&r->job, u)->wait.peer;
    if (p < 0 || !r->ex[p].exited || r->ex[p].remote || ue_state(r, p) == HW_UE_FINALIZED) continue;
    char a[64], b[64];
    report_ue_name(a, sizeof a, &r->job, u);
    report_ue_name(b, sizeof b, &r->job, p);
    fprintf(stderr, "rccerun: %s exited early (without %s) while %s waits for it\n", b, report_finalize_call(&r->job),
            a);
    report_all(stderr, &r->job, r->ex, NULL, "state of every UE:");
    return RCCERUN_UE_FAILED;
  }
  return 0;
}

/* Deadlock: every live UE asleep in the runtime on a futex whose value says
 * it must keep sleeping, unchanged over several ticks. */
static int check_deadlock(struct job_run *r) {
  int all_asleep = r->nalive > 0;
  for (int u = 0; u < r->o->job.nue && all_asleep; u++) {
    report_see(&r->job, u, &r->seen[u]);
    if (r->ex[u].exited) continue;
    uint64_t sleeps = hw_ue(&r->job, u)->sleeps;
    if (!seen_asleep_unwoken(r, &r->seen[u]) || sleeps != r->last_sleeps[u]) all_asleep = 0;
    r->last_sleeps[u] = sleeps;
  }
  r->asleep_ticks = all_asleep ? r->asleep_ticks + 1 : 0;
  if (host_agent) { /* this agent sees its own UEs; the agents tell each other theirs (host_link.c) */
    int here = r->asleep_ticks >= DEADLOCK_SAMPLES;
    r->hosts_stuck_ticks = host_agent->stuck(here) ? r->hosts_stuck_ticks + 1 : 0;
    if (r->hosts_stuck_ticks < HOSTS_DEADLOCK_SAMPLES) return 0;
    char head[128];
    snprintf(head, sizeof head,
             "deadlock: every running UE on every host is blocked in the runtime and none can proceed (host %d:)",
             r->job.hdr->set.host);
    report_all(stderr, &r->job, r->ex, r->seen, head);
    return RCCERUN_DEADLOCK;
  }
  if (r->asleep_ticks < (r->mpi ? MPI_DEADLOCK_SAMPLES : DEADLOCK_SAMPLES)) return 0;
  report_all(stderr, &r->job, r->ex, r->seen,
             "deadlock: every running UE is blocked in the runtime and none can proceed");
  return RCCERUN_DEADLOCK;
}

/* Whether UE u runs on another host (rccerun --hosts), whose agent
 * supervises it; if so it counts as exited here. */
static int runs_elsewhere(struct job_run *r, int u) {
  if (hw_host_of_core(&r->job, r->o->job.ue_core[u]) == r->job.hdr->set.host) return 0;
  r->ex[u].remote = r->ex[u].exited = 1;
  return 1;
}

static int spawn(struct job_run *r, const sigset_t *orig) {
  pid_t launcher = getpid();
  for (int u = 0; u < r->o->job.nue; u++) {
    if (runs_elsewhere(r, u)) continue;
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "rccerun: cannot start UE %d: %s\n", u, strerror(errno));
      return RCCERUN_SETUP;
    }
    if (pid == 0) child_exec(r->o, r, u, launcher, orig);
    if (!r->pgid) r->pgid = pid;
    setpgid(pid, r->pgid); /* also from the parent: no race with the first signal */
    r->pids[u] = pid;
    r->nalive++;
  }
  return 0;
}

/* An MPI job's launcher: rccerun's one child, in a process group of its own
 * (so a terminal's Ctrl-C reaches rccerun alone); it runs the ranks. */
static int spawn_launcher(struct job_run *r, const sigset_t *orig) {
  r->nalive = 0; /* ranks of this host without a recorded exit */
  for (int u = 0; u < r->o->mpi_world; u++) r->nalive += !runs_elsewhere(r, u);
  /* The spare UEs of --mpi-spawn-ues count once a spawned rank claims one. */
  for (int u = r->o->mpi_world; u < r->o->job.nue; u++) r->ex[u].spare = r->ex[u].exited = 1;
  if (!r->launcher_here) return 0; /* across hosts: host 0's launcher starts this host's ranks too */
  pid_t self = getpid(), pid = fork();
  if (pid < 0) {
    fprintf(stderr, "rccerun: cannot start %s: %s\n", r->cmd->name, strerror(errno));
    return RCCERUN_SETUP;
  }
  if (pid == 0) {
    child_setup(0, self, orig);
    mpi_command_exec(r->cmd, r->job.name, r->o->job.nue);
  }
  setpgid(pid, pid); /* also from the parent: no race with the first signal */
  r->pgid = r->launcher = pid;
  return 0;
}

/* Spare UEs that a spawned rank's wrapper has claimed since the last call
 * (rank/openscc_rank.c) join the job's live UEs: supervised from now on as
 * the world's ranks are. */
static void adopt_spawned_ranks(struct job_run *r) {
  for (int u = r->o->mpi_world; u < r->o->job.nue; u++)
    if (r->ex[u].spare && __atomic_load_n(&launch_ue_shared_of(&r->job, u)->wrapper_pid, __ATOMIC_ACQUIRE)) {
      r->ex[u].spare = r->ex[u].exited = 0;
      r->nalive++;
    }
}

/* Intel's own examples often return without RCCE_finalize: harmless when
 * nobody waits, so one warning line names them (at most 8, then a count). */
static void warn_unfinalized(struct job_run *r) {
  char list[600] = "";
  int n = 0;
  size_t len = 0;
  for (int u = 0; u < r->o->job.nue; u++) {
    int state = ue_state(r, u);
    if (state != HW_UE_RUNNING && state != HW_UE_BLOCKED) continue;
    if (n++ < 8) {
      char name[64];
      report_ue_name(name, sizeof name, &r->job, u);
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", n > 1 ? ", " : "", name);
    }
  }
  const char *fin = report_finalize_call(&r->job);
  if (n == 1) fprintf(stderr, "rccerun: warning: %s exited without calling %s\n", list, fin);
  else if (n > 8)
    fprintf(stderr, "rccerun: warning: %d UEs exited without calling %s: %s and %d more\n", n, fin, list, n - 8);
  else if (n > 1) fprintf(stderr, "rccerun: warning: %d UEs exited without calling %s: %s\n", n, fin, list);
}

static int is_interrupt(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT; }

/* An MPI job's ranks whose exits openscc-rank has recorded since the last
 * call, taken in the order they happened (the first failure is the cause,
 * not the ranks the MPI launcher stopped after it); judged as reap_exited. */
static int collect_rank_exits(struct job_run *r, int judge) {
  int rc = 0;
  adopt_spawned_ranks(r);
  for (;;) {
    int first = -1;
    uint64_t first_ns = 0;
    for (int u = 0; u < r->o->job.nue; u++) {
      const struct launch_ue_shared *rec = launch_ue_shared_of(&r->job, u);
      if (r->ex[u].exited || !__atomic_load_n(&rec->exited, __ATOMIC_ACQUIRE)) continue;
      if (first < 0 || rec->exit_ns < first_ns) first = u, first_ns = rec->exit_ns;
    }
    if (first < 0) return rc;
    r->ex[first].exited = 1;
    r->ex[first].status = launch_ue_shared_of(&r->job, first)->status;
    r->nalive--;
    if (judge && !rc) rc = on_exit_of(r, first);
  }
}

/* Reaps every UE that has exited.  With `judge`, the first failure among
 * them is reported and its exit code returned; otherwise they are only
 * recorded (the job is already ending).  In an MPI job rccerun reaps its
 * launcher and what the subreaper inherits; the ranks' exits are recorded. */
static int reap_exited(struct job_run *r, int judge) {
  pid_t pid;
  int st, rc = 0;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
    if (r->mpi && pid == r->launcher) r->launcher_exited = 1, r->launcher_status = st;
    int u = r->mpi ? -1 : ue_of_pid(r, pid);
    if (u < 0) continue;
    r->ex[u].exited = 1;
    r->ex[u].status = st;
    r->nalive--;
    if (judge && !rc) rc = on_exit_of(r, u);
  }
  return r->mpi ? collect_rank_exits(r, judge) : rc;
}

/* Whether the job goes on: a UE is alive, or an MPI job's launcher runs. */
static int job_running(const struct job_run *r) { return r->launcher_here ? !r->launcher_exited : r->nalive > 0; }

/* An MPI job's launcher ended with no rank failure recorded: the job is done
 * if it succeeded and every rank's exit was recorded. */
static int on_launcher_exit(struct job_run *r) {
  int st = r->launcher_status, rc;
  /* Across hosts the launcher ends when a rank of another host failed, which
   * that host's agent reports: its verdict, without a second message. */
  if (host_agent && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) && (rc = remote_verdict_within_grace()) != 0) return rc;
  if (WIFSIGNALED(st)) {
    fprintf(stderr, "rccerun: %s was killed by signal %d (%s)\n", r->cmd->name, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return RCCERUN_UE_FAILED;
  }
  if (WEXITSTATUS(st) != 0) {
    fprintf(stderr, "rccerun: %s exited with status %d\n", r->cmd->name, WEXITSTATUS(st));
    return RCCERUN_UE_FAILED;
  }
  for (int u = 0; u < r->o->mpi_world; u++)
    if (!r->ex[u].exited) {
      fprintf(stderr, "rccerun: %s exited, but rank %d never ran under openscc-rank\n", r->cmd->name, u);
      return RCCERUN_UE_FAILED;
    }
  return 0;
}

/* Whether no live UE can end on its own: each sleeps in the runtime on an
 * unchanged word (and only live UEs could change it). */
static int every_live_ue_stuck(const struct job_run *r) {
  for (int u = 0; u < r->o->job.nue; u++)
    if (!r->ex[u].exited && !asleep_unwoken(r, u)) return 0;
  return 1;
}

/* Whether the grace after a failure can end: an MPI job's launcher relays
 * the ranks' output and stops them itself once one failed, so its job waits
 * for the launcher (the other ranks asleep in MPI say nothing about that);
 * an RCCE job's ends once every live UE is stuck in the runtime. */
static int grace_over(const struct job_run *r) {
  if (r->launcher_here) return !job_running(r);
  return r->nalive == 0 || every_live_ue_stuck(r);
}

/* After a UE failed, the others may be on their way out themselves: Intel's
 * examples print a usage line on UE 0 and return 1 on every UE.  Killing
 * them at once would lose that output (stdio flushes at exit), so they get up
 * to GRACE_MS to exit on their own (docs/rccerun.md, "Supervision").  The
 * grace ends early once grace_over, or on an interrupt.  UEs that exit
 * meanwhile are recorded, not reported again. */
static void let_exiting_ues_finish(struct job_run *r, const sigset_t *watched) {
  double end = now_s() + GRACE_MS / 1000.0;
  while (!grace_over(r) && now_s() < end) {
    struct timespec tick = {0, GRACE_TICK_MS * 1000000L};
    siginfo_t si;
    if (is_interrupt(sigtimedwait(watched, &si, &tick))) return;
    reap_exited(r, 0);
  }
}

static int supervise(struct job_run *r, const sigset_t *watched) {
  double deadline = r->o->timeout_s > 0 ? now_s() + r->o->timeout_s : 0;
  while (job_running(r)) {
    struct timespec tick = {0, TICK_MS * 1000000L};
    siginfo_t si;
    int sig = sigtimedwait(watched, &si, &tick);
    if (is_interrupt(sig)) {
      if (host_agent) /* mpirun stops the agents when one of them failed or was lost */
        fprintf(stderr, "rccerun: host %d: stopped by %s from mpirun; stopping this host's %d UE(s)\n",
                r->job.hdr->set.host, strsignal(sig), r->nalive);
      else fprintf(stderr, "rccerun: interrupted by %s; stopping %d UE(s)\n", strsignal(sig), r->nalive);
      return RCCERUN_SIGNALLED + sig;
    }
    int rc = reap_exited(r, 1);
    if (!rc && r->nalive > 0) rc = check_orphaned_waits(r);
    if (rc) {
      let_exiting_ues_finish(r, watched);
      return rc;
    }
    if (!job_running(r)) break;
    stop_copy_cores(r);
    if (sig < 0 && (rc = check_deadlock(r)) != 0) return rc;
    if (host_agent && (rc = host_agent->verdict()) != 0) {
      fprintf(stderr, "rccerun: host %d: another host ended the job; stopping this host's %d UE(s)\n",
              r->job.hdr->set.host, r->nalive);
      return rc;
    }
    if (deadline && now_s() > deadline) {
      char head[96];
      snprintf(head, sizeof head, "timeout: the job ran longer than %g s", r->o->timeout_s);
      report_all(stderr, &r->job, r->ex, NULL, head);
      return RCCERUN_TIMEOUT;
    }
  }
  int rc = r->launcher_here ? on_launcher_exit(r) : 0;
  if (!rc) warn_unfinalized(r);
  return rc;
}

/* CPUs this process (and so every UE) may run on: affinity, not all online CPUs. */
int launch_run(const struct launch_options *o) {
  static struct job_run r;
  static struct mpi_command cmd;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.mpi = o->mpi != LAUNCH_MPI_NONE;
  r.launcher_here = r.mpi && o->job.set.host == 0;
  if (r.mpi && mpi_command_build(o, &cmd) != 0) return RCCERUN_SETUP; /* before anything starts */
  r.cmd = &cmd;
  launch_python_env();
  mpi_remove_stale_tmpdirs();
  int cleaned = hw_clean_stale_segments();
  if (cleaned) fprintf(stderr, "rccerun: removed %d stale segment(s) left by killed jobs\n", cleaned);
  struct hw_job_params p = o->job;
  p.set.oversubscribed = p.nue > hw_usable_cpus();
  /* Waiting policy (hw/wait.h), tuned with make bench on a 2-CPU host: spin
   * when every UE has a CPU; otherwise poll a little, yield a few times, sleep.
   * Across hosts a UE waits for its host's agent, which needs the CPU it
   * would spin on (8-byte cross-host ping-pong: 19 us instead of 140 us,
   * docs/cluster.md "Speed"). */
  int sleepy = p.set.oversubscribed || p.set.hosts > 1;
  p.set.spin_limit = sleepy ? 4 : 100000;
  p.set.yield_limit = sleepy ? 4 : 0;
  if (o->wait_spin >= 0) p.set.spin_limit = (int)o->wait_spin;
  if (o->wait_yield >= 0) p.set.yield_limit = (int)o->wait_yield;
  p.set.wait_adaptive = o->wait_spin < 0 && o->wait_yield < 0; /* an explicit policy stays fixed (hw/wait.c) */
  p.set.asym_fence = !p.set.oversubscribed && hw_asym_fence_available() && o->asym_fence;
  char err[256];
  if (hw_job_create(&p, &r.job, err, sizeof err) != 0) {
    fprintf(stderr, "rccerun: %s\n", err);
    mpi_command_free(&cmd);
    return RCCERUN_SETUP;
  }
  sigset_t watched, orig;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGINT);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigaddset(&watched, SIGQUIT);
  sigprocmask(SIG_BLOCK, &watched, &orig);
  double started = now_s();
  /* The MPI launcher's orphans come back to rccerun (see the top). */
  if (r.mpi) prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  if (host_agent) { /* the UEs map the inherited fd: no name is needed, and none is left by a killed agent */
    hw_job_unlink(&r.job);
    host_agent->started(&r.job);
  }
  int rc = r.mpi ? spawn_launcher(&r, &orig) : spawn(&r, &orig);
  if (!rc) rc = supervise(&r, &watched);
  stop_all(&r);
  if (host_agent) rc = host_agent->finish(rc);
  if (rc == RCCERUN_OK && job_dir_wanted(o) && (!host_agent || host_agent->gather(&r.job)) &&
      job_dir_write(o, &r.job, now_s() - started) != 0)
    rc = RCCERUN_SETUP;
  hw_job_unlink(&r.job);
  hw_job_detach(&r.job);
  close(r.job.fd);
  sigprocmask(SIG_SETMASK, &orig, NULL);
  if (r.mpi) {
    prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
    mpi_command_free(&cmd);
  }
  return rc;
}

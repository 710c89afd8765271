/* Spin-then-futex waiting; see wait.h for the doorbell protocol. */
#define _GNU_SOURCE
#include "wait.h"

#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Shared futex: the word is in a MAP_SHARED segment used by several
 * processes.  timeout NULL: until woken. */
static void futex_wait_until(volatile uint32_t *addr, uint32_t val, const struct timespec *timeout) {
  syscall(SYS_futex, addr, FUTEX_WAIT, val, timeout, NULL, 0);
}

static void futex_wait(volatile uint32_t *addr, uint32_t val) { futex_wait_until(addr, val, NULL); }

static void futex_wake(volatile uint32_t *addr, int n) { syscall(SYS_futex, addr, FUTEX_WAKE, n, NULL, NULL, 0); }

int hw_asym_fence_available(void) {
  long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  return q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) && (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
}

int hw_asym_fence_register(void) {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}

/* The sleeper's half of the Dekker pair (see wait.h). */
static void sleeper_fence(const struct hw_job *j) {
  if (j->hdr->set.asym_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
  else __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

const struct hw_vt_hooks *hw_vt_hooks;

/* Whether cond holds; in model mode a UE that is to wait is first announced
 * blocked (wait.h), unless it waits for another UE's virtual time. */
static int cond_or_blocked(hw_cond_fn cond, void *arg, const struct hw_wait_desc *why) {
  if (!hw_vt_hooks || (why && why->kind == HW_WAIT_VTIME)) return cond(arg);
  return hw_vt_hooks->block_unless(cond, arg);
}

/* Bookkeeping of one wait, for the launcher's reports and deadlock check. */
struct sleep_record {
  int slept;
  int32_t state_before;
};

/* Publish what this UE sleeps on before every futex_wait: the deadlock check
 * compares the futex word with futex_val, and a UE woken by an unrelated
 * flag write sleeps again on a new value.  new_sleep: count it in `sleeps`
 * (0 when it continues a bounded sleep that timed out unwoken). */
static void note_sleep(struct hw_job *j, struct hw_ue *u, const struct hw_wait_desc *why, volatile uint32_t *word,
                       uint32_t val, int new_sleep, struct sleep_record *rec) {
  if (!rec->slept) {
    rec->slept = 1;
    rec->state_before = __atomic_load_n(&u->state, __ATOMIC_RELAXED);
    u->wait = *why;
  }
  u->wait.futex_off = (uint64_t)((unsigned char *)word - j->base);
  u->wait.futex_val = val;
  if (new_sleep) u->sleeps++;
  __atomic_store_n(&u->state, HW_UE_BLOCKED, __ATOMIC_RELEASE);
}

static void note_wake(struct hw_ue *u, const struct sleep_record *rec) {
  if (rec->slept) __atomic_store_n(&u->state, rec->state_before, __ATOMIC_RELEASE);
}

/* --- adaptive budgets ------------------------------------------------------
 * Spinning pays while the UE waited for runs on another CPU.  When other
 * processes share the CPUs, a long spin burns the time slice that its peer
 * (or the process keeping its peer off a CPU) needs and is preempted at its
 * end, while a UE that sleeps at once may be woken only after another
 * process's slice; both make waits collapse to time slices.  A medium spin
 * (LOADED_SPIN polls, about 50 us: most answers of a running peer arrive
 * within it), a few yields, then sleep, is the best of the fixed policies on
 * a loaded host (make bench, load group).  So a UE of an adaptive job (no
 * OPENSCC_SPIN/OPENSCC_YIELD) watches its involuntary context switches
 * (getrusage(RUSAGE_THREAD).ru_nivcsw) every CHECK_EVERY polls of a spin:
 *  - never preempted, it keeps the job's full budget (hw_header.spin_limit):
 *    the idle-host fast path is unchanged;
 *  - preempted, it is loaded and takes the medium budget until LOADED_HOLD_NS
 *    pass without a preemption (checked at most every RECHECK_NS) while the
 *    host is not heavily loaded;
 *  - loaded while more than twice as many tasks as CPUs are runnable (the
 *    run queue in /proc/loadavg, read at most every RECHECK_NS), even a
 *    medium spin mostly waits for a peer that is off its CPU: it takes the
 *    short budget of an oversubscribed job (HEAVY_SPIN polls, LOADED_YIELD
 *    yields, sleep), which was the best fixed policy there.
 * Each UE is one process, so this state is per UE. */
enum { LOADED_SPIN = 2048, HEAVY_SPIN = 4, LOADED_YIELD = 4, CHECK_EVERY = 1024 };
#define LOADED_HOLD_NS 1000000000ull
#define RECHECK_NS 10000000ull

struct budget {
  int spin, yield;
};

static struct {
  int started, loaded, heavy;
  int cpus;              /* this UE may run on */
  long nivcsw;           /* involuntary switches counted when last checked */
  uint64_t checked_ns;   /* when they were last checked */
  uint64_t preempted_ns; /* when a preemption was last seen */
} policy;

static long involuntary_switches(void) {
  struct rusage r;
  return getrusage(RUSAGE_THREAD, &r) == 0 ? r.ru_nivcsw : 0;
}

/* Runnable tasks on the host (/proc/loadavg: "0.5 0.4 0.3 RUNNING/TOTAL ..."), or 0. */
static int runnable_tasks(void) {
  char buf[128];
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  int running = 0;
  if (n > 0) {
    buf[n] = 0;
    if (sscanf(buf, "%*s %*s %*s %d/", &running) != 1) running = 0;
  }
  return running;
}

int hw_usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int heavily_loaded(void) { return runnable_tasks() > 2 * policy.cpus; }

/* Whether the UE was preempted since the last check (and note when). */
static int preempted_since_check(uint64_t now) {
  long n = involuntary_switches();
  policy.checked_ns = now;
  if (n == policy.nivcsw) return 0;
  policy.nivcsw = n;
  policy.preempted_ns = now;
  return 1;
}

/* now: the caller's reading of the monotonic clock, or 0 (read it here when needed). */
static struct budget budget_of(const struct hw_job *j, uint64_t now) {
  struct budget full = {j->hdr->set.spin_limit, j->hdr->set.yield_limit};
  if (!j->hdr->set.wait_adaptive) return full;
  if (!policy.started) { /* preemptions before the first wait do not count */
    policy.started = 1;
    policy.cpus = hw_usable_cpus();
    policy.nivcsw = involuntary_switches();
  }
  if (!policy.loaded) return full;
  if (!now) now = hw_trace_monotonic_ns();
  if (now - policy.checked_ns >= RECHECK_NS) {
    preempted_since_check(now);
    policy.heavy = heavily_loaded();
  }
  if (now - policy.preempted_ns > LOADED_HOLD_NS && !policy.heavy) {
    policy.loaded = 0;
    return full;
  }
  int spin = policy.heavy ? HEAVY_SPIN : LOADED_SPIN;
  return (struct budget){full.spin < spin ? full.spin : spin, full.yield > LOADED_YIELD ? full.yield : LOADED_YIELD};
}

/* Called every CHECK_EVERY polls of a spin; 1 when an unloaded UE was
 * preempted since the last check: it is loaded now, and the spin should
 * take the loaded budget. */
static int preempted_while_spinning(const struct hw_job *j) {
  if (!j->hdr->set.wait_adaptive) return 0;
  if (policy.loaded || !preempted_since_check(hw_trace_monotonic_ns())) return 0; /* loaded: budget_of rechecks */
  policy.loaded = 1;
  policy.heavy = heavily_loaded();
  return 1;
}

static int check_due(int polls) { return (polls & (CHECK_EVERY - 1)) == CHECK_EVERY - 1; }

/* The cheap phase of every wait: poll, then, when UEs outnumber host CPUs
 * (or the host is loaded), yield a few times (the UE we wait for needs this
 * CPU; this avoids paying for a sleep and a wake-up).  Returns 1 as soon as
 * cond holds. */
static int poll_briefly(const struct hw_job *j, hw_cond_fn cond, void *arg) {
  struct budget b = budget_of(j, 0);
  for (int i = 0; i < b.spin; i++) {
    if (cond(arg)) return 1;
    if (check_due(i) && preempted_while_spinning(j)) {
      b = budget_of(j, 0);
      if (i >= b.spin) break;
    }
    hw_cpu_relax();
  }
  for (int k = 0; k < b.yield; k++) {
    if (cond(arg)) return 1;
    sched_yield();
  }
  return 0;
}

void hw_wait_cond(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why) {
  if (cond_or_blocked(cond, arg, why) || poll_briefly(j, cond, arg)) return;
  struct hw_ue *u = hw_ue(j, me);
  volatile uint32_t *seq = (volatile uint32_t *)&u->doorbell_seq;
  struct sleep_record rec = {0, 0};
  for (;;) {
    uint32_t s = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
    __atomic_store_n(&u->sleeping, 1, __ATOMIC_RELAXED);
    sleeper_fence(j);
    if (cond_or_blocked(cond, arg, why)) break; /* announced again: a wake that was not this one lowered it */
    note_sleep(j, u, why, seq, s, 1, &rec);
    futex_wait(seq, s);
    if (cond(arg)) break;
  }
  __atomic_store_n(&u->sleeping, 0, __ATOMIC_RELAXED);
  note_wake(u, &rec);
}

struct bits_arg {
  volatile uint32_t *word;
  uint32_t mask, want;
};

static int bits_match(void *p) {
  struct bits_arg *a = p;
  return (__atomic_load_n(a->word, __ATOMIC_ACQUIRE) & a->mask) == a->want;
}

void hw_wait_bits(struct hw_job *j, int me, volatile uint32_t *word, uint32_t mask, uint32_t want,
                  const struct hw_wait_desc *why) {
  struct bits_arg a = {word, mask, want};
  hw_wait_cond(j, me, bits_match, &a, why);
}

static int word_changed(void *p) {
  struct bits_arg *a = p;
  return __atomic_load_n(a->word, __ATOMIC_ACQUIRE) != a->want;
}

/* asleep: NULL, or a count of the UEs that may sleep on word
 * (hw_wake_word_asleep); timeout: NULL, or the longest sleep, after which
 * the wait returns. */
static void wait_change(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, volatile uint32_t *asleep,
                        const struct timespec *timeout, const struct hw_wait_desc *why) {
  struct bits_arg a = {word, ~0u, old};
  if (cond_or_blocked(word_changed, &a, why) || poll_briefly(j, word_changed, &a)) return;
  struct hw_ue *u = hw_ue(j, me);
  struct sleep_record rec = {0, 0};
  while (!word_changed(&a)) {
    note_sleep(j, u, why, word, old, 1, &rec);
    /* Dekker with the waker: count in (a locked add: a full fence on x86),
     * re-check, sleep, count out.  A count, not a flag: a waker of an
     * earlier generation running late must not erase a later sleeper. */
    if (asleep) {
      __atomic_fetch_add(asleep, 1, __ATOMIC_SEQ_CST);
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    if (!cond_or_blocked(word_changed, &a, why)) futex_wait_until(word, old, timeout);
    if (asleep) __atomic_fetch_sub(asleep, 1, __ATOMIC_SEQ_CST);
    if (timeout) break;
  }
  note_wake(u, &rec);
}

void hw_wait_change(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, const struct hw_wait_desc *why) {
  wait_change(j, me, word, old, NULL, NULL, why);
}

void hw_wait_change_asleep(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, volatile uint32_t *asleep,
                           const struct hw_wait_desc *why) {
  wait_change(j, me, word, old, asleep, NULL, why);
}

void hw_wait_change_for(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, volatile uint32_t *asleep,
                        long ns, const struct hw_wait_desc *why) {
  const struct timespec timeout = {ns / 1000000000L, ns % 1000000000L};
  wait_change(j, me, word, old, asleep, &timeout, why);
}

void hw_wake_word(volatile uint32_t *word) { futex_wake(word, INT_MAX); }

/* The caller has stored the new *word; the fence orders that store before
 * reading the count (the other half of wait_change's Dekker pair): a sleeper
 * counted in later re-checks *word and sees the store.  A sleeper that was
 * woken but has not counted out yet costs one needless wake at most. */
void hw_wake_word_asleep(volatile uint32_t *word, volatile uint32_t *asleep) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(asleep, __ATOMIC_RELAXED)) futex_wake(word, INT_MAX);
}

/* --- polling calls ---------------------------------------------------------
 * A program that polls (iRCCE_*_test, *_push, RCCE_recv_test, RCCE_peek) in a tight
 * loop is one long wait spread over many calls: count the consecutive
 * fruitless polls of this UE and spend them like poll_briefly's budget, then
 * nap on the doorbell.  A nap is bounded (the program may be waiting for
 * something else too) and is not a blocked state: the UE is still running
 * its own loop.  A library that waits for the program (the MPI channel:
 * hw_poll_idle_blocked) naps BLOCKED_NAP_NS, and once one idle stretch --
 * the fruitless polls since the last fruitful one -- has lasted
 * BLOCKED_AFTER_NAPS naps, its naps show the UE blocked (wait.h). */
#define NAP_NS 1000000L
#define BLOCKED_NAP_NS 20000000L
#define BLOCKED_AFTER_NAPS 5
/* A library's progress engine may need many empty polls for work of its own
 * between two messages: Open MPI advances a communicator's context-id
 * agreement (MPI_Comm_split, MPI_Comm_create, MPI_Comm_dup) one step per
 * opal_progress call, each call one fruitless fi_cq_read.  A nap per such
 * poll made ScaLAPACK's xcgsep (a rank alone on a 1x1 process grid making
 * communicators while the others wait) 25 times slower and, seeing every
 * rank idle for 2 s, the launcher reported a deadlock (docs/mpi-channel.md
 * "Waiting").  So an idle stretch of hw_poll_idle_blocked yields, not naps,
 * for as long as one nap would last (LIBRARY_PATIENCE_NS), and for up to
 * LAST_AWAKE_PATIENCE_NS while every other UE of the job is asleep: then
 * nothing but this UE's own work can end its wait (or the job is
 * deadlocked, which the launcher still sees, that much later). */
#define LIBRARY_PATIENCE_NS ((uint64_t)BLOCKED_NAP_NS)
#define LAST_AWAKE_PATIENCE_NS 1000000000ull

/* Per thread: a process whose threads take turns in a library's idle poll
 * (the MPI provider, prov_progress.c) keeps one budget and stretch each. */
static _Thread_local unsigned fruitless_polls;
/* A spin reads the clock (for the gap and the budget) on one poll in
 * CLOCK_EVERY, and pauses only then: a poll call is itself a long spin
 * iteration (the MPI provider's fruitless fi_cq_read scans every EWS), and
 * a clock reading and a pause cost 20 ns each on the reference host, as
 * much as that scan, so every poll paying them delayed the moment a
 * waiting rank sees its message (docs/mpi-channel.md "Waiting").
 * unclocked_polls: the spin's polls left before its next reading. */
#define CLOCK_EVERY 32u
static _Thread_local unsigned unclocked_polls;

/* The idle stretch of hw_poll_idle_blocked: its naps so far, and the
 * doorbell value of the last one when it timed out unwoken (a nap on the
 * same value continues that sleep: the deadlock check sees `sleeps`
 * unchanged while nothing rings and nothing else happens). */
static _Thread_local struct {
  unsigned naps;
  int unwoken;
  uint32_t seq;
  uint64_t program_since; /* when a program's own poll first found nothing in it, or 0 */
  uint64_t library_since; /* when a library's poll first spent its budget in it, or 0 */
} idle_stretch;

/* Something happened: the spin budget starts again, and so does the idle
 * stretch (its next nap is a new sleep, not shown blocked at once). */
void hw_poll_fruitful(void) {
  fruitless_polls = 0; /* unclocked_polls stay: a wait is often only a few polls long (an 8-byte ping-pong's) */
  idle_stretch.naps = 0;
  idle_stretch.unwoken = 0;
  idle_stretch.program_since = 0;
  idle_stretch.library_since = 0;
}

/* A library's nap on doorbell value s: one more of the idle stretch, shown
 * blocked on why from the stretch's BLOCKED_AFTER_NAPS-th nap on, counted
 * in `sleeps` unless it continues a nap that timed out unwoken. */
static void begin_idle_nap(struct hw_job *j, struct hw_ue *u, const struct hw_wait_desc *why, volatile uint32_t *seq,
                           uint32_t s, struct sleep_record *rec) {
  int new_sleep = !(idle_stretch.unwoken && idle_stretch.seq == s);
  if (idle_stretch.naps < BLOCKED_AFTER_NAPS) idle_stretch.naps++;
  if (idle_stretch.naps >= BLOCKED_AFTER_NAPS) note_sleep(j, u, why, seq, s, new_sleep, rec);
  else if (new_sleep) u->sleeps++;
}

/* Sleep until the doorbell rings (any flag written into my MPB) or a
 * timeout: NAP_NS for a program's poll (why NULL), BLOCKED_NAP_NS for a
 * library's idle poll (begin_idle_nap: maybe shown blocked on why).
 * announce: cond may be asked again (it has no side effects), and the UE
 * is announced blocked for the nap (a library's poll was announced when it
 * came in: hw_poll_idle_blocked). */
static void nap(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why, int announce) {
  struct hw_ue *u = hw_ue(j, me);
  volatile uint32_t *seq = (volatile uint32_t *)&u->doorbell_seq;
  uint32_t s = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
  __atomic_store_n(&u->sleeping, 1, __ATOMIC_RELAXED);
  sleeper_fence(j); /* as in hw_wait_cond: a write after this point rings */
  if (!(announce ? cond_or_blocked(cond, arg, why) : cond(arg))) {
    long ns = why ? BLOCKED_NAP_NS : NAP_NS;
    const struct timespec timeout = {ns / 1000000000L, ns % 1000000000L};
    struct sleep_record rec = {0, 0};
    if (!why) u->sleeps++;
    else begin_idle_nap(j, u, why, seq, s, &rec);
    futex_wait_until(seq, s, &timeout);
    if (why) {
      idle_stretch.unwoken = __atomic_load_n(seq, __ATOMIC_ACQUIRE) == s;
      idle_stretch.seq = s;
    }
    note_wake(u, &rec);
  }
  __atomic_store_n(&u->sleeping, 0, __ATOMIC_RELAXED);
}

/* hw_poll_set_program_poll's question (the MPI provider's: prov_caller.c). */
static int (*program_poll)(void);

void hw_poll_set_program_poll(int (*fn)(void)) { program_poll = fn; }

/* A program polling between steps of its own work (HPCC's MPIRandomAccess
 * calls MPI_Testany once per update it makes) is not waiting: a nap per
 * poll made it one step per nap and, with every rank so, a deadlock to the
 * launcher.  It yields the CPU (UEs may outnumber the host's CPUs) and
 * returns; once nothing has happened for PROGRAM_POLL_PATIENCE_NS it naps
 * as a program's poll of RCCE does (NAP_NS, woken by the doorbell, never
 * shown blocked), so a loop with nothing else to do costs little. */
#define PROGRAM_POLL_PATIENCE_NS 20000000ull

static void program_poll_idle(struct hw_job *j, int me, hw_cond_fn cond, void *arg) {
  uint64_t now = hw_trace_monotonic_ns();
  if (!idle_stretch.program_since) idle_stretch.program_since = now;
  if (now - idle_stretch.program_since < PROGRAM_POLL_PATIENCE_NS) sched_yield();
  else nap(j, me, cond, arg, NULL, 0);
}

/* Whether no UE of the job but me is running (the others asleep, finished
 * or not started). */
static int last_awake(const struct hw_job *j, int me) {
  for (int u = 0; u < (int)j->hdr->nue; u++)
    if (u != me && atomic_load_explicit(&hw_ue(j, u)->state, memory_order_relaxed) == HW_UE_RUNNING) return 0;
  return 1;
}

/* Whether a library's idle stretch should still yield rather than nap. */
static int library_patient(const struct hw_job *j, int me, uint64_t now) {
  if (!idle_stretch.library_since) idle_stretch.library_since = now;
  uint64_t age = now - idle_stretch.library_since;
  return age < LIBRARY_PATIENCE_NS || (age < LAST_AWAKE_PATIENCE_NS && last_awake(j, me));
}

/* Returns 1 when the poll only spun (a pause: it ended when it began).
 * library: hw_poll_idle_blocked's poll (maybe a program's own test). */
static int poll_idle(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why, uint64_t now,
                     int library) {
  struct budget b = budget_of(j, now);
  unsigned spin = b.spin > 0 ? (unsigned)b.spin : 0, yield = b.yield > 0 ? (unsigned)b.yield : 0;
  unsigned n = fruitless_polls;
  if (n < spin + yield) fruitless_polls++; /* stays at the budget: every further fruitless poll naps */
  if (n < spin) {
    /* n steps by CLOCK_EVERY here: the preemption check every CHECK_EVERY polls */
    if (((n + CLOCK_EVERY) & (CHECK_EVERY - 1)) < CLOCK_EVERY) preempted_while_spinning(j);
    unclocked_polls = spin - n - 1 < CLOCK_EVERY - 1 ? spin - n - 1 : CLOCK_EVERY - 1;
    hw_cpu_relax();
    return 1;
  }
  /* The question costs a stack walk (microseconds): asked only when the
   * poll would nap, never in the yields (48 UEs on 2 CPUs yield often). */
  if (n < spin + yield || (library && library_patient(j, me, now))) sched_yield();
  else if (library && program_poll && program_poll()) program_poll_idle(j, me, cond, arg);
  else nap(j, me, cond, arg, why, !library);
  return 0;
}

/* A program that works between its polls longer than this is not polling in
 * a tight loop: its next fruitless poll starts the count afresh. */
#define POLL_GAP_NS 50000ull

static _Thread_local uint64_t last_poll_end_ns;

static void poll_idle_since_last(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why,
                                 int library) {
  /* At most one clock reading per poll, and none on most polls of a spin:
   * a library polling in a tight loop (the MPI provider: every fruitless
   * fi_cq_read) pays it on every call (CLOCK_EVERY).  A gap of work between
   * unclocked polls goes unseen: the spin ends up to CLOCK_EVERY polls
   * early. */
  if (unclocked_polls) {
    unclocked_polls--;
    fruitless_polls++;
    return;
  }
  uint64_t now = hw_trace_monotonic_ns();
  if (now - last_poll_end_ns > POLL_GAP_NS) fruitless_polls = 0;
  int spun = poll_idle(j, me, cond, arg, why, now, library);
  last_poll_end_ns = spun ? now : hw_trace_monotonic_ns();
}

void hw_poll_idle(struct hw_job *j, int me, hw_cond_fn cond, void *arg) {
  /* Model mode: the program's clock stands still until its next call (its
   * loop back is counted then): announced blocked, so that UEs ahead do not
   * wait for it to catch up one poll at a time. */
  if (hw_vt_hooks && hw_vt_hooks->block_unless(cond, arg)) return;
  poll_idle_since_last(j, me, cond, arg, NULL, 0);
}

void hw_poll_idle_blocked(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why) {
  /* Model mode: the library's fruitless polls stop the UE's clock, so it is
   * announced blocked at once (cond may not be asked twice: an announcement
   * racing with a wake costs repeatability, not progress). */
  if (hw_vt_hooks) hw_vt_hooks->block_unless(NULL, NULL);
  poll_idle_since_last(j, me, cond, arg, why, 1);
}

int hw_wake_sleeper(struct hw_job *j, int ue) {
  struct hw_ue *u = hw_ue(j, ue);
  if (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) != HW_UE_BLOCKED || u->wait.kind == HW_WAIT_VTIME) return 0;
  futex_wake((volatile uint32_t *)(j->base + u->wait.futex_off), INT_MAX);
  return 1;
}

void hw_ring_slow(struct hw_job *j, int ue) {
  struct hw_ue *u = hw_ue(j, ue);
  __atomic_fetch_add(&u->doorbell_seq, 1, __ATOMIC_RELEASE);
  futex_wake((volatile uint32_t *)&u->doorbell_seq, 1);
}

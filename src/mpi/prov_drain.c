/* Packets left queued while the application is away from the provider
 * (docs/mpi-provider.md "Progress and waiting").  Progress is manual
 * (FI_PROGRESS_MANUAL), but the MPI libraries count on injected data
 * leaving: Open MPI sends short messages with fi_tinject, which completes
 * at once, and may then block outside MPI (in PMIx: MPI_Comm_accept's
 * lookup, MPI_Finalize's fence) while its receiver waits for the packet.
 * A send writes its first round into the MPB at once when the EWS is free
 * (mpi_channel_post); what cannot move yet (the EWS busy, more rounds to
 * come) is moved by one helper thread per process, and only while packets
 * are queued and the application has not called the provider for a whole
 * sleep of the helper (1 ms, doubling while nothing moves, up to 20 ms).
 * It takes the provider lock like any entry point, runs the channel's
 * progress once and lets go; with nothing queued it waits, without a
 * timeout, for the next progress call that leaves packets queued.  It is
 * not one of the application's threads (prov_progress.c: a UE is shown
 * waiting in MPI when they all idle in the provider).  Under --model there
 * is no helper: its host time and its rounds' stamps would not be the
 * rank's (timing.h keeps one clock per rank, read with the thread's CPU time
 * on an oversubscribed host, and counted builds charge it outside the
 * lock), so there the packet waits for the rank's next call, as manual
 * progress allows.  The helper ends with the channel, or when the provider
 * is unloaded (libfabric's fi_fini at exit dlcloses it: the provider's
 * destructor stops and joins the helper first, else it would wake in
 * unmapped code). */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "provider.h"

#define AWAY_NS 1000000L      /* the helper's first sleep: the application away for this long */
#define AWAY_MAX_NS 20000000L /* its longest, while nothing moves (a receiver that does not read) */
#define STOP_WAIT_S 1         /* how long the destructor waits for a helper busy under the lock */

static struct {
  pthread_mutex_t mutex; /* for parked, stopping and the condition; taken after prov_lock, never before it */
  pthread_cond_t kicked;
  int started, stopping;
  int parked;          /* the helper waits for a kick (written under prov_lock and mutex) */
  unsigned long calls; /* the application's progress calls (under prov_lock) */
  pthread_t thread;
} drain = {.mutex = PTHREAD_MUTEX_INITIALIZER, .kicked = PTHREAD_COND_INITIALIZER, .parked = 1};

/* Sleep ns, or until stopped; returns whether to stop. */
static int sleep_unless_stopped(long ns) {
  const struct timespec until = prov_realtime_after(ns);
  pthread_mutex_lock(&drain.mutex);
  while (!drain.stopping && pthread_cond_timedwait(&drain.kicked, &drain.mutex, &until) == 0) continue;
  int stop = drain.stopping;
  pthread_mutex_unlock(&drain.mutex);
  return stop;
}

/* Returns whether to stop. */
static int wait_for_kick(void) {
  pthread_mutex_lock(&drain.mutex);
  while (drain.parked && !drain.stopping) pthread_cond_wait(&drain.kicked, &drain.mutex);
  int stop = drain.stopping;
  pthread_mutex_unlock(&drain.mutex);
  return stop;
}

/* One pass under the provider lock: returns -1 once the channel has
 * closed, else whether rounds moved.  seen: the application's call count
 * at the previous pass (equal: it stayed away meanwhile).  A lock held by
 * another thread means the application is in the provider (a napping
 * thread lets it go), not away: no pass.  Waiting for the lock instead
 * queued the helper on it, and then every unlock of the application's
 * polling thread (each fruitless fi_cq_read) made a futex wake-up system
 * call: about 110 per 48-rank barrier (docs/mpi-provider.md). */
static int drain_pass(unsigned long *seen) {
  if (pthread_mutex_trylock(&prov_lock) != 0) return 0;
  prov_lock_depth++;
  int moved = 0, open = prov_g.channel_open;
  if (open && drain.calls == *seen) moved = mpi_channel_progress();
  *seen = drain.calls;
  if (!open || mpi_channel_pending() == 0) {
    pthread_mutex_lock(&drain.mutex);
    __atomic_store_n(&drain.parked, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&drain.mutex);
  }
  prov_lock_depth--;
  pthread_mutex_unlock(&prov_lock);
  return open ? moved > 0 : -1;
}

static void *drain_thread(void *unused) {
  (void)unused;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL); /* the program's signals go to its own threads */
  prov_thread_counted = 1;                /* never counted among the application's threads */
  unsigned long seen = 0;
  long nap = AWAY_NS;
  for (;;) {
    if (__atomic_load_n(&drain.parked, __ATOMIC_RELAXED)) {
      if (wait_for_kick()) return NULL;
      nap = AWAY_NS;
      seen = __atomic_load_n(&drain.calls, __ATOMIC_RELAXED); /* the kicking call: the away time starts now */
    }
    if (sleep_unless_stopped(nap)) return NULL;
    int r = drain_pass(&seen);
    if (r < 0) return NULL;
    nap = r ? AWAY_NS : (nap * 2 < AWAY_MAX_NS ? nap * 2 : AWAY_MAX_NS);
  }
}

void prov_drain_note_progress(void) {
  __atomic_store_n(&drain.calls, drain.calls + 1, __ATOMIC_RELAXED); /* read by the helper outside the lock too */
  if (!drain.parked || timing_enabled || mpi_channel_pending() == 0) return;
  pthread_mutex_lock(&drain.mutex);
  if (!drain.started) drain.started = pthread_create(&drain.thread, NULL, drain_thread, NULL) == 0;
  /* Without a helper (no thread to be had) packets wait for the next call, as before. */
  if (drain.started) {
    __atomic_store_n(&drain.parked, 0, __ATOMIC_RELAXED);
    pthread_cond_signal(&drain.kicked);
  }
  pthread_mutex_unlock(&drain.mutex);
}

/* The provider is being unloaded (or the process exits): the helper must
 * not outlive its code. */
__attribute__((destructor)) static void stop_drain(void) {
  pthread_mutex_lock(&drain.mutex);
  int started = drain.started;
  drain.stopping = 1;
  pthread_cond_broadcast(&drain.kicked);
  pthread_mutex_unlock(&drain.mutex);
  if (!started) return;
  const struct timespec until = prov_realtime_after(STOP_WAIT_S * 1000000000L);
  pthread_timedjoin_np(drain.thread, NULL, &until);
}

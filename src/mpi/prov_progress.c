/* Manual progress (FI_PROGRESS_MANUAL): the channel moves data only inside
 * the provider's calls -- CQ and counter reads, sends, receives.  MPI
 * libraries spin in fi_cq_read; when a read finds nothing and moved nothing,
 * the channel spends one unit of its wait budget (spin, yield, then a
 * bounded sleep on the UE's doorbell with the UE shown as waiting in MPI),
 * so many ranks share few host CPUs and the launcher's deadlock detector
 * sees every rank waiting.  Two exceptions: a program's own poll (MPI_Test,
 * prov_caller.c) is no wait and is never shown blocked, and packets left
 * queued while the application stays away move in prov_drain.c's helper. */
#include <pthread.h>
#include <time.h>

#include "../hw/wait.h"
#include "provider.h"

_Thread_local int prov_lock_depth;
_Thread_local int prov_thread_counted;

/* The threads that use the provider (under prov_lock): `users` have called
 * it and not exited, `waiting` wait for the napper's nap to end, `napper`:
 * a thread naps on the doorbell. */
static struct { int users, waiting, napper; } threads;

/* The end of a nap: its generation, under nap_mutex (taken after prov_lock). */
static pthread_mutex_t nap_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nap_ended = PTHREAD_COND_INITIALIZER;
static uint64_t nap_generation;
/* How long a waiting thread waits for the napper at most: one idle nap. */
#define WAIT_FOR_NAPPER_NS 20000000L

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void thread_exits(void *unused) {
  (void)unused;
  PROV_LOCK_SCOPE();
  threads.users--;
}

static void make_thread_key(void) { pthread_key_create(&thread_key, thread_exits); }

void prov_thread_count(void) {
  prov_thread_counted = 1;
  pthread_once(&thread_key_once, make_thread_key);
  pthread_setspecific(thread_key, &threads); /* non-NULL: thread_exits runs when the thread exits */
  threads.users++;
}

/* The lock goes (every hold of this thread's) for a nap, and comes back. */
static _Thread_local int released_holds;
static void release_lock(void) {
  released_holds = prov_lock_depth;
  for (int i = 0; i < released_holds; i++) pthread_mutex_unlock(&prov_lock);
}
static void reacquire_lock(void) {
  for (int i = 0; i < released_holds; i++) pthread_mutex_lock(&prov_lock);
}
static const struct mpi_idle_lock unlocked_nap = {release_lock, reacquire_lock};

int prov_progress(void) {
  if (!prov_g.channel_open) return 0;
  int moved = mpi_channel_progress();
  prov_drain_note_progress(); /* packets left queued move even if the application stays away */
  return moved;
}

/* After a send's post, natively: a packet that left at once needs only its
 * done() (its CQ entry); a whole pass -- reading every EWS -- only when it
 * stayed queued.  That pass was 29 % of the provider's instructions per
 * send of an 8-byte ping-pong (docs/mpi-provider.md "Sends, completions").
 * In model mode always a whole pass, as before: which rounds a call
 * consumes moves the virtual clocks. */
void prov_progress_sent(void) {
  if (!prov_g.channel_open) return;
  if (timing_enabled || mpi_channel_finish() == 0) prov_progress();
  else prov_drain_note_progress();
}

/* Another thread naps on the doorbell: wait (without the lock) until its
 * nap ends, at most one nap's length. */
struct timespec prov_realtime_after(long ns) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += ns / 1000000000L;
  t.tv_nsec += ns % 1000000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

static void wait_for_napper(void) {
  threads.waiting++;
  pthread_mutex_lock(&nap_mutex);
  uint64_t generation = nap_generation; /* read while the napper still naps: it bumps it afterwards */
  release_lock();
  const struct timespec until = prov_realtime_after(WAIT_FOR_NAPPER_NS);
  while (nap_generation == generation && pthread_cond_timedwait(&nap_ended, &nap_mutex, &until) == 0) continue;
  pthread_mutex_unlock(&nap_mutex);
  reacquire_lock();
  threads.waiting--;
}

void prov_idle(void) {
  if (!prov_g.channel_open) return;
  hw_poll_set_program_poll(prov_called_from_program_poll); /* a program's MPI_Test loop is no wait */
  timing_poll_empty(); /* the library's loop back to the next poll is not computation (docs/mpi.md "Model mode") */
  if (threads.napper) {
    wait_for_napper();
    return;
  }
  threads.napper = 1;
  /* A thread computing, or busy in the provider, means the UE is not
   * blocked: shown waiting in MPI only when all its users wait. */
  int all_wait = threads.waiting + 1 >= threads.users;
  mpi_channel_idle_unlocked(&unlocked_nap, all_wait);
  threads.napper = 0;
  /* threads.waiting changes only under the provider lock, held again here:
   * with no thread waiting for this nap, nobody needs the broadcast (an
   * empty poll is the hot path of a progress loop). */
  if (threads.waiting == 0) return;
  pthread_mutex_lock(&nap_mutex);
  nap_generation++;
  pthread_cond_broadcast(&nap_ended);
  pthread_mutex_unlock(&nap_mutex);
}

void prov_wake_napper(void) {
  /* Under the lock: a napper set `sleeping` before it let the lock go, so
   * this ring reaches it (hw/wait.h's doorbell protocol). */
  if (threads.napper) hw_ring(&prov_g.job, prov_g.ue);
}

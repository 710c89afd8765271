/* Waiting in the channel (mpi_channel_idle): the hw layer's polling budget,
 * then a bounded sleep on the UE's doorbell, shown as a wait in MPI. */
#include "../hw/wait.h"
#include "../timing/timing.h"
#include "channel_internal.h"

struct idle_call {
  const struct mpi_idle_lock *lock; /* or NULL */
  int released;
};

/* A round written into one of my EWSs, or a receiver that consumed my
 * round (both ring my doorbell), or a packet that can move at once (posted
 * from a callback at the end of a progress call).  Called right before the
 * nap (hw/wait.h): when nothing can move, the caller's lock goes for it. */
static int channel_can_move(void *arg) {
  struct idle_call *c = arg;
  /* Deciding whether to nap, a round stamped in my virtual future counts
   * too (it rang my doorbell); which rounds count once awake is
   * after_wait's (model mode's horizon, channel.c flag_arrived). */
  uint64_t horizon = chan.horizon;
  chan.horizon = UINT64_MAX;
  int waiting = chan_round_waiting();
  chan.horizon = horizon;
  if (waiting || chan_can_send()) return 1;
  if (c->lock) {
    c->lock->release();
    c->released = 1;
  }
  return 0;
}

void mpi_channel_idle_unlocked(const struct mpi_idle_lock *lock, int show_blocked) {
  if (!chan.open) return;
  struct idle_call c = {lock, 0};
  const struct hw_wait_desc why = {.kind = HW_WAIT_MPI, .peer = -1};
  hw_poll_idle_blocked(chan.job, chan.me, channel_can_move, &c, show_blocked ? &why : NULL);
  if (c.released) lock->reacquire();
  /* Awake, under the caller's lock again (another thread may have closed the
   * channel meanwhile): the earliest of the flags there now counts. */
  if (chan.open && timing_enabled && chan.ops->after_wait) chan.ops->after_wait();
}

void mpi_channel_idle(void) { mpi_channel_idle_unlocked(NULL, 1); }

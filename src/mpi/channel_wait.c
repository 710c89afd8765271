/* Waiting in the channel (mpi_channel_idle): the hw layer's polling budget,
 * then a bounded sleep on the UE's doorbell, shown as a wait in MPI. */
#include "../hw/wait.h"
#include "channel_internal.h"

/* A round written into one of my EWSs, or a receiver that consumed my
 * round (both ring my doorbell), or a packet that can move at once (posted
 * from a callback at the end of a progress call). */
static int channel_can_move(void *arg) {
  (void)arg;
  return chan_round_waiting() || chan_can_send();
}

void mpi_channel_idle(void) {
  if (!chan.open) return;
  const struct hw_wait_desc why = {.kind = HW_WAIT_MPI, .peer = -1};
  hw_poll_idle_blocked(chan.job, chan.me, channel_can_move, NULL, &why);
}

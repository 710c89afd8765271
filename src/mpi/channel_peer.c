/* The job's other UEs as the channel sees them: whether one is gone
 * (shared by both engines' waits on a peer). */
#include <errno.h>
#include <signal.h>

#include "channel_internal.h"

const char *chan_ue_gone(int u, int process) {
  const struct hw_ue *ue = hw_ue(chan.job, u);
  if (__atomic_load_n(&ue->state, __ATOMIC_ACQUIRE) == HW_UE_FINALIZED) return "finished";
  if (process && ue->pid > 0 && kill((pid_t)ue->pid, 0) != 0 && errno == ESRCH) return "exited";
  return NULL;
}

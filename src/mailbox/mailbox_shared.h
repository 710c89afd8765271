/*
 * The mailbox layer's state in the job segment (hw/region.h):
 *   mailbox.ue  per UE  the core's interrupt status, its mailbox state, counters
 * Read by the launcher for summary.json.
 */
#ifndef OPENSCC_MAILBOX_SHARED_H
#define OPENSCC_MAILBOX_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise the version whenever struct mailbox_ue_shared changes (the layout
 * hash then tells programs built against the old one to rebuild). */
#define MAILBOX_UE_REGION "mailbox.ue"
#define MAILBOX_UE_VERSION 1

enum mailbox_ue_state { MAILBOX_UE_NONE = 0, MAILBOX_UE_READY = 1, MAILBOX_UE_GONE = 2 };

struct mailbox_ue_shared {
  /* The interrupt status the SCC's global interrupt controller keeps for
   * this core, one bit per UE that rang ([SVM-2012] sec. 5 (docs/references.md)). */
  _Atomic uint64_t gic_pending[HW_MAX_UES / 64] HW_ALIGNED;
  _Atomic int32_t state;   /* enum mailbox_ue_state */
  _Atomic int32_t waiting; /* > 0 while the UE waits and checks its status itself */
  /* Counted atomically: the UE's doorbell handler counts too.  Own line:
   * senders read state and waiting on every doorbell. */
  uint64_t mails_sent HW_ALIGNED;
  uint64_t mails_recv, doorbells, interrupts;
};

/* UE ue's block; the blocks form an array (line-sized), so UE 0's indexes all. */
static inline struct mailbox_ue_shared *mailbox_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct mailbox_ue_shared *)hw_region_ue(j, MAILBOX_UE_REGION, ue);
}

#endif

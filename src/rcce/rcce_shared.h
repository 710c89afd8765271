/*
 * The rcce layer's state in the job segment (hw/region.h):
 *   rcce.job  per job  what every UE must agree on, and the job-wide fallbacks
 *   rcce.ue   per UE   the UE's counters (summary.json) and single-copy status
 * Read by the launcher for summary.json.
 */
#ifndef OPENSCC_RCCE_SHARED_H
#define OPENSCC_RCCE_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise a region's version whenever its type below changes (the layout hash
 * then tells programs built against the old one to rebuild). */
#define RCCE_JOB_REGION "rcce.job"
#define RCCE_JOB_VERSION 1
#define RCCE_UE_REGION "rcce.ue"
#define RCCE_UE_VERSION 2

enum rcce_flag_mode { RCCE_FLAGMODE_UNSET = 0, RCCE_FLAGMODE_BIG = 1, RCCE_FLAGMODE_SINGLEBIT = 2 };
enum rcce_iface { RCCE_IFACE_UNSET = 0, RCCE_IFACE_BASIC = 1, RCCE_IFACE_GORY = 2 };

struct rcce_job_shared {
  _Atomic int32_t flag_mode;  /* enum rcce_flag_mode: set by the first UE to initialise */
  _Atomic int32_t iface;      /* enum rcce_iface: likewise */
  _Atomic int32_t init_count; /* UEs that completed RCCE_init */
  _Atomic int32_t cma_broken; /* cross-process copy refused: chunk instead (single_copy.c) */
};

struct rcce_ue_counters {
  uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
  uint64_t puts, put_bytes, gets, get_bytes;
  uint64_t flag_writes, barriers;
};

struct rcce_ue_shared {
  struct rcce_ue_counters counters HW_ALIGNED; /* written by the UE only */
  /* Native single-copy transfers (single_copy.c): how the receiver of this
   * UE's current outgoing message fared, written by that receiver.  On a
   * line of its own: next to flag_writes (which the UE bumps on every flag
   * write) the receiver's store moved that line between the two UEs on every
   * single-copy message (docs/architecture.md, "The transfer engine"). */
  _Atomic uint32_t sc_receiver_status HW_ALIGNED;
};

static inline struct rcce_job_shared *rcce_job_shared_of(const struct hw_job *j) {
  return (struct rcce_job_shared *)hw_region_base(j, RCCE_JOB_REGION);
}
/* UE ue's block; the blocks form an array (line-sized), so UE 0's indexes all. */
static inline struct rcce_ue_shared *rcce_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct rcce_ue_shared *)hw_region_ue(j, RCCE_UE_REGION, ue);
}

/* Whether the basic interface's short messages travel tagged (enum hw_tagged)
 * for a program of this flag form and interface (docs/rcce.md). */
static inline int rcce_tagged_messages(const struct hw_header *h, int flag_mode, int iface) {
  int on = h->set.tagged_flags == HW_TAGGED_ON || (h->set.tagged_flags == HW_TAGGED_AUTO && !h->set.model);
  return on && flag_mode == RCCE_FLAGMODE_BIG && iface == RCCE_IFACE_BASIC;
}

#endif

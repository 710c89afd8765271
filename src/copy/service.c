/*
 * A copy core's service ([SVP-SCC] sec. III.C): take each program UE's
 * request line from this core's MPB, map the source and the destination
 * through this core's lookup table as MPBT (scc_lut.h; the paper's remapping
 * flags: level 1 only, the write-combine buffer for the writes), CL1INVMB,
 * copy this core's chunks (every parts-th from its part on), flush the
 * write-combine buffer, unmap, answer.  Requests are served earliest
 * stamp first, once no program UE can still send an earlier one (model
 * mode).  Asleep on the doorbell while no request waits; the launcher sets
 * the stop word once the program's UEs have all left.
 */
#include <stdint.h>

#include "../rcce/rcce_iface.h"
#include "copy_internal.h"

static uint32_t taken[HW_MAX_UES]; /* each UE's last request served */

/* The waiting request with the earliest stamp (the lowest UE of equals), or
 * -1; natively the stamps are 0: the lowest UE. */
static int earliest(uint64_t *stamp) {
  struct hw_job *job = rcce_job();
  int best = -1;
  for (int c = 0; c < rcce_ue_count(); c++) {
    struct copy_request *line = copy_request_line(job, rcce_my_ue(), c);
    uint32_t seq = __atomic_load_n(&line->seq, __ATOMIC_ACQUIRE);
    if (seq == taken[c]) continue;
    uint64_t t = timing_flag_stamp(&line->seq, 0, seq);
    if (best < 0 || t < *stamp) best = c, *stamp = t;
  }
  return best;
}

static int has_work(void *arg) {
  (void)arg;
  uint64_t stamp;
  return __atomic_load_n(&copy_ue_shared_of(rcce_job(), rcce_my_ue())->stop, __ATOMIC_ACQUIRE) || earliest(&stamp) >= 0;
}

/* Serve UE c's waiting request. */
static void take(int c) {
  TIMING_SCOPE();
  struct hw_job *job = rcce_job();
  struct copy_request *line = copy_request_line(job, rcce_my_ue(), c);
  uint32_t seq = __atomic_load_n(&line->seq, __ATOMIC_ACQUIRE);
  timing_flag_seen(&line->seq, 0, seq); /* the request's stamp: this core goes on from it */
  struct copy_request r = *line;
  taken[c] = seq;
  struct copy_answer *a = copy_answer_line(job, rcce_my_ue(), c);
  struct copy_ue_shared *me = copy_ue_shared_of(job, rcce_my_ue());
  a->status = copy_remapped(r.dst_off, r.src_off, r.bytes, (uint64_t)r.part * r.chunk, r.chunk,
                            (uint64_t)r.parts * r.chunk, &me->bytes);
  me->requests++;
  timing_flag_write(&a->seq, 0, seq);
  __atomic_store_n(&a->seq, seq, __ATOMIC_RELEASE);
  hw_ring(job, c);
}

/* All of it is the runtime's work, charged as the chip would (timing_copy,
 * the flags): no host time counts as computation. */
void copy_serve(void) {
  TIMING_SCOPE();
  struct hw_job *job = rcce_job();
  struct hw_wait_desc why = {.kind = HW_WAIT_COPY_IDLE, .peer = -1};
  for (;;) {
    uint64_t stamp = 0;
    int c = earliest(&stamp);
    if (c >= 0) {
      /* In virtual-time order: once no UE can send one stamped earlier, the
       * earliest is final (model mode; docs/data-movement.md "Model"). */
      timing_order_wait(stamp, rcce_ue_count());
      take(earliest(&stamp));
      continue;
    }
    if (__atomic_load_n(&copy_ue_shared_of(job, rcce_my_ue())->stop, __ATOMIC_ACQUIRE)) return;
    hw_wait_cond(job, rcce_my_ue(), has_work, NULL, &why);
  }
}

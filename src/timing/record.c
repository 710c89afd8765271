/* Monitoring records of this UE (rccerun --trace, docs/monitoring.md):
 * messages per destination, and events stamped with the host clock and, in
 * model mode, the UE's virtual clock, into its block of the job segment
 * (hw/trace.h).  The launcher turns them into the job directory's files. */
#include "../hw/trace.h"
#include "timing_internal.h"

int timing_record_calls;
static struct {
  struct hw_job *job;
  int ue, level;
} rec;

void timing_record_init(struct hw_job *job, int ue) {
  rec.job = job;
  rec.ue = ue;
  rec.level = job->hdr->set.trace_level;
  timing_record_calls = rec.level >= HW_TRACE_TIMELINE;
}

/* In model mode the virtual clock (frozen once RCCE_finalize has stopped it). */
static void record(uint32_t kind, int32_t arg, uint64_t size) {
  hw_trace_record(rec.job, rec.ue, kind, arg, size, rec.job->hdr->set.model ? timing_g.clock->now_ps : 0);
}

int timing_record_call(const char *name, int *id) {
  if (*id < 0) *id = hw_trace_name_id(rec.job, rec.ue, name);
  if (*id >= 0) record(HW_EV_CALL, *id, 0);
  return *id;
}

void timing_record_return(int id) { record(HW_EV_RETURN, id, 0); }

void timing_record_message(int sending, int peer, size_t size) {
  if (rec.level < HW_TRACE_TARGETS) return;
  if (sending) {
    hw_trace_msgs_to(rec.job, rec.ue)[peer]++;
    hw_trace_bytes_to(rec.job, rec.ue)[peer] += size;
  }
  if (rec.level >= HW_TRACE_SIZES) record(sending ? HW_EV_SEND : HW_EV_RECV, peer, size);
}

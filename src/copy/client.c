/*
 * Copy cores, the program's side (include/scc_copy.h): a copy becomes one
 * request line in each copy core's MPB ([SVP-SCC] sec. III.C: copy tasks
 * handed round-robin to the copy cores), written with its sequence number
 * last as a flag (stamped in model mode) and the core's doorbell rung; the
 * copy core answers in another line of its MPB, which the program reads
 * remotely and sleeps on as on any flag.
 */
#include <stdint.h>
#include <string.h>

#include "../lut/lut_internal.h"
#include "../rcce/rcce_iface.h"
#include "copy_internal.h"
#include "scc_copy.h"

static uint32_t next_seq;             /* my requests, numbered from 1 */
static uint32_t last_seq[HW_MAX_UES]; /* my last request to each copy core */

const char *scc_copy_error_string(int code) {
  switch (code) {
    case SCC_COPY_SUCCESS: return "success";
    case SCC_COPY_ERROR_NOT_INIT: return "RCCE_init was not called";
    case SCC_COPY_ERROR_NO_CORES: return "the job has no copy cores (rccerun --copy-cores K)";
    case SCC_COPY_ERROR_ADDRESS: return "a range that is not one LUT-mappable memory (private, shared or MPB)";
    case SCC_COPY_ERROR_OVERLAP: return "source and destination overlap";
    case SCC_COPY_ERROR_ARG: return "NULL handle, or a handle not started";
    default: return "unknown copy error";
  }
}

int scc_copy_cores(void) { return rcce_running() ? (int)rcce_job()->hdr->set.copy_cores : 0; }

struct answer_wait {
  const struct copy_answer *line;
  uint32_t seq;
};

static int answered(void *arg) {
  const struct answer_wait *w = arg;
  /* Answers come in order: a later one means this one is done too. */
  return (int32_t)(__atomic_load_n(&w->line->seq, __ATOMIC_ACQUIRE) - w->seq) >= 0;
}

/* Wait for copy core copy_ue's answer to my request seq; its status. */
static int wait_answer(int copy_ue, uint32_t seq) {
  struct hw_job *job = rcce_job();
  struct answer_wait w = {copy_answer_line(job, copy_ue, rcce_my_ue()), seq};
  if (!answered(&w)) {
    struct hw_wait_desc why = {.kind = HW_WAIT_COPY, .peer = copy_ue};
    hw_wait_cond(job, rcce_my_ue(), answered, &w, &why);
  }
  timing_flag_seen(&w.line->seq, 0, w.line->seq); /* the answer's stamp, read from the copy core's MPB */
  return w.line->status;
}

/* The segment offset of a range, or the error reported for `what`. */
static int range_offset(const void *p, size_t bytes, const char *what, uint64_t *off) {
  if (lut_segment_offset(p, bytes, off) == SCC_LUT_SUCCESS) return SCC_COPY_SUCCESS;
  return rcce_report(SCC_COPY_ERROR_ADDRESS, "scc_copy_async",
                     "the %s (%zu bytes at %p) is not one private, shared or MPB memory a LUT maps", what, bytes, p);
}

int scc_copy_async(void *dst, const void *src, size_t bytes, scc_copy_handle *h) {
  TIMING_SCOPE();
  if (!rcce_running()) return rcce_report(SCC_COPY_ERROR_NOT_INIT, "scc_copy_async", "call RCCE_init first");
  if (!h) return rcce_report(SCC_COPY_ERROR_ARG, "scc_copy_async", "h is NULL");
  h->seq = 0, h->parts = 0;
  int cores = scc_copy_cores();
  if (cores == 0) return rcce_report(SCC_COPY_ERROR_NO_CORES, "scc_copy_async", "start the job with --copy-cores K");
  if (bytes == 0) return SCC_COPY_SUCCESS;
  if (bytes > UINT32_MAX)
    return rcce_report(SCC_COPY_ERROR_ADDRESS, "scc_copy_async", "%zu bytes is more than a private memory holds",
                       bytes);
  uint64_t s, d;
  int rc = lut_ready("scc_copy_async");
  if (rc != SCC_LUT_SUCCESS) return SCC_COPY_ERROR_NOT_INIT;
  if ((rc = range_offset(src, bytes, "source", &s)) || (rc = range_offset(dst, bytes, "destination", &d))) return rc;
  if (s < d + bytes && d < s + bytes)
    return rcce_report(SCC_COPY_ERROR_OVERLAP, "scc_copy_async", "source %p and destination %p overlap (%zu bytes)",
                       src, dst, bytes);
  uint64_t chunks = (bytes + SCC_COPY_CHUNK - 1) / SCC_COPY_CHUNK;
  int parts = chunks < (uint64_t)cores ? (int)chunks : cores, first = HW_PROGRAM_UES(rcce_job()->hdr);
  if (++next_seq == 0) next_seq = 1;
  struct hw_job *job = rcce_job();
  for (int k = 0; k < parts; k++) {
    int cu = first + k;
    if (last_seq[cu]) wait_answer(cu, last_seq[cu]); /* one request of mine per copy core: its line is free */
    struct copy_request *r = copy_request_line(job, cu, rcce_my_ue());
    r->src_off = s, r->dst_off = d;
    r->bytes = (uint32_t)bytes, r->chunk = SCC_COPY_CHUNK;
    r->parts = (uint16_t)parts, r->part = (uint16_t)k;
    timing_flag_write(&r->seq, 0, next_seq); /* the request's line written to the copy core's MPB */
    __atomic_store_n(&r->seq, next_seq, __ATOMIC_RELEASE);
    hw_ring(job, cu);
    last_seq[cu] = next_seq;
  }
  h->seq = next_seq, h->parts = parts;
  return SCC_COPY_SUCCESS;
}

int scc_copy_wait(scc_copy_handle *h) {
  TIMING_SCOPE();
  if (!rcce_running()) return rcce_report(SCC_COPY_ERROR_NOT_INIT, "scc_copy_wait", "call RCCE_init first");
  if (!h) return rcce_report(SCC_COPY_ERROR_ARG, "scc_copy_wait", "h is NULL");
  int first = HW_PROGRAM_UES(rcce_job()->hdr), status = SCC_COPY_SUCCESS;
  for (int k = 0; k < h->parts; k++) {
    int rc = wait_answer(first + k, h->seq);
    if (rc != SCC_COPY_SUCCESS) status = rc;
  }
  h->parts = 0;
  if (status != SCC_COPY_SUCCESS)
    return rcce_report(status, "scc_copy_wait", "a copy core could not map the ranges: %s",
                       scc_copy_error_string(status));
  return SCC_COPY_SUCCESS;
}

int scc_copy(void *dst, const void *src, size_t bytes) {
  scc_copy_handle h;
  int rc = scc_copy_async(dst, src, bytes, &h);
  return rc == SCC_COPY_SUCCESS ? scc_copy_wait(&h) : rc;
}

void scc_copy_local(void *dst, const void *src, size_t bytes) {
  TIMING_SCOPE();
  memcpy(dst, src, bytes);
  timing_copy((uintptr_t)dst, (uintptr_t)src, bytes);
}

/*
 * Running a pipeline (include/scc_pipeline.h; [PIPELINE-2011] sec. IV): each
 * stage, for every chunk in turn, receives it (the first stage copies it in
 * from the input), runs the stage function on it and passes it on (the last
 * stage copies it out).  Private memory: the chunk itself is the RCCE
 * message.  Shared memory: the chunks stay in one RCCE_shmalloc area and a
 * token with the chunk's number is the message; with SCC_PIPE_SHARED_CACHED
 * each stage sees the area through MPBT LUT entries, so it invalidates its
 * MPBT lines before a chunk (CL1INVMB) and empties the write-combine buffer
 * after it, as on the chip.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../rcce/rcce_iface.h"
#include "pipeline_internal.h"
#include "scc_copy.h"
#include "scc_lut.h"

int pipe_check_layout(const scc_pipe_layout *l, size_t bytes, const char *where) {
  if (!l) return rcce_report(RCCE_ERROR_ID, where, "layout is NULL");
  if (l->stages < 1 || l->stages > rcce_ue_count())
    return rcce_report(RCCE_ERROR_NUM_UES, where, "%d stages on %d UEs", l->stages, rcce_ue_count());
  if (l->chunk == 0 || bytes == 0)
    return rcce_report(RCCE_ERROR_MESSAGE_LENGTH, where, "chunk %zu bytes, data %zu bytes", l->chunk, bytes);
  if (l->memory < SCC_PIPE_PRIVATE || l->memory > SCC_PIPE_SHARED_CACHED)
    return rcce_report(RCCE_ERROR_ILLEGAL_TYPE, where, "memory %d is none of SCC_PIPE_*", l->memory);
  unsigned char seen[RCCE_MAXNP] = {0};
  for (int s = 0; s < l->stages; s++) {
    int u = pipe_stage_ue(l, s);
    if (u < 0 || u >= rcce_ue_count() || seen[u]++)
      return rcce_report(RCCE_ERROR_ID, where, "stage %d's UE %d is outside 0..%d or runs another stage", s, u,
                         rcce_ue_count() - 1);
  }
  return RCCE_SUCCESS;
}

/* My stage in the layout, or -1. */
static int my_stage(const scc_pipe_layout *l) {
  for (int s = 0; s < l->stages; s++)
    if (pipe_stage_ue(l, s) == RCCE_ue()) return s;
  return -1;
}

struct stage_run {
  const scc_pipe_layout *l;
  int stage;
  unsigned char *work; /* private: my chunk buffer; shared: the area as I see it */
  const unsigned char *in;
  unsigned char *out;
  scc_pipe_stage fn;
  void *arg;
  double compute_s;
};

/* One chunk of b bytes at offset off through my stage. */
static int one_chunk(struct stage_run *r, size_t off, size_t b) {
  int last = r->stage == r->l->stages - 1, shared = r->l->memory != SCC_PIPE_PRIVATE;
  int cached = r->l->memory == SCC_PIPE_SHARED_CACHED, rc = RCCE_SUCCESS;
  unsigned char *chunk = shared ? r->work + off : r->work;
  uint32_t token = (uint32_t)(off / r->l->chunk);
  if (r->stage == 0) scc_copy_local(chunk, r->in + off, b);
  else
    rc = shared ? RCCE_recv((char *)&token, sizeof token, pipe_stage_ue(r->l, r->stage - 1))
                : RCCE_recv((char *)chunk, b, pipe_stage_ue(r->l, r->stage - 1));
  if (rc != RCCE_SUCCESS) return rc;
  if (cached) scc_cl1invmb();
  double t0 = RCCE_wtime();
  r->fn(chunk, b, r->stage, r->arg);
  r->compute_s += RCCE_wtime() - t0;
  if (cached) scc_wcb_flush();
  if (last) {
    scc_copy_local(r->out + off, chunk, b);
    return RCCE_SUCCESS;
  }
  int next = pipe_stage_ue(r->l, r->stage + 1);
  return shared ? RCCE_send((char *)&token, sizeof token, next) : RCCE_send((char *)chunk, b, next);
}

/* My part: every chunk through my stage. */
static int run_stage(struct stage_run *r, size_t bytes) {
  size_t chunk = r->l->chunk < bytes ? r->l->chunk : bytes;
  for (size_t off = 0; off < bytes; off += chunk) {
    int rc = one_chunk(r, off, bytes - off < chunk ? bytes - off : chunk);
    if (rc != RCCE_SUCCESS) return rc;
  }
  return RCCE_SUCCESS;
}

/* What this UE lacks to take part: the input on the first stage, the output
 * on the last, the function on any (RCCE_SUCCESS when nothing). */
static int my_arguments(const scc_pipe_layout *l, int stage, const void *in, void *out, scc_pipe_stage fn) {
  if (stage == 0 && !in) return rcce_report(RCCE_ERROR_SOURCE, "scc_pipe_run", "the first stage's input is NULL");
  if (stage == l->stages - 1 && !out)
    return rcce_report(RCCE_ERROR_TARGET, "scc_pipe_run", "the last stage's output is NULL");
  if (stage >= 0 && !fn) return rcce_report(RCCE_ERROR_ILLEGAL_OP, "scc_pipe_run", "the stage function is NULL");
  return RCCE_SUCCESS;
}

/* The largest of every UE's v (collective). */
static double max_over_ues(double v) {
  double all = v;
  RCCE_allreduce((char *)&v, (char *)&all, 1, RCCE_DOUBLE, RCCE_MAX, RCCE_COMM_WORLD);
  return all;
}

int scc_pipe_run(const scc_pipe_layout *l, const void *in, void *out, size_t bytes, scc_pipe_stage fn, void *arg,
                 scc_pipe_result *res) {
  int rc = pipe_check_layout(l, bytes, "scc_pipe_run"), stage = rc == RCCE_SUCCESS ? my_stage(l) : -1;
  if (rc != RCCE_SUCCESS) return rc;
  /* Everyone learns whether anyone lacks an argument before anything starts. */
  rc = (int)max_over_ues((double)my_arguments(l, stage, in, out, fn));
  if (rc != RCCE_SUCCESS) return rc;
  struct stage_run r = {l, stage, NULL, in, out, fn, arg, 0};
  unsigned char *area = l->memory == SCC_PIPE_PRIVATE ? NULL : (unsigned char *)RCCE_shmalloc(bytes);
  void *view = area;
  int ok = l->memory == SCC_PIPE_PRIVATE ? 1 : area != NULL;
  if (ok && stage >= 0 && l->memory == SCC_PIPE_SHARED_CACHED)
    ok = scc_map_shared(area, bytes, SCC_LUT_MPBT, &view) == SCC_LUT_SUCCESS;
  r.work = l->memory == SCC_PIPE_PRIVATE ? (stage >= 0 ? malloc(l->chunk < bytes ? l->chunk : bytes) : NULL) : view;
  if (stage >= 0 && !r.work) ok = 0;
  if (max_over_ues(ok ? 0 : 1) > 0) rc = RCCE_ERROR_MALLOC;
  double elapsed = 0;
  if (rc == RCCE_SUCCESS) {
    RCCE_barrier(&RCCE_COMM_WORLD);
    double t0 = RCCE_wtime();
    if (stage >= 0) rc = run_stage(&r, bytes);
    elapsed = RCCE_wtime() - t0;
  }
  if (res) {
    res->seconds = max_over_ues(elapsed);
    res->tc_per_byte = max_over_ues(r.compute_s / (double)bytes);
    res->predicted = scc_pipe_predict(l, bytes, res->tc_per_byte);
  }
  if (l->memory == SCC_PIPE_SHARED_CACHED && stage >= 0 && view != area) scc_unmap(view, bytes);
  if (l->memory == SCC_PIPE_PRIVATE) free(r.work);
  else if (area) RCCE_shfree(area);
  return rc;
}

/*
 * The pipeline cost model ([PIPELINE-2011] secs. III-IV, docs/data-movement.md
 * "Pipelines"): the time of a layout from the chip description, with the
 * stages' compute time per byte given (measured: scc_pipe_run reports it).
 *
 * A message of b bytes from stage i to stage j costs what the paper's eq. (3)
 * lists, each part priced with the chip's latencies rather than a link rate:
 * the sender writes the lines into its own MPB (mpb(i, b)), the receiver
 * reads them from there over dist(i, j) hops (tt(i, j, b): one outstanding
 * access, so each line pays the round trip), and RCCE's protocol adds per
 * piece of at most RCCE_chunk bytes a flag written to the peer's MPB and one
 * read in its own, each way, plus the library's work per call and step.  The
 * private-memory terms of eq. (3) are in the measured compute time (a stage
 * reads and writes its chunk there).  Shared memory moves a 4-byte token
 * instead.  The first stage copies a chunk in, the last copies it out (a
 * memory read a line and REP MOVSD's clocks a word).
 *
 * RCCE's messages are synchronous, so the stages move in lock-step: the
 * period is the slowest stage's receive + compute + send, and N chunks
 * through m stages take N + m - 1 periods.
 */
#include <stdint.h>

#include "../rcce/rcce_iface.h"
#include "pipeline_internal.h"

#define TOKEN_BYTES 4

static int core_of(int ue) { return hw_ue(rcce_job(), ue)->core; }

static int mhz_of(int ue) {
  const struct hw_job *job = rcce_job();
  int tile = chip_tile_of_core(&job->hdr->chip, core_of(ue));
  return chip_tile_mhz(&job->hdr->chip, __atomic_load_n(&hw_config(job)->tile_divider[tile], __ATOMIC_RELAXED));
}

static double seconds(double cycles, int ue) { return cycles / (mhz_of(ue) * 1e6); }

/* One message of b bytes from UE i to UE j (eq. 3 without the private-memory terms). */
static double message_seconds(int i, int j, size_t b) {
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  int ci = core_of(i), cj = core_of(j), fi = mhz_of(i), fj = mhz_of(j);
  double lines = (double)((b + (size_t)c->line_bytes - 1) / (size_t)c->line_bytes);
  size_t piece = RCCE_chunk ? (size_t)RCCE_chunk : b;
  double pieces = b ? (double)((b + piece - 1) / piece) : 1;
  double flag_i = chip_mpb_write_line_cycles(c, ci, cj, fi) + chip_mpb_read_cycles(c, ci, ci, fi);
  double flag_j = chip_mpb_write_line_cycles(c, cj, ci, fj) + chip_mpb_read_cycles(c, cj, cj, fj);
  double sender = c->time.sw_call_cycles + lines * chip_mpb_write_line_cycles(c, ci, ci, fi) +
                  pieces * (2 * c->time.sw_step_cycles + flag_i);
  double receiver = c->time.sw_call_cycles + lines * chip_mpb_read_cycles(c, cj, ci, fj) +
                    pieces * (2 * c->time.sw_step_cycles + flag_j);
  return seconds(sender, i) + seconds(receiver, j);
}

/* The first stage's copy of a chunk in from its memory, or the last's out. */
static double copy_seconds(int ue, size_t b) {
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  int core = core_of(ue);
  double lines = (double)((b + (size_t)c->line_bytes - 1) / (size_t)c->line_bytes);
  double per_line = chip_ddr_read_cycles(c, core, chip_nearest_mc(c, core), mhz_of(ue)) +
                    c->time.copy_word_cycles * (double)c->line_bytes / 4;
  return seconds(lines * per_line, ue);
}

/* How a chunk of b bytes goes from stage s to stage s + 1. */
static double pass_seconds(const scc_pipe_layout *l, int s, size_t b) {
  return message_seconds(pipe_stage_ue(l, s), pipe_stage_ue(l, s + 1), l->memory == SCC_PIPE_PRIVATE ? b : TOKEN_BYTES);
}

double scc_pipe_predict(const scc_pipe_layout *l, size_t bytes, double tc_per_byte) {
  if (!rcce_running() || pipe_check_layout(l, bytes, "scc_pipe_predict") != RCCE_SUCCESS) return 0;
  size_t chunk = l->chunk < bytes ? l->chunk : bytes;
  double period = 0, chunks = (double)((bytes + chunk - 1) / chunk);
  for (int s = 0; s < l->stages; s++) {
    double in = s == 0 ? copy_seconds(pipe_stage_ue(l, 0), chunk) : pass_seconds(l, s - 1, chunk);
    double out = s == l->stages - 1 ? copy_seconds(pipe_stage_ue(l, s), chunk) : pass_seconds(l, s, chunk);
    double t = in + tc_per_byte * (double)chunk + out;
    if (t > period) period = t;
  }
  return (chunks + l->stages - 1) * period;
}

/* A chain of `stages` UEs from `first`: each next the nearest unused UE on
 * the mesh (the lowest of equals). */
static void nearest_chain(int first, int stages, int *order) {
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  unsigned char used[RCCE_MAXNP] = {0};
  order[0] = first, used[first] = 1;
  for (int s = 1; s < stages; s++) {
    int best = -1, best_hops = 0;
    for (int u = 0; u < rcce_ue_count(); u++) {
      if (used[u]) continue;
      int hops = chip_mesh_hops(c, core_of(order[s - 1]), core_of(u));
      if (best < 0 || hops < best_hops) best = u, best_hops = hops;
    }
    order[s] = best, used[best] = 1;
  }
}

double scc_pipe_best(scc_pipe_layout *l, int stages, int memory, size_t bytes, double tc_per_byte, const size_t *chunks,
                     int nchunks, int *order_out) {
  if (!rcce_running() || !l || !order_out || !chunks || nchunks < 1 || stages < 1 || stages > rcce_ue_count()) return 0;
  int candidate[RCCE_MAXNP];
  double best = 0;
  for (int first = -1; first < rcce_ue_count(); first++) {
    if (first < 0)
      for (int s = 0; s < stages; s++) candidate[s] = s; /* the UEs in order */
    else nearest_chain(first, stages, candidate);
    for (int k = 0; k < nchunks; k++) {
      scc_pipe_layout try = {stages, candidate, chunks[k], memory};
      double t = scc_pipe_predict(&try, bytes, tc_per_byte);
      if (t > 0 && (best == 0 || t < best)) {
        best = t;
        for (int s = 0; s < stages; s++) order_out[s] = candidate[s];
        *l = (scc_pipe_layout){stages, order_out, chunks[k], memory};
      }
    }
  }
  return best;
}

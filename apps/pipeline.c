/*
 * pipeline.c - [PIPELINE-2011]'s pipeline (scc_pipeline.h): m stages on m
 * UEs, the data cut into chunks, each stage transforming every chunk in turn
 * (a byte-wise mixing function, the same at every stage, as the paper's
 * stages were: a stand-in for its DES / audio-filter examples).  For each
 * memory scheme (private memory and messages; shared memory, uncached; shared
 * memory seen through MPBT LUT entries) it runs the stages in UE order with
 * the given chunk, then the layout the cost model picks (stage order on the
 * mesh and chunk size, from the compute time the first run measured), and
 * prints for both the model's prediction beside the time measured (virtual
 * in model mode).  The last stage checks every byte against the stages
 * applied one after another.
 *
 * usage: pipeline [bytes=262144] [chunk=4096] [work=4]
 * (work: mixing rounds a byte per stage).  Prints
 * "pipeline: MEMORY LAYOUT chunk C order U0,U1,... predicted_s P measured_s T".
 */
#define APP_NAME "pipeline"
#include <stdlib.h>

#include "app_common.h"
#include "scc_pipeline.h"

static void mix(unsigned char *chunk, size_t bytes, int stage, void *arg) {
  int rounds = *(const int *)arg;
  for (size_t i = 0; i < bytes; i++) {
    unsigned x = chunk[i];
    for (int r = 0; r < rounds; r++) x = (x * 167u + 13u + (unsigned)stage) & 255u;
    chunk[i] = (unsigned char)x;
  }
}

/* The last stage's check: every stage applied in turn to the input. */
static void check(const unsigned char *in, const unsigned char *out, size_t bytes, int stages, int rounds,
                  const char *what) {
  unsigned char *expect = malloc(bytes);
  if (!expect) app_die("out of memory");
  memcpy(expect, in, bytes);
  for (int s = 0; s < stages; s++) mix(expect, bytes, s, &rounds);
  long bad = -1;
  for (size_t i = 0; i < bytes && bad < 0; i++)
    if (out[i] != expect[i]) bad = (long)i;
  if (bad >= 0) app_error("%s: byte %ld is %u, expected %u", what, bad, out[bad], expect[bad]);
  free(expect);
}

/* The UE of the last stage. */
static int order_last(const scc_pipe_layout *l) { return l->order ? l->order[l->stages - 1] : l->stages - 1; }

static void report(const char *memory, const char *layout, const scc_pipe_layout *l, const scc_pipe_result *r) {
  if (RCCE_ue() != 0) return;
  printf("%s: %s %s chunk %zu order ", APP_NAME, memory, layout, l->chunk);
  for (int s = 0; s < l->stages; s++) printf("%s%d", s ? "," : "", l->order ? l->order[s] : s);
  printf(" predicted_s %.6f measured_s %.6f\n", r->predicted, r->seconds);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"bytes", 262144, 1, 1L << 28}, {"chunk", 4096, 1, 1L << 28}, {"work", 4, 0, 1000}};
  int rc = app_args(argc, argv, args, 3, NULL);
  if (rc >= 0) return rc;
  size_t bytes = (size_t)args[0].value;
  int rounds = (int)args[2].value, m = RCCE_num_ues();
  unsigned char *in = malloc(bytes), *out = malloc(bytes);
  if (!in || !out) app_die("out of memory");
  app_fill(in, bytes, 12345);
  static const char *const names[] = {"private", "shared", "shared-cached"};
  static const size_t chunks[] = {256, 1024, 4096, 16384, 65536};
  int order[RCCE_MAXNP];
  for (int memory = SCC_PIPE_PRIVATE; memory <= SCC_PIPE_SHARED_CACHED; memory++) {
    scc_pipe_layout l = {m, NULL, (size_t)args[1].value, memory};
    scc_pipe_result r;
    /* A run that failed (e.g. no shared memory: rccerun --hosts) left no output to check. */
    if (app_rc(scc_pipe_run(&l, in, out, bytes, mix, &rounds, &r), "scc_pipe_run") != RCCE_SUCCESS) continue;
    report(names[memory], "ue-order", &l, &r);
    if (RCCE_ue() == order_last(&l)) check(in, out, bytes, m, rounds, names[memory]);
    scc_pipe_layout best;
    if (scc_pipe_best(&best, m, memory, bytes, r.tc_per_byte, chunks, 5, order) <= 0) app_die("scc_pipe_best");
    if (app_rc(scc_pipe_run(&best, in, out, bytes, mix, &rounds, &r), "scc_pipe_run (best)") != RCCE_SUCCESS) continue;
    report(names[memory], "model-best", &best, &r);
    if (RCCE_ue() == order_last(&best)) check(in, out, bytes, m, rounds, names[memory]);
  }
  free(in);
  free(out);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

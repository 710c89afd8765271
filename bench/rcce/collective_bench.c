/*
 * collective_bench.c - RCCE collective latency on RCCE_COMM_WORLD.
 *
 * Measures, per operation, the mean time of one
 *   barrier:   RCCE_barrier(&RCCE_COMM_WORLD)
 *   allreduce: RCCE_allreduce of one double, RCCE_SUM   (8 bytes)
 * over a time-boxed loop.  All UEs must run the same number of operations,
 * so UE 0 decides: after 1 warm-up op, calibration batches of 1, 2, 4, ...
 * ops are timed on UE 0, and after each batch UE 0 broadcasts (RCCE_bcast,
 * outside any timed region) either "double the batch" or "stop, the timed
 * loop has N ops", N sized so the loop lasts about the time box (-t, default
 * 0.2 s, at least -i ops, default 3).  One untimed barrier, then the timed
 * loop.  UE 0 prints
 *   {"bench":"barrier","impl":"rcce","ues":N,"size":0,"iters":...,"lat_us":...,"valid":true}
 *   {"bench":"allreduce","impl":"rcce","ues":N,"size":8,"iters":...,"lat_us":...,"valid":true}
 * "valid" is false if any allreduce result differed from the number of UEs.
 */
#include "../common/bench_common.h"
#include "RCCE.h"

static int np, me;
static int bad; /* allreduce results seen wrong on this UE */

static void op(int which) {
  if (which == 0) {
    RCCE_barrier(&RCCE_COMM_WORLD);
  } else {
    double in = 1.0, out = 0.0;
    RCCE_allreduce((char *)&in, (char *)&out, 1, RCCE_DOUBLE, RCCE_SUM, RCCE_COMM_WORLD);
    if (out != (double)np) bad++;
  }
}

static double batch(int which, long n) {
  double t0 = bench_now();
  for (long i = 0; i < n; i++) op(which);
  return bench_now() - t0;
}

static void measure(int which, const bench_opts *o) {
  bad = 0;
  op(which); /* warm-up */
  long n = 1, iters = 0;
  for (;;) {
    double dt = batch(which, n);
    int64_t ctl[2] = {0, 0}; /* {stop, n} */
    if (me == 0) {
      if (bench_calib_done(o->target_s, n, dt)) {
        ctl[0] = 1;
        ctl[1] = bench_iters_for(o->target_s, n, dt, o->min_iters);
      } else {
        ctl[1] = 2 * n;
      }
    }
    RCCE_bcast((char *)ctl, sizeof ctl, 0, RCCE_COMM_WORLD);
    if (ctl[0]) {
      iters = (long)ctl[1];
      break;
    }
    n = (long)ctl[1];
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  double dt = batch(which, iters);
  /* Combine the validity of all UEs (untimed).  A broken allreduce makes
   * this check unreliable too, but then UE 0's own results are wrong. */
  int64_t v = bad;
  if (which == 1) {
    double dbad = (double)bad, tot = 0.0;
    RCCE_allreduce((char *)&dbad, (char *)&tot, 1, RCCE_DOUBLE, RCCE_SUM, RCCE_COMM_WORLD);
    v = bad || tot != 0.0;
  }
  if (me == 0) {
    printf("{\"bench\":\"%s\",\"impl\":\"rcce\",\"ues\":%d,\"size\":%d,\"iters\":%ld,"
           "\"lat_us\":%.4f,\"valid\":%s}\n",
           which == 0 ? "barrier" : "allreduce", np, which == 0 ? 0 : 8, iters,
           dt / (double)iters * 1e6, v ? "false" : "true");
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  me = RCCE_ue();
  np = RCCE_num_ues();
  measure(0, &o);
  measure(1, &o);
  RCCE_finalize();
  return 0;
}

/*
 * collective_driver.h - barrier and 8-byte allreduce latency, shared by the
 * RCCE and MPI programs.  The including file defines BENCH_IMPL and
 *   static void xport_barrier(void);
 *   static double xport_allreduce_sum(double in);
 *   static void xport_bcast_ctl(int64_t ctl[2]);   (from rank 0)
 * and calls collective_run(me, np, &opts).
 *
 * All ranks must run the same number of operations, so rank 0 decides: after
 * one warm-up op, calibration batches of 1, 2, 4, ... ops are timed on rank 0,
 * and after each batch rank 0 broadcasts (outside any timed region) either
 * "double the batch" or "stop, the timed loop has N ops", N sized so the loop
 * lasts about the time box (-t, default 0.2 s, at least -i ops).  One untimed
 * barrier, then the timed loop.  Rank 0 prints
 *   {"bench":"barrier","impl":BENCH_IMPL,"ues":N,"size":0,"iters":...,"lat_us":...,"valid":true}
 *   {"bench":"allreduce","impl":BENCH_IMPL,"ues":N,"size":8,"iters":...,"lat_us":...,"valid":true}
 * "valid" is false if any allreduce result differed from the number of ranks.
 */
#ifndef BENCH_COLLECTIVE_DRIVER_H
#define BENCH_COLLECTIVE_DRIVER_H

#include "bench_common.h"

static int coll_bad; /* allreduce results seen wrong on this rank */

static void coll_op(int which, int np) {
  if (which == 0) xport_barrier();
  else if (xport_allreduce_sum(1.0) != (double)np) coll_bad++;
}

static double coll_batch(int which, int np, long n) {
  double t0 = bench_now();
  for (long i = 0; i < n; i++) coll_op(which, np);
  return bench_now() - t0;
}

static void coll_measure(int which, int me, int np, const bench_opts *o) {
  coll_bad = 0;
  coll_op(which, np); /* warm-up */
  long n = 1, iters = 0;
  for (;;) {
    double dt = coll_batch(which, np, n);
    int64_t ctl[2] = {0, 0}; /* {stop, n} */
    if (me == 0) {
      if (bench_calib_done(o->target_s, n, dt)) {
        ctl[0] = 1;
        ctl[1] = bench_iters_for(o->target_s, n, dt, o->min_iters);
      } else {
        ctl[1] = 2 * n;
      }
    }
    xport_bcast_ctl(ctl);
    if (ctl[0]) {
      iters = (long)ctl[1];
      break;
    }
    n = (long)ctl[1];
  }
  xport_barrier();
  double dt = coll_batch(which, np, iters);
  /* Combine the validity of all ranks (untimed). */
  int invalid = coll_bad != 0;
  if (which == 1) invalid = invalid || xport_allreduce_sum((double)coll_bad) != 0.0;
  if (me == 0) {
    printf("{\"bench\":\"%s\",\"impl\":\"%s\",\"ues\":%d,\"size\":%d,\"iters\":%ld,"
           "\"lat_us\":%.4f,\"valid\":%s}\n",
           which == 0 ? "barrier" : "allreduce", BENCH_IMPL, np, which == 0 ? 0 : 8, iters, dt / (double)iters * 1e6,
           invalid ? "false" : "true");
    fflush(stdout);
  }
}

static int collective_run(int me, int np, const bench_opts *o) {
  coll_measure(0, me, np, o);
  coll_measure(1, me, np, o);
  return 0;
}

#endif

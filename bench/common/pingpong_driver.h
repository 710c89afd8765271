/*
 * pingpong_driver.h - the ping-pong benchmark, shared by the RCCE and MPI
 * programs.  The including file defines BENCH_IMPL and
 *   static void xport_send(char *buf, long size, int peer);
 *   static void xport_recv(char *buf, long size, int peer);
 * (blocking, in order between one pair) and calls pingpong_run(me, np, &opts).
 *
 * Rank 0 drives each size and tells rank 1 what to do with a control message
 * {iterations, size} ({0, 0} = done).  Per size: a 2-iteration warm-up, then
 * calibration batches of 1, 2, 4, ... round trips until one lasts >= 10 % of
 * the time box, then one timed loop sized to last about the time box (-t,
 * default 0.2 s).  Rank 0 prints one JSON line per size with the mean half
 * round trip of the timed loop:
 *   {"bench":"pingpong","impl":BENCH_IMPL,"ues":N,"size":8,"iters":...,"half_rtt_us":...,"valid":true}
 * Ranks other than 0 and 1 do nothing.
 */
#ifndef BENCH_PINGPONG_DRIVER_H
#define BENCH_PINGPONG_DRIVER_H

#include "bench_common.h"

static char *pp_buf;

static void pp_send_ctl(long n, long size) {
  int64_t ctl[2] = {n, size};
  xport_send((char *)ctl, (long)sizeof ctl, 1);
}

/* Rank 0: n round trips of `size` bytes; elapsed seconds. */
static double pp_batch(long n, long size) {
  pp_send_ctl(n, size);
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    xport_send(pp_buf, size, 1);
    xport_recv(pp_buf, size, 1);
  }
  return bench_now() - t0;
}

static void pp_drive(int np, const bench_opts *o) {
  for (int k = 0; k < BENCH_PP_NSIZES; k++) {
    long size = bench_pp_sizes[k];
    if (size > o->max_size) break;
    pp_batch(2, size); /* warm-up */
    long n = 1;
    double dt = pp_batch(n, size);
    while (!bench_calib_done(o->target_s, n, dt)) {
      n *= 2;
      dt = pp_batch(n, size);
    }
    long iters = bench_iters_for(o->target_s, n, dt, o->min_iters);
    unsigned char pat = (unsigned char)(0x5a ^ k);
    if (size > 0) memset(pp_buf, pat, (size_t)size);
    dt = pp_batch(iters, size);
    int valid = size == 0 || ((unsigned char)pp_buf[0] == pat && (unsigned char)pp_buf[size - 1] == pat);
    printf("{\"bench\":\"pingpong\",\"impl\":\"%s\",\"ues\":%d,\"size\":%ld,\"iters\":%ld,"
           "\"half_rtt_us\":%.4f,\"valid\":%s}\n",
           BENCH_IMPL, np, size, iters, dt / (double)iters / 2.0 * 1e6, valid ? "true" : "false");
    fflush(stdout);
  }
  pp_send_ctl(0, 0);
}

static void pp_echo(void) {
  for (;;) {
    int64_t ctl[2];
    xport_recv((char *)ctl, (long)sizeof ctl, 0);
    if (ctl[0] == 0) break;
    for (long i = 0; i < (long)ctl[0]; i++) {
      xport_recv(pp_buf, (long)ctl[1], 0);
      xport_send(pp_buf, (long)ctl[1], 0);
    }
  }
}

/* Returns the program's exit status. */
static int pingpong_run(int me, int np, const bench_opts *o) {
  if (np < 2) {
    if (me == 0) fprintf(stderr, "pingpong (%s): needs at least 2 ranks (got %d)\n", BENCH_IMPL, np);
    return 1;
  }
  long maxbuf = o->max_size > 8 ? o->max_size : 8;
  pp_buf = malloc((size_t)maxbuf);
  if (!pp_buf) {
    fprintf(stderr, "pingpong (%s): out of memory\n", BENCH_IMPL);
    return 1;
  }
  memset(pp_buf, 0, (size_t)maxbuf); /* touch every page before timing */
  if (me == 0) pp_drive(np, o);
  else if (me == 1) pp_echo();
  free(pp_buf);
  return 0;
}

#endif

/*
 * pingpong_bench.c - RCCE half round-trip time between UE 0 and UE 1.
 *
 * Non-gory RCCE_send / RCCE_recv.  For each size UE 0 drives the test and
 * tells UE 1 what to do with an 8-byte-pair control message {iterations,
 * size} ({0, 0} = done).  Per size: a 2-iteration warm-up, then calibration
 * batches of 1, 2, 4, ... round trips until one lasts >= 10 % of the time
 * box, then one timed loop sized to last about the time box (-t, default
 * 0.2 s).  UE 0 prints one JSON line per size with the mean half round trip
 * of the timed loop:
 *   {"bench":"pingpong","impl":"rcce","ues":N,"size":8,"iters":...,
 *    "half_rtt_us":...,"valid":true}
 * UEs other than 0 and 1 only initialise and finalise.
 *
 * Note: in RCCE 1.x/2.0 a 0-byte RCCE_send/RCCE_recv returns at once without
 * synchronising, so the 0-byte line measures call overhead, not a message.
 */
#include "../common/bench_common.h"
#include "RCCE.h"

static char *buf;

static void send_ctl(long n, long size) {
  int64_t ctl[2] = {n, size};
  RCCE_send((char *)ctl, sizeof ctl, 1);
}

/* UE 0: run n round trips of `size` bytes; return elapsed seconds. */
static double batch(long n, long size) {
  send_ctl(n, size);
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    RCCE_send(buf, (size_t)size, 1);
    RCCE_recv(buf, (size_t)size, 1);
  }
  return bench_now() - t0;
}

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  int me = RCCE_ue(), np = RCCE_num_ues();
  if (np < 2) {
    if (me == 0) fprintf(stderr, "pingpong_bench: needs at least 2 UEs (got %d)\n", np);
    RCCE_finalize();
    return 1;
  }
  long maxbuf = o.max_size > 8 ? o.max_size : 8;
  buf = malloc((size_t)maxbuf);
  if (!buf) {
    fprintf(stderr, "pingpong_bench: out of memory\n");
    return 1;
  }
  memset(buf, 0, (size_t)maxbuf);

  if (me == 0) {
    for (int k = 0; k < BENCH_PP_NSIZES; k++) {
      long size = bench_pp_sizes[k];
      if (size > o.max_size) break;
      batch(2, size); /* warm-up */
      long n = 1;
      double dt = batch(n, size);
      while (!bench_calib_done(o.target_s, n, dt)) {
        n *= 2;
        dt = batch(n, size);
      }
      long iters = bench_iters_for(o.target_s, n, dt, o.min_iters);
      unsigned char pat = (unsigned char)(0x5a ^ k);
      if (size > 0) memset(buf, pat, (size_t)size);
      dt = batch(iters, size);
      int valid = size == 0 || ((unsigned char)buf[0] == pat && (unsigned char)buf[size - 1] == pat);
      printf("{\"bench\":\"pingpong\",\"impl\":\"rcce\",\"ues\":%d,\"size\":%ld,\"iters\":%ld,"
             "\"half_rtt_us\":%.4f,\"valid\":%s}\n",
             np, size, iters, dt / (double)iters / 2.0 * 1e6, valid ? "true" : "false");
      fflush(stdout);
    }
    send_ctl(0, 0);
  } else if (me == 1) {
    for (;;) {
      int64_t ctl[2];
      RCCE_recv((char *)ctl, sizeof ctl, 0);
      if (ctl[0] == 0) break;
      for (long i = 0; i < (long)ctl[0]; i++) {
        RCCE_recv(buf, (size_t)ctl[1], 0);
        RCCE_send(buf, (size_t)ctl[1], 0);
      }
    }
  }
  free(buf);
  RCCE_finalize();
  return 0;
}

/*
 * bcast.c - one-to-all messages: a hand-written fan-out against RCCE_bcast.
 *
 * For sizes 1, 2, 4, ... max_bytes: first UE 0 sends the message to every
 * other UE in turn with RCCE_send (each receiver RCCE_recv's from UE 0),
 * then the same sizes go through the collective RCCE_bcast(..., 0,
 * RCCE_COMM_WORLD).  The content is a pattern of (size, iteration, phase)
 * and every UE checks every byte, the root included after RCCE_bcast.  The
 * per-iteration time of each size is the maximum over UEs (RCCE_reduce with
 * RCCE_MAX to UE 0).
 *
 * Mirrors the "Bcast" microbenchmark of [FURST-2011] (docs/references.md) (Furst & Coskun), which
 * derived it from Pingpong: one core sending to N others.
 *
 * usage: bcast [max_bytes=65536] [iterations=20]
 */
#define APP_NAME "bcast"
#include "app_common.h"

#define MAX_SIZES 32

/* Runs `iterations` rounds of one phase for one size; returns seconds per round. */
static double phase(int collective, char *buf, size_t bytes, int iterations) {
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  for (int it = 0; it < iterations; it++) {
    uint32_t seed = app_seed((uint32_t)bytes, (uint32_t)it, collective ? 0xBCu : 0xF0u);
    if (me == 0) app_fill(buf, bytes, seed);
    if (collective) {
      app_rc(RCCE_bcast(buf, bytes, 0, RCCE_COMM_WORLD), "RCCE_bcast");
    } else if (me == 0) {
      for (int ue = 1; ue < np; ue++) app_rc(RCCE_send(buf, bytes, ue), "RCCE_send");
    } else {
      app_rc(RCCE_recv(buf, bytes, 0), "RCCE_recv");
    }
    long bad = app_check(buf, bytes, seed);
    if (bad >= 0)
      app_error("%s of %zu bytes, iteration %d: byte %ld is wrong", collective ? "RCCE_bcast" : "fan-out", bytes, it,
                bad);
  }
  return (RCCE_wtime() - t0) / iterations;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"max_bytes", 65536, 1, 1L << 26}, {"iterations", 20, 1, 1000000}};
  int rc = app_args(argc, argv, args, 2, NULL);
  if (rc >= 0) {
    RCCE_finalize();
    return rc;
  }
  size_t max_bytes = (size_t)args[0].value;
  int iterations = (int)args[1].value;
  int me = RCCE_ue(), np = RCCE_num_ues();

  char *buf = malloc(max_bytes);
  if (!buf) app_die("out of memory");

  /* times[0][k]: fan-out, times[1][k]: RCCE_bcast, for size 2^k */
  double times[2][MAX_SIZES] = {{0.0}}, worst[2][MAX_SIZES] = {{0.0}};
  int nsizes = 0;
  for (size_t bytes = 1; bytes <= max_bytes; bytes *= 2) nsizes++;
  for (int collective = 0; collective < 2; collective++)
    for (int k = 0; k < nsizes; k++) times[collective][k] = phase(collective, buf, (size_t)1 << k, iterations);
  app_rc(RCCE_reduce((char *)times, (char *)worst, 2 * MAX_SIZES, RCCE_DOUBLE, RCCE_MAX, 0, RCCE_COMM_WORLD),
         "RCCE_reduce(MAX)");

  if (me == 0) {
    printf("bcast: UE 0 to %d other UE(s), %d iterations per size%s\n", np - 1, iterations,
           np == 1 ? " (no receivers: nothing is sent)" : "");
    printf("%10s %14s %14s\n", "bytes", "fanout_us", "bcast_us");
    for (int k = 0; k < nsizes; k++)
      printf("%10zu %14.3f %14.3f\n", (size_t)1 << k, worst[0][k] * 1e6, worst[1][k] * 1e6);
  }
  free(buf);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/*
 * pingpong.c - round-trip latency and bandwidth between UE pairs.
 *
 * UEs 2k and 2k+1 bounce messages of 0, 1, 2, 4, ... max_bytes bytes; all
 * pairs run concurrently (with an odd count the last UE idles).  Every
 * message carries a pattern derived from (size, iteration, sender) and the
 * receiver checks every byte.  UE 0 prints, for its pair, the half
 * round-trip time (latency) and bytes / latency (bandwidth), measured with
 * RCCE_wtime around the transfers only.
 *
 * Mirrors the "Pingpong" benchmark of Intel's RCCE suite as used in seed 002
 * (Furst & Coskun, "Performance and Power Analysis of RCCE Message Passing on
 * the Intel SCC"), and the ping-pong curves of seeds 001 and 004.
 *
 * usage: pingpong [max_bytes=4194304] [iterations=100]
 * Large sizes use fewer iterations (at most BUDGET bytes per size and
 * direction), so a 4 MB run stays short.
 */
#define APP_NAME "pingpong"
#include "app_common.h"

#define BUDGET (8L << 20)

static int iterations_for(long bytes, int iterations) {
  if (bytes == 0 || bytes * iterations <= BUDGET) return iterations;
  return BUDGET / bytes > 0 ? (int)(BUDGET / bytes) : 1;
}

/* One round trip; the initiator (even UE) sends first.  Each side fills its
   reply before the transfer and checks what it got after, so the time the
   initiator returns covers the transfers, not the pattern work. */
static double round_trip(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  int me = RCCE_ue(), initiator = (me % 2 == 0);
  double t = 0.0;
  app_fill(sbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)me));
  if (initiator) {
    double t0 = RCCE_wtime();
    app_rc(RCCE_send(sbuf, bytes, partner), "RCCE_send");
    app_rc(RCCE_recv(rbuf, bytes, partner), "RCCE_recv");
    t = RCCE_wtime() - t0;
  } else {
    app_rc(RCCE_recv(rbuf, bytes, partner), "RCCE_recv");
    app_rc(RCCE_send(sbuf, bytes, partner), "RCCE_send");
  }
  long bad = app_check(rbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)partner));
  if (bad >= 0)
    app_error("%zu-byte message %d from UE %d: byte %ld is wrong", bytes, it, partner, bad);
  return t;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"max_bytes", 4194304, 0, 1L << 28}, {"iterations", 100, 1, 1000000}};
  int rc = app_args(argc, argv, args, 2, NULL);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  size_t max_bytes = (size_t)args[0].value;
  int iterations = (int)args[1].value;
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_group pair = app_group_of(1);
  int partner = pair.size == 2 ? app_group_ue(pair, pair.rank + 1) : -1;

  char *sbuf = malloc(max_bytes + 1), *rbuf = malloc(max_bytes + 1);
  if (!sbuf || !rbuf) app_die("out of memory");

  if (me == 0) {
    printf("pingpong: %d pair(s) running concurrently%s; table for UEs 0 <-> 1\n", np / 2,
           np % 2 ? ", last UE idle" : "");
    printf("%10s %8s %14s %12s\n", "bytes", "iters", "latency_us", "MB/s");
  }
  for (size_t bytes = 0; bytes <= max_bytes; bytes = bytes ? 2 * bytes : 1) {
    int iters = iterations_for((long)bytes, iterations);
    double t = 0.0;
    if (partner >= 0) {
      round_trip(sbuf, rbuf, bytes, -1, partner); /* warm-up, not timed */
      for (int it = 0; it < iters; it++) t += round_trip(sbuf, rbuf, bytes, it, partner);
    }
    if (me == 0) {
      double half = t / iters / 2.0;
      printf("%10zu %8d %14.3f %12.2f\n", bytes, iters, half * 1e6,
             half > 0.0 ? (double)bytes / half / 1e6 : 0.0);
      fflush(stdout);
    }
  }

  free(sbuf);
  free(rbuf);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

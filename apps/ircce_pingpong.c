/*
 * ircce_pingpong.c - round-trip latency and bandwidth between UE pairs with
 * iRCCE's blocking synchronous send/receive.
 *
 * The same measurement as apps/pingpong.c, but every transfer goes through
 * iRCCE_send / iRCCE_recv (iRCCE 2.0's names for iRCCE_ssend / iRCCE_srecv):
 * the pipelined protocol of iRCCE, which splits the send buffer into two
 * halves so that the sender fills one half while the receiver empties the
 * other.  UEs 2k and 2k+1 bounce messages of 1, 2, 4, ... max_bytes bytes;
 * all pairs run concurrently (with an odd count the last UE idles).  Every
 * message carries a pattern derived from (size, iteration, sender) and the
 * receiver checks every byte.  UE 0 prints, for its pair, the half
 * round-trip time (latency) and bytes / latency (bandwidth) in the same
 * table format as pingpong, so one parser reads both.
 *
 * Mirrors the iRCCE PingPong of seed 004 (Reble, Clauss, Riepen, Lankes,
 * Bemmerl, "Connecting the Cloud: Transparent and Flexible Communication for
 * a Cluster of Intel SCCs"): its throughput curve (Fig. 3) and its latency
 * table for normal vs tagged flags and the remote-put/local-get scheme
 * (Table I), which rccerun's --flags tagged and --scheme rplg select here.
 * Run apps/pingpong next to it for RCCE's blocking send/receive.
 *
 * usage: ircce_pingpong [max_bytes=1048576] [iterations=100]
 * Large sizes use fewer iterations (at most BUDGET bytes per size and
 * direction).
 */
#define APP_NAME "ircce_pingpong"
#include "app_common.h"
#include "iRCCE.h"

#define BUDGET (8L << 20)

static int iterations_for(long bytes, int iterations) {
  if (bytes * iterations <= BUDGET) return iterations;
  return BUDGET / bytes > 0 ? (int)(BUDGET / bytes) : 1;
}

/* One round trip; the initiator (even UE) sends first.  Patterns are made
   before and checked after the timed part. */
static double round_trip(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  int me = RCCE_ue(), initiator = (me % 2 == 0);
  double t = 0.0;
  app_fill(sbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)me));
  if (initiator) {
    double t0 = RCCE_wtime();
    app_rc(iRCCE_send(sbuf, (ssize_t)bytes, partner), "iRCCE_send");
    app_rc(iRCCE_recv(rbuf, (ssize_t)bytes, partner), "iRCCE_recv");
    t = RCCE_wtime() - t0;
  } else {
    app_rc(iRCCE_recv(rbuf, (ssize_t)bytes, partner), "iRCCE_recv");
    app_rc(iRCCE_send(sbuf, (ssize_t)bytes, partner), "iRCCE_send");
  }
  long bad = app_check(rbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)partner));
  if (bad >= 0)
    app_error("%zu-byte message %d from UE %d: byte %ld is wrong", bytes, it, partner, bad);
  return t;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  app_arg args[] = {{"max_bytes", 1048576, 1, 1L << 28}, {"iterations", 100, 1, 1000000}};
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

  char *sbuf = malloc(max_bytes), *rbuf = malloc(max_bytes);
  if (!sbuf || !rbuf) app_die("out of memory");

  if (me == 0) {
    printf("ircce_pingpong: %d pair(s) running concurrently%s; table for UEs 0 <-> 1\n", np / 2,
           np % 2 ? ", last UE idle" : "");
    printf("%10s %8s %14s %12s\n", "bytes", "iters", "latency_us", "MB/s");
  }
  for (size_t bytes = 1; bytes <= max_bytes; bytes *= 2) {
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

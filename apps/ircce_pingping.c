/*
 * ircce_pingping.c - simultaneous exchange between UE pairs with iRCCE's
 * non-blocking send and receive.
 *
 * In a ping-pong only one side sends at a time.  Here both UEs of a pair
 * (2k, 2k+1) start an iRCCE_irecv from the partner and an iRCCE_isend to
 * the partner at the same moment, then wait for both requests through a
 * wait list (iRCCE_wait_all).  With RCCE's blocking, synchronous
 * RCCE_send this pattern deadlocks (both would send first); with requests
 * both messages move at once, each UE's send buffer feeding the other's
 * receive, so the exchange costs about one transfer rather than two.
 *
 * Sizes are 1, 2, 4, ... max_bytes bytes; all pairs run concurrently (with
 * an odd count the last UE idles).  Every message carries a pattern derived
 * from (size, iteration, sender) and the receiver checks every byte.  UE 0
 * prints, for its pair, the time per exchange (both messages done, in us)
 * and the aggregate bandwidth of the pair: 2 x bytes / time, in MB/s
 * (10^6 bytes per second).
 *
 * Mirrors the non-blocking exchange iRCCE was built for (seed 004, Reble et
 * al., "Connecting the Cloud: Transparent and Flexible Communication for a
 * Cluster of Intel SCCs", section IV.B on iRCCE) and the PingPing test of
 * MPI benchmark suites; bench/ircce runs the same pattern against MPICH and
 * Open MPI.
 *
 * usage: ircce_pingping [max_bytes=1048576] [iterations=100]
 * Large sizes use fewer iterations (at most BUDGET bytes per size and
 * direction).
 */
#define APP_NAME "ircce_pingping"
#include "app_common.h"
#include "iRCCE.h"

#define BUDGET (8L << 20)

static int iterations_for(long bytes, int iterations) {
  if (bytes * iterations <= BUDGET) return iterations;
  return BUDGET / bytes > 0 ? (int)(BUDGET / bytes) : 1;
}

/* One exchange: receive and send posted together, then both waited for.
   Returns the time from posting to completion of both. */
static double exchange(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  iRCCE_SEND_REQUEST sreq;
  iRCCE_RECV_REQUEST rreq;
  iRCCE_WAIT_LIST list;
  int me = RCCE_ue();
  app_fill(sbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)me));
  memset(rbuf, 0, bytes);
  double t0 = RCCE_wtime();
  int rr = iRCCE_irecv(rbuf, (ssize_t)bytes, partner, &rreq);
  int rs = iRCCE_isend(sbuf, (ssize_t)bytes, partner, &sreq);
  if (rr != iRCCE_SUCCESS && rr != iRCCE_PENDING) app_rc(rr, "iRCCE_irecv");
  if (rs != iRCCE_SUCCESS && rs != iRCCE_PENDING) app_rc(rs, "iRCCE_isend");
  iRCCE_init_wait_list(&list);
  /* A request that completed at once is not waited for again. */
  if (rr == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, NULL, &rreq);
  if (rs == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, &sreq, NULL);
  if (list.first) app_rc(iRCCE_wait_all(&list), "iRCCE_wait_all");
  double t = RCCE_wtime() - t0;
  if (!rreq.finished || !sreq.finished) app_error("%zu-byte exchange %d: request not finished", bytes, it);
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
    printf("ircce_pingping: %d pair(s) running concurrently%s; table for UEs 0 <-> 1\n", np / 2,
           np % 2 ? ", last UE idle" : "");
    printf("%10s %8s %14s %12s\n", "bytes", "iters", "exchange_us", "MB/s");
  }
  for (size_t bytes = 1; bytes <= max_bytes; bytes *= 2) {
    int iters = iterations_for((long)bytes, iterations);
    double t = 0.0;
    if (partner >= 0) {
      exchange(sbuf, rbuf, bytes, -1, partner); /* warm-up, not timed */
      for (int it = 0; it < iters; it++) t += exchange(sbuf, rbuf, bytes, it, partner);
    }
    if (me == 0) {
      double per = t / iters;
      printf("%10zu %8d %14.3f %12.2f\n", bytes, iters, per * 1e6,
             per > 0.0 ? 2.0 * (double)bytes / per / 1e6 : 0.0);
      fflush(stdout);
    }
  }

  free(sbuf);
  free(rbuf);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

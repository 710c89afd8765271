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
 * Mirrors the non-blocking exchange iRCCE was built for ([SCC-2BOARD] (docs/references.md), Reble et
 * al., "Connecting the Cloud: Transparent and Flexible Communication for a
 * Cluster of Intel SCCs", section IV.B on iRCCE) and the PingPing test of
 * MPI benchmark suites; bench/ircce runs the same pattern against MPICH and
 * Open MPI.
 *
 * usage: ircce_pingping [max_bytes=1048576] [iterations=100]
 * Large sizes use fewer iterations (at most PAIR_BUDGET bytes per size and
 * direction, apps/pair_table.h).
 */
#define APP_NAME "ircce_pingping"
#include "pair_table.h"
#include "iRCCE.h"

/* One exchange: receive and send posted together, then both waited for.
   Returns the time from posting to completion of both. */
static double exchange(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  iRCCE_SEND_REQUEST sreq;
  iRCCE_RECV_REQUEST rreq;
  iRCCE_WAIT_LIST list;
  pair_fill(sbuf, bytes, it);
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
  pair_check(rbuf, bytes, it, partner);
  return t;
}

int RCCE_APP(int argc, char **argv) {
  /* a row's time is one exchange, in which both messages move */
  static const pair_table table = {.transfer = exchange,
                                   .min_bytes = 1,
                                   .default_max_bytes = 1048576,
                                   .time_column = "exchange_us",
                                   .parts = 1.0,
                                   .messages = 2.0};
  RCCE_init(&argc, &argv);
  iRCCE_init();
  return pair_table_main(argc, argv, &table);
}

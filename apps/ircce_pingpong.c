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
 * Mirrors the iRCCE PingPong of [SCC-2BOARD] (docs/references.md) (Reble, Clauss, Riepen, Lankes,
 * Bemmerl, "Connecting the Cloud: Transparent and Flexible Communication for
 * a Cluster of Intel SCCs"): its throughput curve (Fig. 3) and its latency
 * table for normal vs tagged flags and the remote-put/local-get scheme
 * (Table I), which rccerun's --flags tagged and --scheme rplg select here.
 * Run apps/pingpong next to it for RCCE's blocking send/receive.
 *
 * usage: ircce_pingpong [max_bytes=1048576] [iterations=100]
 * Large sizes use fewer iterations (at most PAIR_BUDGET bytes per size and
 * direction, apps/pair_table.h).
 */
#define APP_NAME "ircce_pingpong"
#include "pair_table.h"
#include "iRCCE.h"

/* One round trip; the initiator (even UE) sends first.  Patterns are made
   before and checked after the timed part. */
static double round_trip(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  double t = 0.0;
  pair_fill(sbuf, bytes, it);
  if (RCCE_ue() % 2 == 0) {
    double t0 = RCCE_wtime();
    app_rc(iRCCE_send(sbuf, (ssize_t)bytes, partner), "iRCCE_send");
    app_rc(iRCCE_recv(rbuf, (ssize_t)bytes, partner), "iRCCE_recv");
    t = RCCE_wtime() - t0;
  } else {
    app_rc(iRCCE_recv(rbuf, (ssize_t)bytes, partner), "iRCCE_recv");
    app_rc(iRCCE_send(sbuf, (ssize_t)bytes, partner), "iRCCE_send");
  }
  pair_check(rbuf, bytes, it, partner);
  return t;
}

int RCCE_APP(int argc, char **argv) {
  static const pair_table table = {.transfer = round_trip,
                                   .min_bytes = 1,
                                   .default_max_bytes = 1048576,
                                   .time_column = "latency_us",
                                   .parts = 2.0,
                                   .messages = 1.0};
  RCCE_init(&argc, &argv);
  iRCCE_init();
  return pair_table_main(argc, argv, &table);
}

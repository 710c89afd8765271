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
 * Mirrors the "Pingpong" benchmark of Intel's RCCE suite as used in [FURST-2011] (docs/references.md)
 * (Furst & Coskun, "Performance and Power Analysis of RCCE Message Passing on
 * the Intel SCC"), and the ping-pong curves of [SVP-SCC] and [SCC-2BOARD].
 *
 * usage: pingpong [max_bytes=4194304] [iterations=100]
 * Large sizes use fewer iterations (at most PAIR_BUDGET bytes per size and
 * direction, apps/pair_table.h), so a 4 MB run stays short.
 */
#define APP_NAME "pingpong"
#include "pair_table.h"

/* One round trip; the initiator (even UE) sends first.  Each side fills its
   reply before the transfer and checks what it got after, so the time the
   initiator returns covers the transfers, not the pattern work. */
static double round_trip(char *sbuf, char *rbuf, size_t bytes, int it, int partner) {
  double t = 0.0;
  pair_fill(sbuf, bytes, it);
  if (RCCE_ue() % 2 == 0) {
    double t0 = RCCE_wtime();
    app_rc(RCCE_send(sbuf, bytes, partner), "RCCE_send");
    app_rc(RCCE_recv(rbuf, bytes, partner), "RCCE_recv");
    t = RCCE_wtime() - t0;
  } else {
    app_rc(RCCE_recv(rbuf, bytes, partner), "RCCE_recv");
    app_rc(RCCE_send(sbuf, bytes, partner), "RCCE_send");
  }
  pair_check(rbuf, bytes, it, partner);
  return t;
}

int RCCE_APP(int argc, char **argv) {
  static const pair_table table = {.transfer = round_trip,
                                   .min_bytes = 0,
                                   .default_max_bytes = 4194304,
                                   .time_column = "latency_us",
                                   .parts = 2.0,
                                   .messages = 1.0};
  RCCE_init(&argc, &argv);
  return pair_table_main(argc, argv, &table);
}

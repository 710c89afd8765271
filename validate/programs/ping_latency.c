/*
 * ping_latency.c - half round-trip latency of one message size between UEs 0
 * and 1, as in the ping-pong of [SCC-2BOARD] Table I (docs/references.md): nothing but the
 * transfers in the timed loop (iRCCE_isend/irecv + wait, so --flags and
 * --scheme select the protocol).  With "any", receives take iRCCE_ANY_SOURCE:
 * what [SCC-2BOARD]'s probe flags were for (a receiver learning who sent).
 *
 * usage: ping_latency [bytes=8] [iterations=1000] [any]
 * prints: half_rtt_us <value>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "iRCCE.h"

static int any_source; /* receive from iRCCE_ANY_SOURCE */

static void exchange(char *buf, int bytes, int partner, int first) {
  iRCCE_SEND_REQUEST s;
  iRCCE_RECV_REQUEST r;
  if (first) {
    if (iRCCE_isend(buf, bytes, partner, &s) == iRCCE_PENDING) iRCCE_isend_wait(&s);
    if (iRCCE_irecv(buf, bytes, any_source ? iRCCE_ANY_SOURCE : partner, &r) == iRCCE_PENDING) iRCCE_irecv_wait(&r);
  } else {
    if (iRCCE_irecv(buf, bytes, any_source ? iRCCE_ANY_SOURCE : partner, &r) == iRCCE_PENDING) iRCCE_irecv_wait(&r);
    if (iRCCE_isend(buf, bytes, partner, &s) == iRCCE_PENDING) iRCCE_isend_wait(&s);
  }
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int bytes = argc > 1 ? atoi(argv[1]) : 8, iterations = argc > 2 ? atoi(argv[2]) : 1000;
  any_source = argc > 3 && !strcmp(argv[3], "any");
  static char buf[1 << 20];
  if (RCCE_num_ues() != 2 || bytes < 1 || bytes > (int)sizeof buf || iterations < 1) {
    if (RCCE_ue() == 0) fprintf(stderr, "ping_latency: needs 2 UEs, 1..%zu bytes, iterations >= 1\n", sizeof buf);
    RCCE_finalize();
    return 2;
  }
  int me = RCCE_ue(), partner = 1 - me;
  for (int i = 0; i < 10; i++) exchange(buf, bytes, partner, me == 0);
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = RCCE_wtime();
  for (int i = 0; i < iterations; i++) exchange(buf, bytes, partner, me == 0);
  double t = RCCE_wtime() - t0;
  if (me == 0) printf("half_rtt_us %.4f\n", t / iterations / 2 * 1e6);
  RCCE_finalize();
  return 0;
}

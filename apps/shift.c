/*
 * shift.c - messages passed around a logical ring of UEs.
 *
 * Every iteration each UE sends a `bytes`-byte message to its successor
 * (me+1)%N and receives one from its predecessor (me-1+N)%N.  The content is
 * a pattern of (bytes, iteration, sender) and is checked on arrival.  As
 * RCCE_send is synchronous, even ranks send first and odd ranks receive
 * first, which is deadlock-free for any ring size >= 2.  With --pairs each
 * pair (2k, 2k+1) is its own ring of two (an odd last UE idles).
 *
 * Mirrors the "Shift" benchmark of Intel's RCCE suite as used in [FURST-2011] (docs/references.md)
 * (Furst & Coskun), a message-intensive code with fixed 128-byte messages.
 *
 * usage: shift [iterations=1000] [bytes=128] [--pairs]
 */
#define APP_NAME "shift"
#include "app_common.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"iterations", 1000, 1, 100000000}, {"bytes", 128, 1, 1L << 26}};
  int pairs;
  int rc = app_args(argc, argv, args, 2, &pairs);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int iterations = (int)args[0].value;
  size_t bytes = (size_t)args[1].value;
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_group ring = app_group_of(pairs);
  int next = app_group_ue(ring, ring.rank + 1), prev = app_group_ue(ring, ring.rank - 1);

  char *sbuf = malloc(bytes), *rbuf = malloc(bytes);
  if (!sbuf || !rbuf) app_die("out of memory");

  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  for (int it = 0; ring.size >= 2 && it < iterations; it++) {
    app_fill(sbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)me));
    if (ring.rank % 2 == 0) {
      app_rc(RCCE_send(sbuf, bytes, next), "RCCE_send");
      app_rc(RCCE_recv(rbuf, bytes, prev), "RCCE_recv");
    } else {
      app_rc(RCCE_recv(rbuf, bytes, prev), "RCCE_recv");
      app_rc(RCCE_send(sbuf, bytes, next), "RCCE_send");
    }
    long bad = app_check(rbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)prev));
    if (bad >= 0) app_error("iteration %d: message from UE %d wrong at byte %ld", it, prev, bad);
  }
  double t = app_max_time(RCCE_wtime() - t0);

  if (me == 0) {
    if (pairs) printf("shift: %d pair(s)%s, ", np / 2, np % 2 ? " (last UE idle)" : "");
    else printf("shift: ring of %d UEs, ", np);
    printf("%d iterations x %zu bytes: %.6f s, %.3f us per iteration\n", iterations, bytes, t, t / iterations * 1e6);
  }
  free(sbuf);
  free(rbuf);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

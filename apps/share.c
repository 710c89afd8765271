/*
 * share.c - off-chip shared memory updated under a baton passed by message.
 *
 * All UEs call RCCE_shmalloc identically and get the same shared array.  A
 * baton (a tiny message) travels `iterations` times around the ring of UEs;
 * its holder first checks that the array shows every earlier update, then
 * adds (its ue+1) to every element, calls RCCE_shflush() and passes the
 * baton on.  At the end every UE verifies each element equals
 * iterations * sum(ue+1 over the ring).  With --pairs each pair (2k, 2k+1)
 * has its own slice of the array and its own baton (an odd last UE idles);
 * with 1 UE and no --pairs the UE updates the array alone.
 *
 * Mirrors the "Share" benchmark of Intel's RCCE suite as used in [FURST-2011] (docs/references.md)
 * (Furst & Coskun): memory-bound, almost no messages, slowed down by
 * contention at the memory controllers when 24 pairs run at once.
 *
 * usage: share [iterations=100] [words=1024] [--pairs]
 */
#define APP_NAME "share"
#include "app_common.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"iterations", 100, 1, 1000000}, {"words", 1024, 1, 1L << 22}};
  int pairs;
  int rc = app_args(argc, argv, args, 2, &pairs);
  if (rc >= 0 || (pairs && app_alone())) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int iterations = (int)args[0].value;
  size_t words = (size_t)args[1].value;
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_group ring = app_group_of(pairs);
  int active = !(pairs && ring.size < 2);
  int next = app_group_ue(ring, ring.rank + 1), prev = app_group_ue(ring, ring.rank - 1);

  /* One slice per group; unsigned, so long runs wrap instead of overflowing. */
  int ngroups = pairs ? (np + 1) / 2 : 1;
  size_t total = (size_t)ngroups * words * sizeof(unsigned);
  volatile unsigned *all = (volatile unsigned *)RCCE_shmalloc(total);
  if (!all) app_die("RCCE_shmalloc returned NULL");
  volatile unsigned *a = all + (size_t)(pairs ? me / 2 : 0) * words;

  unsigned ring_sum = 0, before_me = 0; /* sum of (ue+1) over the ring / earlier ranks */
  for (int r = 0; r < ring.size; r++) {
    ring_sum += (unsigned)(ring.first + r + 1);
    if (r < ring.rank) before_me += (unsigned)(ring.first + r + 1);
  }
  if (active && ring.rank == 0) {
    for (size_t i = 0; i < words; i++) a[i] = 0;
    RCCE_shflush();
  }

  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  for (int it = 0; active && it < iterations; it++) {
    int baton[2];
    if (ring.size > 1 && (ring.rank > 0 || it > 0)) {
      app_rc(RCCE_recv((char *)baton, sizeof baton, prev), "RCCE_recv");
      int want = ring.rank > 0 ? it : it - 1;
      if (baton[0] != want || baton[1] != prev)
        app_error("baton says (iteration %d, UE %d), expected (%d, %d)", baton[0], baton[1], want, prev);
    }
    unsigned expect = (unsigned)it * ring_sum + before_me;
    for (size_t i = 0; i < words; i++) {
      if (a[i] != expect) {
        app_error("iteration %d: element %zu is %u before my update, expected %u", it, i, a[i], expect);
        break;
      }
    }
    for (size_t i = 0; i < words; i++) a[i] += (unsigned)(me + 1);
    RCCE_shflush();
    if (ring.size > 1 && (ring.rank < ring.size - 1 || it < iterations - 1)) {
      baton[0] = it;
      baton[1] = me;
      app_rc(RCCE_send((char *)baton, sizeof baton, next), "RCCE_send");
    }
  }
  double t = app_max_time(RCCE_wtime() - t0);
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");

  unsigned final = (unsigned)iterations * ring_sum;
  for (size_t i = 0; active && i < words; i++) {
    if (a[i] != final) {
      app_error("final element %zu is %u, expected %u", i, a[i], final);
      break;
    }
  }
  if (me == 0) {
    if (pairs) printf("share: %d pair(s)%s, ", np / 2, np % 2 ? " (last UE idle)" : "");
    else printf("share: ring of %d UE(s), ", np);
    printf("%d iterations over %zu shared words: %.6f s\n", iterations, words, t);
  }
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  RCCE_shfree((t_vcharp)all);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/*
 * churn.c - communicators created, used and freed over and over.
 *
 * usage: churn [iterations=300]
 *
 * Each iteration every UE calls RCCE_comm_split (alternately: all UEs in one
 * communicator, or the lower and upper halves), enters one RCCE_barrier of
 * the new communicator, checks its size and rank, and RCCE_comm_free's it.
 * The next split gets the same MPB line back (symmetric allocation), while
 * slower UEs may still be on their way out of the previous barrier: the
 * runtime must not let that reuse strand them.  UE 0 prints "churn: OK".
 */
#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"

static int half_color(int ue, void *aux) { return ue < *(int *)aux; }

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int iterations = argc > 1 ? atoi(argv[1]) : 300;
  int me = RCCE_ue(), np = RCCE_num_ues(), half = np / 2;
  for (int i = 0; i < iterations; i++) {
    RCCE_COMM c;
    int halves = i % 2, rc = RCCE_comm_split(halves ? half_color : RCCE_global_color, &half, &c), size = -1;
    if (rc == RCCE_SUCCESS) rc = RCCE_barrier(&c);
    if (rc == RCCE_SUCCESS) rc = RCCE_comm_size(c, &size);
    int want = !halves ? np : me < half ? half : np - half;
    if (rc != RCCE_SUCCESS || size != want) {
      fprintf(stderr, "churn: UE %d: iteration %d: rc %d, size %d (expected %d)\n", me, i, rc, size, want);
      return 1;
    }
    if ((rc = RCCE_comm_free(&c)) != RCCE_SUCCESS) {
      fprintf(stderr, "churn: UE %d: RCCE_comm_free returned %d\n", me, rc);
      return 1;
    }
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("churn: OK (%d UEs, %d iterations)\n", np, iterations);
  fflush(stdout);
  RCCE_finalize();
  return 0;
}

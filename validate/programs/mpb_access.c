/*
 * mpb_access.c - what one MPB access costs UE 0, for every other UE's MPB,
 * as in the TN005 measurements of docs/references.md ref 3: a 4-byte
 * RCCE_get (one word read) and a 32-byte RCCE_put (one line written), each
 * timed over many repetitions less the same number of empty calls (the
 * measurements' RDTSC overhead is added back by the caller).
 *
 * usage: mpb_access [repetitions=1000]
 * prints per UE u > 0: "ue U core C read_us R write_us W"
 */
#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"

static double per_call(int bytes, int reps, int ue, t_vcharp mpb, char *priv, int put) {
  double t0 = RCCE_wtime();
  for (int i = 0; i < reps; i++)
    put ? RCCE_put(mpb, (t_vcharp)priv, bytes, ue) : RCCE_get((t_vcharp)priv, mpb, bytes, ue);
  return (RCCE_wtime() - t0) / reps;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int reps = argc > 1 ? atoi(argv[1]) : 1000;
  t_vcharp mpb = RCCE_malloc(RCCE_LINE_SIZE);
  char priv[RCCE_LINE_SIZE] = {0};
  if (!mpb || reps < 1) {
    fprintf(stderr, "mpb_access: no MPB line or bad repetitions\n");
    return 2;
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (RCCE_ue() == 0) {
    for (int u = 1; u < RCCE_num_ues(); u++) {
      double read = per_call(4, reps, u, mpb, priv, 0) - per_call(0, reps, u, mpb, priv, 0);
      double write = per_call(RCCE_LINE_SIZE, reps, u, mpb, priv, 1) - per_call(0, reps, u, mpb, priv, 1);
      printf("ue %d read_us %.6f write_us %.6f\n", u, read * 1e6, write * 1e6);
    }
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  RCCE_finalize();
  return 0;
}

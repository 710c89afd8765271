/*
 * ddr_access.c - what one uncached word read of the off-chip shared memory
 * costs UE 0 through each memory controller, as in the TN005 measurements
 * of docs/references.md ref 3.  Build counted (rccecc --model-build): the
 * model charges the reads of RCCE_shmalloc memory.  Shared memory is dealt
 * to the controllers in pages (the chip's lat_mc_page_bytes), so page m of
 * an allocation at the start of the region lies behind controller m.  Each
 * read is followed by RCCE_wtime, which ends a stream of overlapping reads;
 * the same loop over a private word is subtracted.
 *
 * usage: ddr_access page_bytes controllers [repetitions=1000]
 * prints per controller: "mc M read_us R"
 */
#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"

static double per_read(volatile const unsigned *word, int reps, unsigned *sink) {
  double t0 = RCCE_wtime();
  for (int i = 0; i < reps; i++) {
    *sink += *word;
    RCCE_wtime();
  }
  return (RCCE_wtime() - t0) / reps;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  long page = argc > 2 ? atol(argv[1]) : 0;
  int mcs = argc > 2 ? atoi(argv[2]) : 0, reps = argc > 3 ? atoi(argv[3]) : 1000;
  volatile unsigned *shared = page > 0 && mcs > 0 ? (volatile unsigned *)RCCE_shmalloc((size_t)page * (size_t)mcs) : NULL;
  if (!shared || reps < 1) {
    fprintf(stderr, "ddr_access: usage: ddr_access page_bytes controllers [repetitions]; shared memory too small?\n");
    return 2;
  }
  static volatile unsigned private_word;
  unsigned sink = 0;
  if (RCCE_ue() == 0)
    for (int m = 0; m < mcs; m++) {
      double t = per_read(shared + (size_t)m * (size_t)page / sizeof *shared, reps, &sink) -
                 per_read(&private_word, reps, &sink);
      printf("mc %d read_us %.6f\n", m, t * 1e6);
    }
  RCCE_finalize();
  return (int)(sink & 0); /* keep the reads */
}

/*
 * ddr_access.c - what one uncached word read of the off-chip shared memory
 * or one uncached 32-byte line (eight words read one after another) costs
 * UE 0 through each memory controller, as in the TN005 measurements of
 * docs/references.md ref 3.  Build counted (rccecc --model-build): the
 * model charges the reads of RCCE_shmalloc memory.  Shared memory is dealt
 * to the controllers in pages (the chip's lat_mc_page_bytes), so page m of
 * an allocation at the start of the region lies behind controller m.  Each
 * read is followed by RCCE_wtime, which ends a stream of overlapping reads;
 * the same loop reading no word is subtracted, so the reads' own
 * instructions count, as in TN005's figures (which subtract only RDTSC).
 *
 * usage: ddr_access page_bytes controllers [repetitions=1000] [words=1]
 * prints per controller: "mc M read_us R" (R: the time of `words` reads)
 */
#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"

static double per_read(volatile const unsigned *word, int words, int reps, unsigned *sink) {
  double t0 = RCCE_wtime();
  for (int i = 0; i < reps; i++) {
    for (int w = 0; w < words; w++) *sink += word[w];
    RCCE_wtime();
  }
  return (RCCE_wtime() - t0) / reps;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  long page = argc > 2 ? atol(argv[1]) : 0;
  int mcs = argc > 2 ? atoi(argv[2]) : 0, reps = argc > 3 ? atoi(argv[3]) : 1000, words = argc > 4 ? atoi(argv[4]) : 1;
  volatile unsigned *shared =
      page > 0 && mcs > 0 ? (volatile unsigned *)RCCE_shmalloc((size_t)page * (size_t)mcs) : NULL;
  if (!shared || reps < 1 || words < 1 || words > 8) {
    fprintf(
        stderr,
        "ddr_access: usage: ddr_access page_bytes controllers [repetitions] [words 1..8]; shared memory too small?\n");
    return 2;
  }
  unsigned sink = 0;
  if (RCCE_ue() == 0)
    for (int m = 0; m < mcs; m++) {
      volatile const unsigned *line = shared + (size_t)m * (size_t)page / sizeof *shared;
      double t = per_read(line, words, reps, &sink) - per_read(line, 0, reps, &sink);
      printf("mc %d read_us %.6f\n", m, t * 1e6);
    }
  RCCE_finalize();
  return (int)(sink & 0); /* keep the reads */
}

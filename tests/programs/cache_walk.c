/*
 * cache_walk.c - private-memory caches in model mode (tests/integration/
 * test_block_cost.py).  Build with rccecc --model-build.
 *
 *   cache_walk read BYTES PASSES    loads one word of every 32-byte line of a
 *                                   BYTES array, PASSES times over
 *   cache_walk write BYTES PASSES   the same with stores
 *   cache_walk update BYTES PASSES  the same with a load and a store
 *   cache_walk dirty BYTES PASSES   each pass loads every line, then stores to it
 *                                   (a hit on a clean line), then reads another
 *                                   8 KB array, which evicts it (write-backs)
 *
 * Prints "cycles C": core cycles per access (virtual time x tile clock) of
 * the passes after a first one that brings the array in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"

static volatile unsigned sink;

enum mode { READ, WRITE, UPDATE, DIRTY };

static void walk(unsigned *a, size_t words, enum mode mode) {
  if (mode == WRITE)
    for (size_t i = 0; i < words; i += 8) a[i] = (unsigned)i;
  else if (mode == UPDATE)
    for (size_t i = 0; i < words; i += 8) a[i]++;
  else {
    unsigned s = 0;
    for (size_t i = 0; i < words; i += 8) s += a[i];
    sink = s;
  }
}

#define OTHER_WORDS (8192 / sizeof(unsigned))

static void dirty_passes(unsigned *a, size_t words, const unsigned *other, long passes) {
  for (long p = 0; p < passes; p++) {
    unsigned s = 0;
    for (size_t i = 0; i < words; i += 8) s += a[i];
    for (size_t i = 0; i < words; i += 8) a[i] = (unsigned)i;
    for (size_t i = 0; i < OTHER_WORDS; i += 8) s += other[i];
    sink = s;
  }
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  static const char *const names[] = {"read", "write", "update", "dirty"};
  enum mode mode = READ;
  while (argc > 1 && mode <= DIRTY && strcmp(argv[1], names[mode])) mode++;
  long bytes = argc > 2 ? atol(argv[2]) : 0, passes = argc > 3 ? atol(argv[3]) : 0;
  unsigned *a = bytes >= 32 ? calloc((size_t)bytes, 1) : NULL;
  if (argc < 4 || mode > DIRTY || !a || passes < 1) {
    fprintf(stderr, "usage: cache_walk read|write|update|dirty BYTES PASSES (BYTES >= 32)\n");
    RCCE_finalize();
    return 2;
  }
  size_t words = (size_t)bytes / sizeof *a;
  walk(a, words, READ);
  double t0 = RCCE_wtime();
  unsigned *other = mode == DIRTY ? calloc(OTHER_WORDS, sizeof *other) : NULL;
  if (other) dirty_passes(a, words, other, passes);
  else
    for (long p = 0; p < passes; p++) walk(a, words, mode);
  double t = RCCE_wtime() - t0;
  printf("cycles %.3f\n", t * 533e6 / (double)(passes * (long)(words / 8)));
  free(a);
  free(other);
  RCCE_finalize();
  return 0;
}

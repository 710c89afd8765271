/*
 * block_cost.c - counted computation priced by content (tests/integration/
 * test_block_cost.py).  Build with rccecc --model-build; run in model mode.
 *
 *   block_cost adds N     N dependent floating-point additions
 *   block_cost divs N     N dependent floating-point divisions
 *   block_cost branchy N  the additions with a never-taken test in the loop
 *   block_cost ints N     N iterations of independent integer work
 *
 * Prints "cycles C": core cycles per iteration (virtual time x tile clock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"

static double operand[16];
static unsigned words[16];

static double adds(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += operand[i & 15];
  return s;
}

static double divs(long n) {
  double s = 1e300;
  for (long i = 0; i < n; i++) s /= operand[i & 15];
  return s;
}

static double branchy(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) {
    if (__builtin_expect(operand[i & 15] < 0, 0)) printf("negative operand\n");
    s += operand[i & 15];
  }
  return s;
}

static double ints(long n) {
  unsigned a = 0, b = 0;
  for (long i = 0; i < n; i++) {
    a += words[i & 15];
    b ^= words[(i + 3) & 15];
  }
  return a + b;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  long n = argc > 2 ? atol(argv[2]) : 0;
  for (int i = 0; i < 16; i++) operand[i] = 1.0 + i / 64.0, words[i] = (unsigned)i * 2654435761u;
  double (*kernel)(long) = !strcmp(mode, "adds")      ? adds
                           : !strcmp(mode, "divs")    ? divs
                           : !strcmp(mode, "branchy") ? branchy
                           : !strcmp(mode, "ints")    ? ints
                                                      : NULL;
  if (!kernel || n < 1) {
    fprintf(stderr, "usage: block_cost adds|divs|branchy|ints N\n");
    RCCE_finalize();
    return 2;
  }
  double t0 = RCCE_wtime();
  double r = kernel(n);
  double t = RCCE_wtime() - t0;
  printf("cycles %.3f (result %g)\n", t * 533e6 / (double)n, r);
  RCCE_finalize();
  return 0;
}

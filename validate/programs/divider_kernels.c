/*
 * divider_kernels.c - the three kernels of [PERFPOWER-2011] (docs/references.md)
 * paper (frequency divider study): dot product and matrix-vector product
 * reading their operands from DRAM, and a 160 x 160 matrix-matrix product
 * working in cache.  Build counted (rccecc --model-build); run one UE with
 * rccerun -clock to pick the divider.  DRAM operands live in the off-chip
 * shared region, where every access reaches a memory controller (the
 * paper's arrays are chosen too large for the caches to the same effect).
 * As in the paper, the dot and matrix-vector loops are unrolled 4 times and
 * the matrix-matrix loop is not.
 *
 * usage: divider_kernels dot|matvec|matmat|none   (none: set-up only, to subtract)
 * prints: "kernel K seconds S flops F"
 */
#include <stdio.h>
#include <string.h>

#include "RCCE.h"

#define DOT_N 65536
#define MV_ROWS 128
#define MV_COLS 256
#define MM_N 160

static double mm_a[MM_N][MM_N], mm_b[MM_N][MM_N], mm_c[MM_N][MM_N];

static double dot(volatile double *x, volatile double *y) {
  double s = 0;
  for (int i = 0; i < DOT_N; i += 4) s += x[i] * y[i] + x[i + 1] * y[i + 1] + x[i + 2] * y[i + 2] + x[i + 3] * y[i + 3];
  return s;
}

static double matvec(volatile double *a, const double *x, double *y) {
  for (int i = 0; i < MV_ROWS; i++) {
    double s = 0;
    volatile double *row = a + i * MV_COLS;
    for (int j = 0; j < MV_COLS; j += 4)
      s += row[j] * x[j] + row[j + 1] * x[j + 1] + row[j + 2] * x[j + 2] + row[j + 3] * x[j + 3];
    y[i] = s;
  }
  return y[MV_ROWS - 1];
}

static double matmat(void) {
  for (int i = 0; i < MM_N; i++)
    for (int j = 0; j < MM_N; j++) {
      double s = 0;
      for (int k = 0; k < MM_N; k++) s += mm_a[i][k] * mm_b[k][j];
      mm_c[i][j] = s;
    }
  return mm_c[MM_N - 1][MM_N - 1];
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  const char *k = argc > 1 ? argv[1] : "";
  volatile double *shared = (volatile double *)RCCE_shmalloc(2 * DOT_N * sizeof(double));
  static double x[MV_COLS], y[MV_ROWS];
  if (!shared || (strcmp(k, "dot") && strcmp(k, "matvec") && strcmp(k, "matmat") && strcmp(k, "none"))) {
    fprintf(stderr, "divider_kernels: usage: divider_kernels dot|matvec|matmat|none (one UE)\n");
    return 2;
  }
  for (int i = 0; i < 2 * DOT_N; i++) shared[i] = (double)(i % 7);
  for (int i = 0; i < MV_COLS; i++) x[i] = 1.0 / (i + 1);
  for (int i = 0; i < MM_N; i++)
    for (int j = 0; j < MM_N; j++) mm_a[i][j] = i + j, mm_b[i][j] = i - j;
  double t0 = RCCE_wtime(), check = 0, flops = 0;
  if (!strcmp(k, "dot")) check = dot(shared, shared + DOT_N), flops = 2.0 * DOT_N;
  else if (!strcmp(k, "matvec")) check = matvec(shared, x, y), flops = 2.0 * MV_ROWS * MV_COLS;
  else if (!strcmp(k, "matmat")) check = matmat(), flops = 2.0 * MM_N * MM_N * MM_N;
  double t = RCCE_wtime() - t0;
  printf("kernel %s seconds %.9f flops %.0f check %g\n", k, t, flops, check);
  RCCE_finalize();
  return 0;
}

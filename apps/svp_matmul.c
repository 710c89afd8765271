/*
 * svp_matmul.c - a matrix multiply with one decomposition step over places
 * ([SVP-SCC] Fig. 5; docs/svp.md): UE 0 creates the product of a block of
 * rows of A with B on each of the other UEs (scc_rpc_create: the block and B
 * travel as arguments), syncs on them all (the family) and checks C against
 * its own product after RCCE_finalize (outside the measured region).
 *
 * usage: svp_matmul [n=128]    (-nue P+1: P places)
 * prints: "svp_matmul: n N, P places, S seconds" and "svp_matmul: OK"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_rpc.h"

#define MULTIPLY 1

/* Arguments: n, the rows of the block, then the block of A and all of B. */
struct block_args {
  int32_t n, rows;
};

static void *multiply(const void *args, size_t size, size_t *result_size) {
  const struct block_args *h = args;
  const double *a = (const double *)(h + 1), *b = a + (size_t)h->rows * h->n;
  (void)size;
  double *c = calloc((size_t)h->rows * h->n, sizeof *c);
  if (!c) return NULL;
  for (int i = 0; i < h->rows; i++)
    for (int k = 0; k < h->n; k++)
      for (int j = 0; j < h->n; j++) c[(size_t)i * h->n + j] += a[(size_t)i * h->n + k] * b[(size_t)k * h->n + j];
  *result_size = (size_t)h->rows * h->n * sizeof *c;
  return c;
}

static double element(int i, int j, int which) { return (double)((i * 7 + j * 3 + which) % 11) - 5.0; }

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 128, me = RCCE_ue(), places = RCCE_num_ues() - 1;
  if (n < 1 || n > 2048 || places < 1) {
    if (me == 0) fprintf(stderr, "svp_matmul: needs 2..N UEs and 1 <= n <= 2048\n");
    RCCE_finalize();
    return 2;
  }
  scc_rpc_register(MULTIPLY, multiply);
  if (me != 0) {
    scc_rpc_serve(1, NULL);
    RCCE_finalize();
    return 0;
  }
  size_t nn = (size_t)n * n;
  double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = calloc(nn, sizeof *c);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[(size_t)i * n + j] = element(i, j, 1), b[(size_t)i * n + j] = element(i, j, 2);
  scc_rpc_handle *family = calloc((size_t)places, sizeof *family);
  int *first = calloc((size_t)places + 1, sizeof *first);
  for (int p = 0; p <= places; p++) first[p] = (int)((long)n * p / places);
  double t0 = RCCE_wtime();
  for (int p = 0; p < places; p++) { /* the family: one create per place */
    int rows = first[p + 1] - first[p];
    size_t bytes = sizeof(struct block_args) + ((size_t)rows * n + nn) * sizeof(double);
    struct block_args *args = malloc(bytes);
    *args = (struct block_args){n, rows};
    memcpy(args + 1, a + (size_t)first[p] * n, (size_t)rows * n * sizeof(double));
    memcpy((double *)(args + 1) + (size_t)rows * n, b, nn * sizeof(double));
    scc_rpc_create(p + 1, MULTIPLY, args, bytes, &family[p]);
    free(args);
  }
  int rc = RCCE_SUCCESS;
  for (int p = 0; p < places && rc == RCCE_SUCCESS; p++)
    rc = scc_rpc_sync(&family[p], c + (size_t)first[p] * n, (size_t)(first[p + 1] - first[p]) * n * sizeof(double),
                      NULL);
  double seconds = RCCE_wtime() - t0;
  for (int p = 0; p < places; p++) scc_rpc_stop(p + 1);
  RCCE_finalize();
  printf("svp_matmul: n %d, %d places, %.6f seconds\n", n, places, seconds);
  int wrong = rc != RCCE_SUCCESS;
  for (int i = 0; i < n && !wrong; i++)
    for (int j = 0; j < n && !wrong; j++) {
      double want = 0;
      for (int k = 0; k < n; k++) want += element(i, k, 1) * element(k, j, 2);
      wrong = c[(size_t)i * n + j] != want;
    }
  printf(wrong ? "svp_matmul: FAILED\n" : "svp_matmul: OK\n");
  free(a), free(b), free(c), free(family), free(first);
  return wrong;
}

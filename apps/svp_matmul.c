/*
 * svp_matmul.c - a matrix multiply with one decomposition step over places
 * ([SVP-SCC] Fig. 5; docs/svp.md): UE 0 hands the product of a block of rows
 * of A with B to each of the other UEs, syncs on them all and checks C
 * against its own product after RCCE_finalize (outside the measured region).
 *
 * The way the work and its data go to a place:
 *   create    one scc_rpc_create per place: the block and B travel as one
 *             argument block, the block of C comes back as the result;
 *   messages  one family per place (scc_rpc_create_family), a thread per
 *             row of the block, the data described buffer by buffer (A's
 *             rows and B in, C's rows out) and moved as RCCE messages (the
 *             paper's "direct");
 *   remap     the same family, the place mapping UE 0's memory through its
 *             lookup table and copying ([SVP-SCC] sec. III.B);
 *   copy      the same, the copies made by the job's copy cores (sec. III.C;
 *             rccerun --copy-cores K).
 * With remap and copy the matrices live in UE 0's private memory
 * (scc_private_base: 3 n^2 doubles must fit, rccerun --private-size), and a
 * place's copies in its own.
 *
 * usage: svp_matmul [n=128] [create|messages|remap|copy]    (-nue P+1: P places)
 * prints: "svp_matmul: n N, P places, S seconds (WAY)" and "svp_matmul: OK"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_lut.h"
#include "scc_rpc.h"

#define MULTIPLY 1

enum way { CREATE, MESSAGES, REMAP, COPY };
static const char *const ways[] = {"create", "messages", "remap", "copy"};

/* create: n, the rows of the block, then the block of A and all of B. */
struct block_args {
  int32_t n, rows;
};

/* C's rows = A's rows x B, rows x n by n x n. */
static void product(const double *a, const double *b, double *c, int rows, int n) {
  for (int i = 0; i < rows; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++) c[(size_t)i * n + j] += a[(size_t)i * n + k] * b[(size_t)k * n + j];
}

static void *multiply(const void *args, size_t size, size_t *result_size) {
  const struct block_args *h = args;
  const double *a = (const double *)(h + 1), *b = a + (size_t)h->rows * h->n;
  (void)size;
  double *c = calloc((size_t)h->rows * h->n, sizeof *c);
  if (!c) return NULL;
  product(a, b, c, h->rows, h->n);
  *result_size = (size_t)h->rows * h->n * sizeof *c;
  return c;
}

/* A family's thread: row `index` of the block (data: the block's first row
 * and n, A's rows, B, C's rows). */
static void multiply_row(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)ndata, (void)shared, (void)shared_bytes;
  const int32_t *where = data[0].ptr;
  int n = where[1];
  size_t row = (size_t)(index - where[0]) * (size_t)n;
  product((const double *)data[1].ptr + row, data[2].ptr, (double *)data[3].ptr + row, 1, n);
}

static double element(int i, int j, int which) { return (double)((i * 7 + j * 3 + which) % 11) - 5.0; }

/* The block of rows first .. first + rows - 1 to place, as the way says. */
static int hand_out(enum way way, int place, const double *a, const double *b, double *c, int first, int rows, int n,
                    int32_t *where, scc_rpc_handle *h) {
  size_t nn = (size_t)n * n, block = (size_t)rows * n * sizeof(double);
  if (way == CREATE) {
    size_t bytes = sizeof(struct block_args) + block + nn * sizeof(double);
    struct block_args *args = malloc(bytes);
    if (!args) return RCCE_ERROR_MALLOC;
    *args = (struct block_args){n, rows};
    memcpy(args + 1, a + (size_t)first * n, block);
    memcpy((double *)(args + 1) + (size_t)rows * n, b, nn * sizeof(double));
    int rc = scc_rpc_create(place, MULTIPLY, args, bytes, h);
    free(args);
    return rc;
  }
  where[0] = first, where[1] = n;
  scc_rpc_data data[] = {{where, 2 * sizeof *where, SCC_RPC_IN},
                         {(void *)(a + (size_t)first * n), block, SCC_RPC_IN},
                         {(void *)b, nn * sizeof(double), SCC_RPC_IN},
                         {c + (size_t)first * n, block, SCC_RPC_OUT}};
  int transfer = way == MESSAGES ? SCC_RPC_MESSAGES : way == REMAP ? SCC_RPC_REMAP : SCC_RPC_COPY_CORES;
  return scc_rpc_create_family(place, MULTIPLY, (scc_rpc_range){first, first + rows, 1}, data, 4, NULL, 0, transfer, h);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 128, me = RCCE_ue(), places = RCCE_num_ues() - 1;
  enum way way = CREATE;
  for (int w = 0; argc > 2 && w < 4; w++)
    if (!strcmp(argv[2], ways[w])) way = (enum way)w;
  size_t nn = (size_t)n * n;
  if (n < 1 || n > 2048 || places < 1 || (argc > 2 && strcmp(argv[2], ways[way])) ||
      (way >= REMAP && 3 * nn * sizeof(double) + 8 * (size_t)places > scc_private_size())) {
    if (me == 0)
      fprintf(stderr, "svp_matmul: needs 2..N UEs, 1 <= n <= 2048, a way of create|messages|remap|copy, and for "
                      "remap and copy room for three n x n matrices in private memory (rccerun --private-size)\n");
    RCCE_finalize();
    return 2;
  }
  scc_rpc_register(MULTIPLY, multiply);
  scc_rpc_register_thread(MULTIPLY, multiply_row);
  if (me != 0) {
    scc_rpc_serve(1, NULL);
    RCCE_finalize();
    return 0;
  }
  /* remap and copy: the matrices in private memory a LUT can map. */
  double *a = way >= REMAP ? scc_private_base() : malloc(nn * sizeof *a);
  double *b = way >= REMAP ? a + nn : malloc(nn * sizeof *b);
  double *c = way >= REMAP ? b + nn : malloc(nn * sizeof *c);
  int32_t *where = way >= REMAP ? (int32_t *)(c + nn) : malloc(2 * sizeof *where * (size_t)places);
  if (way >= REMAP) memset(c, 0, nn * sizeof *c);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[(size_t)i * n + j] = element(i, j, 1), b[(size_t)i * n + j] = element(i, j, 2);
  scc_rpc_handle *family = calloc((size_t)places, sizeof *family);
  int *first = calloc((size_t)places + 1, sizeof *first);
  for (int p = 0; p <= places; p++) first[p] = (int)((long)n * p / places);
  int rc = RCCE_SUCCESS;
  double t0 = RCCE_wtime();
  for (int p = 0; p < places && rc == RCCE_SUCCESS; p++) /* the family: one create per place */
    rc = hand_out(way, p + 1, a, b, c, first[p], first[p + 1] - first[p], n, where + 2 * p, &family[p]);
  for (int p = 0; p < places && rc == RCCE_SUCCESS; p++)
    rc = scc_rpc_sync(&family[p], c + (size_t)first[p] * n, (size_t)(first[p + 1] - first[p]) * n * sizeof(double),
                      NULL);
  double seconds = RCCE_wtime() - t0;
  for (int p = 0; p < places; p++) scc_rpc_stop(p + 1);
  int wrong = rc != RCCE_SUCCESS;
  /* Checked from copies, after RCCE_finalize (which ends private memory's mapping too). */
  double *got = malloc(nn * sizeof *got);
  memcpy(got, c, nn * sizeof *got);
  RCCE_finalize();
  printf("svp_matmul: n %d, %d places, %.6f seconds (%s)\n", n, places, seconds, ways[way]);
  for (int i = 0; i < n && !wrong; i++)
    for (int j = 0; j < n && !wrong; j++) {
      double want = 0;
      for (int k = 0; k < n; k++) want += element(i, k, 1) * element(k, j, 2);
      wrong = got[(size_t)i * n + j] != want;
    }
  printf(wrong ? "svp_matmul: FAILED\n" : "svp_matmul: OK\n");
  if (way < REMAP) free(a), free(b), free(c), free(where);
  free(got), free(family), free(first);
  return wrong;
}

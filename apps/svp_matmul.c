/*
 * svp_matmul.c - [SVP-SCC]'s matrix multiply over places (sec. IV.B.2-3,
 * Figs. 2, 5 and 6; docs/svp.md).  Fig. 2's decomposition step splits A and
 * B into four N/2 x N/2 sub-matrices each and C into eight products:
 * c1 = a1 b1 + a2 b3, c2 = a1 b2 + a2 b4, c3 = a3 b1 + a4 b3,
 * c4 = a3 b2 + a4 b4.  `steps` steps give 8^steps products of blocks of
 * N / 2^steps (one step: the eight remote creates of Fig. 5; two: the 64 of
 * Fig. 6).  UE 0 hands the products to the places round-robin, a place
 * taking its next product once UE 0 has synced on its last (one create per
 * place at a time), and adds each result into its block of C: the
 * additions.  It checks C against a direct product after RCCE_finalize
 * (outside the measured region).
 *
 * The paper keeps the sub-matrices as arrays of row pointers into the whole
 * matrices, so its decomposition copies nothing.  Here UE 0 gathers every
 * block of A and B once into a buffer of its own before the measured region
 * (as free as the paper's pointers), so that a product's inputs are two
 * buffers; what travels is what the paper sends.
 *
 * The way a product and its data go to a place:
 *   create    one scc_rpc_create: the two blocks as one argument block, the
 *             product back as the result;
 *   messages  one family (scc_rpc_create_family), a thread per row of the
 *             product, the blocks in and the product out as RCCE messages
 *             (the paper's "direct");
 *   remap     the same family, the place mapping UE 0's memory through its
 *             lookup table and copying ([SVP-SCC] sec. III.B);
 *   copy      the same, the copies made by the job's copy cores (sec. III.C;
 *             rccerun --copy-cores K);
 *   local     no places: UE 0 multiplies A and B itself with the same kernel,
 *             the paper's baseline ("a non-threaded local matrix
 *             multiplication using the same computation kernel");
 *   distributed  two steps split over nodes (sec. IV.B.4, Fig. 7): UE 0 makes
 *             the first step and creates each of its eight products on one
 *             of the first eight places (argument blocks, as create), which
 *             makes the second step itself and hands its eight products
 *             round-robin to its share of the other places (every eighth)
 *             and to itself, adds them and answers with its product.
 * With remap and copy the matrices, blocks and products live in UE 0's
 * private memory ((5 + 2^steps) n^2 doubles must fit: rccerun
 * --private-size), and a place's copies in its own.
 *
 * usage: svp_matmul [n=128] [create|messages|remap|copy|local|distributed] [steps=1, distributed: 2]
 *        (-nue P+1: P places)
 * prints: "svp_matmul: n N, P places, S seconds (WAY, K steps)" and "svp_matmul: OK"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_lut.h"
#include "scc_rpc.h"

#define MULTIPLY 1
#define DECOMPOSE 2

enum way { CREATE, MESSAGES, REMAP, COPY, LOCAL, DISTRIBUTED };
static const char *const ways[] = {"create", "messages", "remap", "copy", "local", "distributed"};

/* The product P = X Y of h x h blocks (P zeroed before), rows r0 .. r1 - 1. */
static void product(const double *x, const double *y, double *p, int r0, int r1, int h) {
  for (int i = r0; i < r1; i++)
    for (int k = 0; k < h; k++)
      for (int j = 0; j < h; j++) p[(size_t)i * h + j] += x[(size_t)i * h + k] * y[(size_t)k * h + j];
}

/* create: the block size, then the blocks of A and B; the product comes back. */
static void *multiply(const void *args, size_t size, size_t *result_size) {
  const int32_t *h = args;
  size_t hh = (size_t)*h * (size_t)*h;
  const double *x = (const double *)(h + 2), *y = x + hh;
  (void)size;
  double *p = calloc(hh, sizeof *p);
  if (!p) return NULL;
  product(x, y, p, 0, *h, *h);
  *result_size = hh * sizeof *p;
  return p;
}

/* A family's thread: row `index` of the product (data: h, the blocks of A
 * and B, the product). */
static void multiply_row(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)ndata, (void)shared, (void)shared_bytes;
  int h = *(const int32_t *)data[0].ptr;
  product(data[1].ptr, data[2].ptr, data[3].ptr, (int)index, (int)index + 1, h);
}

static double element(int i, int j, int which) { return (double)((i * 7 + j * 3 + which) % 11) - 5.0; }

/* Block (bi, bj) of the n x n matrix m, h x h, into `to`. */
static void gather(const double *m, int n, int h, int bi, int bj, double *to) {
  for (int i = 0; i < h; i++) memcpy(to + (size_t)i * h, m + (size_t)(bi * h + i) * n + (size_t)bj * h, h * sizeof *m);
}

/* The products: product k is C(i, j) += A(i, l) B(l, j), k = (i d + l) d + j
 * for d = 2^steps blocks a side (one step: Fig. 2's eight). */
struct plan {
  int n, d, h, products;
  double *ablocks, *bblocks, *out; /* A(i, l) at i d + l, B(l, j) at l d + j; product k's result */
  int32_t *h32;                    /* h, for the families' threads */
};

static const double *a_of(const struct plan *pl, int k) {
  return pl->ablocks + (size_t)(k / pl->d) * pl->h * pl->h; /* (i d + l) */
}
static const double *b_of(const struct plan *pl, int k) {
  int l = k / pl->d % pl->d, j = k % pl->d;
  return pl->bblocks + (size_t)(l * pl->d + j) * pl->h * pl->h;
}
static double *out_of(const struct plan *pl, int k) { return pl->out + (size_t)k * pl->h * pl->h; }

/* Product k to place, as the way says. */
static int hand_out(enum way way, const struct plan *pl, int k, int place, scc_rpc_handle *h) {
  size_t block = (size_t)pl->h * pl->h * sizeof(double);
  if (way == CREATE || way == DISTRIBUTED) {
    size_t bytes = 2 * sizeof(int32_t) + 2 * block;
    int32_t *args = malloc(bytes);
    if (!args) return RCCE_ERROR_MALLOC;
    args[0] = pl->h, args[1] = 0;
    memcpy(args + 2, a_of(pl, k), block);
    memcpy((char *)(args + 2) + block, b_of(pl, k), block);
    int rc = scc_rpc_create(place, way == DISTRIBUTED ? DECOMPOSE : MULTIPLY, args, bytes, h);
    free(args);
    return rc;
  }
  scc_rpc_data data[] = {{pl->h32, sizeof *pl->h32, SCC_RPC_IN},
                         {(void *)a_of(pl, k), block, SCC_RPC_IN},
                         {(void *)b_of(pl, k), block, SCC_RPC_IN},
                         {out_of(pl, k), block, SCC_RPC_OUT}};
  int transfer = way == MESSAGES ? SCC_RPC_MESSAGES : way == REMAP ? SCC_RPC_REMAP : SCC_RPC_COPY_CORES;
  return scc_rpc_create_family(place, MULTIPLY, (scc_rpc_range){0, pl->h, 1}, data, 4, NULL, 0, transfer, h);
}

/* The addition: product k into its block C(i, j). */
static void add_into(const struct plan *pl, double *c, int k) {
  int i = k / (pl->d * pl->d), j = k % pl->d;
  const double *p = out_of(pl, k);
  for (int r = 0; r < pl->h; r++)
    for (int s = 0; s < pl->h; s++)
      c[(size_t)(i * pl->h + r) * pl->n + (size_t)j * pl->h + s] += p[(size_t)r * pl->h + s];
}

/* Every product on the places (UEs place[0..places-1]), round-robin: place
 * q takes products q, q + places, ..., each once the last one's sync is in. */
static int run(enum way way, const struct plan *pl, double *c, const int *place, int places) {
  size_t block = (size_t)pl->h * pl->h * sizeof(double);
  scc_rpc_handle *handle = calloc((size_t)places, sizeof *handle);
  if (!handle) return RCCE_ERROR_MALLOC;
  int rc = RCCE_SUCCESS;
  for (int k = 0; k < places && k < pl->products && rc == RCCE_SUCCESS; k++)
    rc = hand_out(way, pl, k, place[k], &handle[k]);
  for (int k = 0; k < pl->products && rc == RCCE_SUCCESS; k++) {
    int q = k % places;
    rc = scc_rpc_sync(&handle[q], out_of(pl, k), block, NULL);
    if (rc == RCCE_SUCCESS) add_into(pl, c, k);
    if (rc == RCCE_SUCCESS && k + places < pl->products) rc = hand_out(way, pl, k + places, place[q], &handle[q]);
  }
  free(handle);
  return rc;
}

/* One decomposition step of a x b (n x n, d blocks a side) into pl, its
 * blocks gathered into `mem` (A's, then B's, then the products). */
static void decompose(const double *a, const double *b, int n, int d, double *mem, int32_t *h32, struct plan *pl) {
  size_t nn = (size_t)n * n;
  *pl = (struct plan){n, d, n / d, d * d * d, mem, mem + nn, mem + 2 * nn, h32};
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      gather(a, n, pl->h, i, j, pl->ablocks + (size_t)(i * d + j) * pl->h * pl->h);
      gather(b, n, pl->h, i, j, pl->bblocks + (size_t)(i * d + j) * pl->h * pl->h);
    }
}

/* distributed: the first eight places (or fewer) make the second step; the
 * others are their workers, every eighth of them. */
static int submasters(void) { return RCCE_num_ues() - 1 < 8 ? RCCE_num_ues() - 1 : 8; }

/* A first-step product on a sub-master: the second step over its workers
 * and itself (create argument blocks; its own share is a create on its own
 * place, which runs inside the create: last, once the workers have theirs). */
static void *decompose_and_multiply(const void *args, size_t size, size_t *result_size) {
  const int32_t *h = args;
  int n = *h, m = submasters(), me = RCCE_ue(), workers = 0;
  size_t nn = (size_t)n * n;
  const double *a = (const double *)(h + 2), *b = a + nn;
  (void)size;
  double *c = calloc(nn, sizeof *c), *mem = malloc(4 * nn * sizeof *mem); /* blocks of A and B; 8 products */
  int *worker = malloc(sizeof(int) * (size_t)RCCE_num_ues());
  if (!c || !mem || !worker) return free(c), free(mem), free(worker), NULL;
  for (int w = m + 1; w < RCCE_num_ues(); w++)
    if ((w - m - 1) % m == me - 1) worker[workers++] = w;
  worker[workers++] = me;
  struct plan pl;
  decompose(a, b, n, 2, mem, NULL, &pl);
  if (run(CREATE, &pl, c, worker, workers) != RCCE_SUCCESS) free(c), c = NULL;
  free(mem), free(worker);
  *result_size = c ? nn * sizeof *c : 0;
  return c;
}

/* Where the plan's buffers live: private memory for remap and copy (a LUT
 * maps it), the heap otherwise; NULL when they do not fit. */
static int remapped(enum way way) { return way == REMAP || way == COPY; }

static double *matrices(enum way way, size_t doubles) {
  size_t bytes = (doubles + 1) * sizeof(double); /* and h, for the families */
  if (!remapped(way)) return malloc(bytes);
  return bytes <= scc_private_size() ? scc_private_base() : NULL;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 128, steps = argc > 3 ? atoi(argv[3]) : 1, me = RCCE_ue();
  int places = RCCE_num_ues() - 1;
  enum way way = CREATE;
  for (int w = 0; argc > 2 && w <= DISTRIBUTED; w++)
    if (!strcmp(argv[2], ways[w])) way = (enum way)w;
  if (way == DISTRIBUTED && argc <= 3) steps = 2;
  /* UE 0's blocks a side: distributed makes one step here, the second at the sub-masters. */
  int d = way == DISTRIBUTED ? (steps == 2 ? 2 : 0) : steps >= 1 && steps <= 3 ? 1 << steps : 0;
  size_t nn = (size_t)n * n, doubles = (5 + (size_t)d) * nn; /* A, B, C, A's and B's blocks, the products */
  double *mem = NULL;
  int usable = n >= 2 && n <= 2048 && d && n % (1 << steps) == 0 && (places >= 1 || way == LOCAL) &&
               !(argc > 2 && strcmp(argv[2], ways[way]));
  if (usable && me == 0) usable = (mem = matrices(way, doubles)) != NULL;
  RCCE_bcast((char *)&usable, sizeof usable, 0, RCCE_COMM_WORLD); /* the places stop with UE 0 */
  if (!usable) {
    if (me == 0)
      fprintf(stderr, "svp_matmul: needs 2..N UEs (1 for local), 2 <= n <= 2048, a way of create|messages|remap|"
                      "copy|local|distributed, 1 to 3 steps (distributed: 2) with n divisible by 2^steps, and for "
                      "remap and copy room for (5 + 2^steps) n x n matrices in private memory (rccerun "
                      "--private-size)\n");
    RCCE_finalize();
    return 2;
  }
  scc_rpc_register(MULTIPLY, multiply);
  scc_rpc_register(DECOMPOSE, decompose_and_multiply);
  scc_rpc_register_thread(MULTIPLY, multiply_row);
  if (me != 0) {
    scc_rpc_serve(1, NULL);
    RCCE_finalize();
    return 0;
  }
  double *a = mem, *b = a + nn, *c = b + nn;
  int32_t h32 = n / d;
  struct plan pl;
  memset(c, 0, nn * sizeof *c);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[(size_t)i * n + j] = element(i, j, 1), b[(size_t)i * n + j] = element(i, j, 2);
  /* The decomposition, before the measured region (the paper's pointers). */
  decompose(a, b, n, d, c + nn, (int32_t *)(mem + doubles), &pl);
  memcpy(pl.h32, &h32, sizeof h32);
  int *place = malloc(sizeof(int) * (size_t)(places + 1)), used = way == DISTRIBUTED ? submasters() : places;
  for (int p = 0; p < places; p++) place[p] = p + 1;
  double t0 = RCCE_wtime();
  int rc = RCCE_SUCCESS;
  if (way == LOCAL) product(a, b, c, 0, n, n);
  else rc = run(way, &pl, c, place, used);
  double seconds = RCCE_wtime() - t0;
  for (int p = 0; p < places; p++) scc_rpc_stop(p + 1);
  int wrong = rc != RCCE_SUCCESS;
  /* Checked from a copy, after RCCE_finalize (which ends private memory's mapping too). */
  double *got = malloc(nn * sizeof *got);
  memcpy(got, c, nn * sizeof *got);
  RCCE_finalize();
  printf("svp_matmul: n %d, %d places, %.6f seconds (%s, %d step%s)\n", n, places, seconds, ways[way], steps,
         steps > 1 ? "s" : "");
  for (int i = 0; i < n && !wrong; i++)
    for (int j = 0; j < n && !wrong; j++) {
      double want = 0;
      for (int k = 0; k < n; k++) want += element(i, k, 1) * element(k, j, 2);
      wrong = got[(size_t)i * n + j] != want;
    }
  printf(wrong ? "svp_matmul: FAILED\n" : "svp_matmul: OK\n");
  if (!remapped(way)) free(mem);
  free(got), free(place);
  return wrong;
}

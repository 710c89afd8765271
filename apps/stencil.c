/*
 * stencil.c - 2-D Jacobi iteration (5-point stencil) with halo exchange.
 *
 * The grid has rows_per_ue*N interior rows and `cols` interior columns, with
 * fixed boundaries: the top boundary row is 1.0, the other three are 0.0;
 * interior points start from a deterministic pattern.  Rows are split into
 * blocks of rows_per_ue, one per UE; every iteration each UE exchanges one
 * row (cols doubles: 64 bytes with the default cols=8) with each neighbour,
 * then updates its block.  At the end a sum and a position-weighted sum of
 * the grid are formed with RCCE_allreduce(RCCE_DOUBLE, RCCE_SUM) and UE 0
 * recomputes the whole grid serially and compares (relative error < 1e-12).
 * With --pairs each pair (2k, 2k+1) solves its own grid of 2*rows_per_ue rows
 * (checksum over a pair communicator from RCCE_comm_split; an odd last UE
 * idles); the pairs solve the same problem, so their checksums must agree
 * bit for bit, and UE 0 verifies its pair's.  The serial reference runs after
 * RCCE_finalize, whose clock has stopped: in model mode the verification is
 * not part of the modelled run (docs/model.md "Measured region").
 *
 * Mirrors the "Stencil" benchmark of Intel's RCCE suite as used in [FURST-2011] (docs/references.md)
 * (Furst & Coskun): compute-heavy, fixed 64-byte messages.
 *
 * usage: stencil [rows_per_ue=32] [iterations=100] [cols=8] [--pairs]
 */
#define APP_NAME "stencil"
#include "app_common.h"

#include <math.h>

/* Initial value of global point (row, col); rows and cols count the
   boundary, so interior rows are 1..nrows and interior cols 1..ncols. */
static double initial(int row, int col, int nrows, int ncols) {
  if (row == 0) return 1.0;
  if (row == nrows + 1 || col == 0 || col == ncols + 1) return 0.0;
  return (double)((7 * row + 13 * col) % 17) / 16.0;
}

/* Fills rows first_row .. first_row+rows+1 (own rows plus one halo row on
   each side) of a grid with nrows interior rows. */
static void init_block(double *u, int first_row, int rows, int nrows, int ncols) {
  for (int i = 0; i < rows + 2; i++)
    for (int j = 0; j < ncols + 2; j++) u[(size_t)i * (ncols + 2) + j] = initial(first_row + i, j, nrows, ncols);
}

/* One Jacobi sweep over the interior of a block: v = average of 4 neighbours in u. */
static void sweep(const double *u, double *v, int rows, int ncols) {
  size_t w = (size_t)ncols + 2;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= ncols; j++)
      v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
}

/* Adds the block's plain sum and a sum weighted by global position. */
static void checksum(const double *u, int first_row, int rows, int ncols, double sum[2]) {
  size_t w = (size_t)ncols + 2;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= ncols; j++) {
      sum[0] += u[i * w + j];
      sum[1] += u[i * w + j] * (double)((first_row + i) * w + j);
    }
}

/* Sends row `srow` of u to `to` and receives row `rrow` from `from` (-1 =
   none); even ranks send first, so synchronous sends cannot deadlock. */
static void exchange(double *u, int ncols, int even, int to, int srow, int from, int rrow) {
  size_t w = (size_t)ncols + 2, bytes = (size_t)ncols * sizeof(double);
  for (int step = 0; step < 2; step++) {
    if ((step == 0) == even) {
      if (to >= 0) app_rc(RCCE_send((char *)&u[srow * w + 1], bytes, to), "RCCE_send");
    } else if (from >= 0) {
      app_rc(RCCE_recv((char *)&u[rrow * w + 1], bytes, from), "RCCE_recv");
    }
  }
}

static double dabs(double x) { return x < 0.0 ? -x : x; }

static int pair_color(int rank, void *aux) {
  (void)aux;
  return rank / 2;
}

static double *grid(int rows, int ncols) {
  double *p = malloc(((size_t)rows + 2) * ((size_t)ncols + 2) * sizeof(double));
  if (!p) app_die("out of memory");
  return p;
}

/* Collective: whether every active UE holds the same checksum (the pairs of
   --pairs solve the same grid); idle UEs take no part in the comparison. */
static int checksums_agree(int active, const double sum[2]) {
  double mine[4] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, most[4];
  if (active) mine[0] = sum[0], mine[1] = sum[1], mine[2] = -sum[0], mine[3] = -sum[1];
  app_rc(RCCE_allreduce((char *)mine, (char *)most, 4, RCCE_DOUBLE, RCCE_MAX, RCCE_COMM_WORLD),
         "RCCE_allreduce(checksums)");
  return most[0] == -most[2] && most[1] == -most[3];
}

/* UE 0's serial reference for the whole grid; counts an error on a mismatch. */
static void verify_serially(int nrows, int ncols, int iterations, const double sum[2]) {
  double *su = grid(nrows, ncols), *sv = grid(nrows, ncols), ref[2] = {0.0, 0.0};
  init_block(su, 0, nrows, nrows, ncols);
  init_block(sv, 0, nrows, nrows, ncols);
  for (int it = 0; it < iterations; it++) {
    sweep(su, sv, nrows, ncols);
    double *tmp = su;
    su = sv;
    sv = tmp;
  }
  checksum(su, 0, nrows, ncols, ref);
  for (int k = 0; k < 2; k++)
    if (!(dabs(sum[k] - ref[k]) <= 1e-12 * dabs(ref[k])))
      app_error("checksum %d is %.17g, serial reference %.17g", k, sum[k], ref[k]);
  free(su);
  free(sv);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"rows_per_ue", 32, 1, 1L << 20}, {"iterations", 100, 1, 1000000}, {"cols", 8, 1, 1L << 20}};
  int pairs;
  int rc = app_args(argc, argv, args, 3, &pairs);
  if (rc >= 0 || (pairs && app_alone())) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int rows = (int)args[0].value, iterations = (int)args[1].value, ncols = (int)args[2].value;
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_group g = app_group_of(pairs);
  int active = !(pairs && g.size < 2);
  int nrows = rows * g.size, first_row = rows * g.rank;
  int up = g.rank > 0 ? app_group_ue(g, g.rank - 1) : -1;
  int down = g.rank < g.size - 1 ? app_group_ue(g, g.rank + 1) : -1;

  static RCCE_COMM pair_comm; /* zeroed: not yet initialised */
  RCCE_COMM *comm = &RCCE_COMM_WORLD;
  if (pairs) {
    app_rc(RCCE_comm_split(pair_color, NULL, &pair_comm), "RCCE_comm_split");
    comm = &pair_comm;
  }

  double *u = grid(rows, ncols), *v = grid(rows, ncols);
  init_block(u, first_row, rows, nrows, ncols);
  init_block(v, first_row, rows, nrows, ncols);

  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  for (int it = 0; active && it < iterations; it++) {
    int even = g.rank % 2 == 0;
    exchange(u, ncols, even, down, rows, up, 0);     /* last row down, halo from above */
    exchange(u, ncols, even, up, 1, down, rows + 1); /* first row up, halo from below */
    sweep(u, v, rows, ncols);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double t = app_max_time(RCCE_wtime() - t0);

  double local[2] = {0.0, 0.0}, sum[2] = {0.0, 0.0};
  if (active) {
    checksum(u, first_row, rows, ncols, local);
    app_rc(RCCE_allreduce((char *)local, (char *)sum, 2, RCCE_DOUBLE, RCCE_SUM, *comm), "RCCE_allreduce(checksum)");
  }
  if (!checksums_agree(active, sum)) app_error("the pairs' checksums differ");
  free(u);
  free(v);
  int errors = app_error_total();
  if (pairs) RCCE_comm_free(&pair_comm);
  RCCE_finalize();
  if (me == 0) {
    int before = *app_errcount();
    verify_serially(nrows, ncols, iterations, sum);
    errors += *app_errcount() - before;
    if (pairs)
      printf("stencil: %d pair(s)%s, each a %d x %d grid", np / 2, np % 2 ? " (last UE idle)" : "", nrows, ncols);
    else printf("stencil: %d x %d grid on %d UE(s)", nrows, ncols, np);
    printf(", %d iterations: checksum %.12e (weighted %.12e), %.6f s\n", iterations, sum[0], sum[1], t);
  }
  return app_report(errors);
}

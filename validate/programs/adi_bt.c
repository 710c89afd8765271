/*
 * adi_bt.c - an application-level stand-in for NAS BT (docs/model.md
 * "Whole applications"): the alternating-direction implicit solver of a 3-D
 * system of five coupled unknowns per point (the Euler equations, the grid
 * and right-hand side of euler_grid.h), with BT's structure and costs but
 * written from its description, not its code.  Every iteration forms the
 * right-hand side, then solves a block-tridiagonal system along every line
 * in x, then in y, then in z: at every point three 5x5 blocks from the flux
 * Jacobians of the point and its two neighbours on the line, and the block
 * Thomas algorithm (a 5x5 factorisation, a 5x5 matrix product and solves
 * per point forward, a 5x5 matrix-vector product back); then the update.
 * The x-y plane is split over a square number of UEs, as BT needs one; a
 * line that crosses UEs is solved as a pipeline over the k planes: each UE
 * takes the forward elimination's last blocks of its west (north)
 * neighbour's lines of plane k and passes its own on, one message per plane,
 * and the back substitution's values travel back the same way.  (BT itself
 * avoids the pipeline with its multi-partition of the cells.)  Class W's grid
 * is 24^3 and BT runs 200 iterations of it; each iteration costs the same.
 *
 * usage: adi_bt [n=24] [iterations=3]
 * prints (UE 0): "adi_bt n N ues U px PX py PY iterations I seconds S
 *                 rhs_norm R u_sum C"
 * The norm and sum do not depend on the decomposition beyond rounding.
 */
#define STANDIN_NAME "adi_bt"
#include "euler_grid.h"

/* A point's factor of the forward elimination: C' = B'^-1 C (the rhs
 * field holds r' and, after the back substitution, the solution). */
typedef double block[NV][NV];
static double *rhs;
static block *factor;

static block *factor_at(int k, int j, int i) { return &factor[((size_t)k * wy + j) * wx + i]; }

/* The point (k, j, i) moved `step` along direction d (0 x, 1 y, 2 z). */
static double *along(double *f, int k, int j, int i, int d, int step) {
  return at(f, k + (d == 2) * step, j + (d == 1) * step, i + (d == 0) * step);
}

/* The point's three blocks along d: a for its lower neighbour, b its own,
 * c for its upper neighbour. */
static void blocks(int k, int j, int i, int d, block a, block b, block c) {
  memset(a, 0, sizeof(block));
  memset(b, 0, sizeof(block));
  memset(c, 0, sizeof(block));
  add_jacobian(along(u, k, j, i, d, -1), d, -0.5 * DT, a);
  add_jacobian(along(u, k, j, i, d, +1), d, 0.5 * DT, c);
  add_jacobian(at(u, k, j, i), d, 0.05 * DT, b);
  for (int m = 0; m < NV; m++) {
    a[m][m] -= DT * DISSIPATION;
    c[m][m] -= DT * DISSIPATION;
    b[m][m] += 1.0 + 4 * DT * DISSIPATION;
  }
}

/* y -= p q for 5x5 p and 5-vector q. */
static void minus_product(const block p, const double *q, double *y) {
  for (int r = 0; r < NV; r++)
    for (int m = 0; m < NV; m++) y[r] -= p[r][m] * q[m];
}

/* One point of the forward elimination: with the lower neighbour's factor
 * C'_(-1) and r'_(-1), B' = B - A C'_(-1), r' = r - A r'_(-1), then
 * C' = B'^-1 C and r' = B'^-1 r' (B' factored once, the six right-hand
 * sides solved with it). */
static void eliminate(int k, int j, int i, int d, const block lower_factor, const double *lower_r) {
  block a, b, c, bc;
  blocks(k, j, i, d, a, b, c);
  double *r = at(rhs, k, j, i);
  if (lower_factor) {
    for (int x = 0; x < NV; x++)
      for (int y = 0; y < NV; y++)
        for (int m = 0; m < NV; m++) b[x][y] -= a[x][m] * lower_factor[m][y];
    minus_product(a, lower_r, r);
  }
  block *f = factor_at(k, j, i);
  for (int col = 0; col < NV; col++) {
    double x[NV];
    for (int m = 0; m < NV; m++) x[m] = c[m][col];
    memcpy(bc, b, sizeof(block));
    solve5(bc, x);
    for (int m = 0; m < NV; m++) (*f)[m][col] = x[m];
  }
  solve5(b, r);
}

/* The point `s` steps along d from (k, j, i). */
#define STEP(d, s) k + ((d) == 2) * (s), j + ((d) == 1) * (s), i + ((d) == 0) * (s)

/* The forward elimination along the line of len points from (k, j, i) in
 * direction d, given the factor and r' of the point before it (NULL where the
 * line starts with the grid's edge).  Points of the grid's edge are skipped:
 * their correction is 0. */
static void forward_line(int k, int j, int i, int d, int len, const block *lower_f, const double *lower_r) {
  for (int s = 0; s < len; s++) {
    if (!interior(STEP(d, s))) continue;
    eliminate(STEP(d, s), d, lower_f ? *lower_f : NULL, lower_r);
    lower_f = factor_at(STEP(d, s));
    lower_r = at(rhs, STEP(d, s));
  }
}

/* The back substitution along the same line, given the solution at the
 * point after it (NULL where the line ends with the grid's edge). */
static void backward_line(int k, int j, int i, int d, int len, const double *upper_x) {
  for (int s = len - 1; s >= 0; s--) {
    if (!interior(STEP(d, s))) continue;
    double *r = at(rhs, STEP(d, s));
    if (upper_x) minus_product(*factor_at(STEP(d, s)), upper_x, r);
    upper_x = r;
  }
}

static void send_along(int d, int step, size_t doubles) {
  send_to(d == 0 ? myx + step : myx, d == 1 ? myy + step : myy, doubles);
}
static void recv_along(int d, int step, size_t doubles) {
  recv_from(d == 0 ? myx + step : myx, d == 1 ? myy + step : myy, doubles);
}

/* The lines along x (d 0) or y (d 1), which cross the UEs of a row
 * (column): a pipeline over the k planes.  Forward, each UE takes plane k's
 * factors and r' of the points before its part from its lower neighbour and
 * passes its last points' on; back, the solutions at the points after its
 * part come from its upper neighbour, and its first points' go down. */
static void solve_split_lines(int d) {
  int me = d == 0 ? myx : myy, parts = d == 0 ? px : py;
  int lines = d == 0 ? ly : lx, len = d == 0 ? lx : ly;
  size_t per = NV * NV + NV;
  for (int k = 1; k < nz - 1; k++) {
    if (me > 0) recv_along(d, -1, (size_t)lines * per);
    for (int t = 0; t < lines; t++) {
      int j = d == 0 ? HALO + t : HALO, i = d == 1 ? HALO + t : HALO;
      const double *in = buffer + (size_t)t * per;
      forward_line(k, j, i, d, len, me > 0 ? (const block *)in : NULL, me > 0 ? in + NV * NV : NULL);
    }
    if (me + 1 < parts) {
      for (int t = 0; t < lines; t++) {
        int j = d == 0 ? HALO + t : HALO + len - 1, i = d == 1 ? HALO + t : HALO + len - 1;
        memcpy(buffer + (size_t)t * per, factor_at(k, j, i), sizeof(block));
        memcpy(buffer + (size_t)t * per + NV * NV, at(rhs, k, j, i), NV * sizeof(double));
      }
      send_along(d, +1, (size_t)lines * per);
    }
  }
  for (int k = 1; k < nz - 1; k++) {
    if (me + 1 < parts) recv_along(d, +1, (size_t)lines * NV);
    for (int t = 0; t < lines; t++) {
      int j = d == 0 ? HALO + t : HALO, i = d == 1 ? HALO + t : HALO;
      backward_line(k, j, i, d, len, me + 1 < parts ? buffer + (size_t)t * NV : NULL);
    }
    if (me > 0) {
      for (int t = 0; t < lines; t++) {
        int j = d == 0 ? HALO + t : HALO, i = d == 1 ? HALO + t : HALO;
        memcpy(buffer + (size_t)t * NV, at(rhs, k, j, i), NV * sizeof(double));
      }
      send_along(d, -1, (size_t)lines * NV);
    }
  }
}

/* The lines along z lie within a UE. */
static void solve_z_lines(void) {
  for (int j = HALO; j < ly + HALO; j++)
    for (int i = HALO; i < lx + HALO; i++) {
      forward_line(0, j, i, 2, nz, NULL, NULL);
      backward_line(0, j, i, 2, nz, NULL);
    }
}

static void update(void) {
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++)
        for (int m = 0; m < NV; m++) at(u, k, j, i)[m] += at(rhs, k, j, i)[m];
}

/* The side of a square number of UEs, or 0. */
static int square_side(int ues) {
  int s = 1;
  while (s * s < ues) s++;
  return s * s == ues ? s : 0;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int size = argc > 1 ? atoi(argv[1]) : 24, iterations = argc > 2 ? atoi(argv[2]) : 3;
  int side = square_side(RCCE_num_ues());
  if (!side || size < 5 || size > 1024 || iterations < 1 ||
      grid_init(size, side, side, (size_t)size * (NV * NV + NV)) != 0)
    return standin_usage("a square number of UEs");
  rhs = calloc((size_t)nz * wy * wx * NV, sizeof(double));
  factor = malloc((size_t)nz * wy * wx * sizeof *factor);
  if (!rhs || !factor) fail("out of memory");
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = RCCE_wtime();
  for (int it = 0; it < iterations; it++) {
    exchange_halo();
    right_hand_side(rhs);
    solve_split_lines(0);
    solve_split_lines(1);
    solve_z_lines();
    update();
  }
  return standin_finish("rhs", rhs, iterations, RCCE_wtime() - t0);
}

/*
 * ssor_lu.c - an application-level stand-in for NAS LU (docs/model.md
 * "Whole applications"): the SSOR solver of a 3-D system of five coupled
 * unknowns per point (the compressible Euler equations' density, momentum
 * and energy), with LU's structure and costs but written from its
 * description, not its code:
 *   - every iteration forms the right-hand side: central differences of the
 *     Euler fluxes in x, y and z plus fourth-order dissipation (a halo of
 *     two points from each neighbour in the 2-D decomposition);
 *   - a lower and an upper block-triangular sweep: at every point four 5x5
 *     matrices from the flux Jacobians of the neighbours, three 5x5
 *     matrix-vector products and a 5x5 elimination; the sweeps run as a
 *     wavefront over the k planes, each UE receiving its west and north
 *     (upper: east and south) neighbours' boundary of the plane and sending
 *     its own on, one message per plane and neighbour, as LU does;
 *   - the update u += rsd / (omega (2 - omega)).
 * The x-y plane is split over the UEs as LU splits it (px x py, px >= py,
 * both powers of two).  Class W's grid is 33^3 and LU runs 300 iterations
 * of it; each iteration costs the same, so a run of a few iterations gives
 * the time per iteration.
 *
 * usage: ssor_lu [n=33] [iterations=3]
 * prints (UE 0): "ssor_lu n N ues U px PX py PY iterations I seconds S
 *                 rsd_norm R u_sum C"
 * The norm and sum do not depend on the decomposition beyond rounding.  The
 * grid, the right-hand side and the halo exchange are euler_grid.h's.
 */
#define STANDIN_NAME "ssor_lu"
#include "euler_grid.h"

#define OMEGA 1.2

static double *rsd, (*jac)[4][NV][NV];

/* The four matrices of point (k, j, i) for the lower (side -1) or upper
 * (side +1) sweep: the three neighbours' Jacobians and the diagonal. */
static void jacobians(int k, int j, int i, int side, double m[4][NV][NV]) {
  memset(m, 0, sizeof(double) * 4 * NV * NV);
  const double *nb[3] = {at(u, k, j, i + side), at(u, k, j + side, i), at(u, k + side, j, i)};
  for (int d = 0; d < 3; d++) {
    add_jacobian(nb[d], d, 0.5 * DT * side, m[d]);
    for (int c = 0; c < NV; c++) m[d][c][c] -= DT * DISSIPATION;
  }
  const double *q = at(u, k, j, i);
  for (int d = 0; d < 3; d++) add_jacobian(q, d, 0.05 * DT, m[3]);
  for (int c = 0; c < NV; c++) m[3][c][c] += 1.0 + 6 * DT * DISSIPATION;
}

/* One plane of a sweep: rsd(k) -= omega (sum of neighbour matrices x
 * neighbour rsd), then solved with the diagonal block. */
static void sweep_plane(int k, int side) {
  int j0 = side < 0 ? HALO : ly + HALO - 1, i0 = side < 0 ? HALO : lx + HALO - 1, step = -side;
  for (int j = j0; j >= HALO && j < ly + HALO; j += step)
    for (int i = i0; i >= HALO && i < lx + HALO; i += step) {
      if (!interior(k, j, i)) continue;
      double(*m)[NV][NV] = jac[(j - HALO) * lx + (i - HALO)];
      jacobians(k, j, i, side, m);
      const double *nb[3] = {at(rsd, k, j, i + side), at(rsd, k, j + side, i), at(rsd, k + side, j, i)};
      double *r = at(rsd, k, j, i), t[NV];
      for (int a = 0; a < NV; a++) {
        double s = 0.0;
        for (int d = 0; d < 3; d++)
          for (int b = 0; b < NV; b++) s += m[d][a][b] * nb[d][b];
        t[a] = OMEGA * s;
      }
      if (side < 0) {
        for (int a = 0; a < NV; a++) t[a] = r[a] - t[a];
        solve5(m[3], t);
        memcpy(r, t, sizeof t);
      } else {
        solve5(m[3], t);
        for (int a = 0; a < NV; a++) r[a] -= t[a];
      }
    }
}

/* One boundary line of plane k of rsd: column i (w = 1) or row j. */
static size_t plane_line(int k, int fixed, int is_column, int to_buffer) {
  size_t b = 0;
  int len = is_column ? wy : wx;
  for (int t = 0; t < len; t++, b += NV) {
    double *p = is_column ? at(rsd, k, t, fixed) : at(rsd, k, fixed, t);
    if (to_buffer) memcpy(buffer + b, p, sizeof(double) * NV);
    else memcpy(p, buffer + b, sizeof(double) * NV);
  }
  return b;
}

/* The wavefront: the lower sweep takes plane k's west and north halo line
 * from the neighbours that finished plane k, and passes its east and south
 * line on; the upper sweep runs the other way. */
static void sweep(int side) {
  int west = side < 0 ? myx - 1 : myx + 1, north = side < 0 ? myy - 1 : myy + 1;
  int east = side < 0 ? myx + 1 : myx - 1, south = side < 0 ? myy + 1 : myy - 1;
  int halo_i = side < 0 ? HALO - 1 : lx + HALO, halo_j = side < 0 ? HALO - 1 : ly + HALO;
  int edge_i = side < 0 ? lx + HALO - 1 : HALO, edge_j = side < 0 ? ly + HALO - 1 : HALO;
  for (int s = 1; s < nz - 1; s++) {
    int k = side < 0 ? s : nz - 1 - s;
    if (north >= 0 && north < py) recv_from(myx, north, (size_t)wx * NV), plane_line(k, halo_j, 0, 0);
    if (west >= 0 && west < px) recv_from(west, myy, (size_t)wy * NV), plane_line(k, halo_i, 1, 0);
    sweep_plane(k, side);
    if (south >= 0 && south < py) send_to(myx, south, plane_line(k, edge_j, 0, 1));
    if (east >= 0 && east < px) send_to(east, myy, plane_line(k, edge_i, 1, 1));
  }
}

static void update(void) {
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++)
        for (int m = 0; m < NV; m++) at(u, k, j, i)[m] += at(rsd, k, j, i)[m] / (OMEGA * (2.0 - OMEGA));
}

/* px x py with px >= py, both powers of two (LU's rule). */
static int split(int ues, int *x, int *y) {
  if (ues < 1 || (ues & (ues - 1))) return 0;
  for (*y = 1, *x = ues; *x > *y; *x /= 2, *y *= 2) {}
  if (*x < *y) *x *= 2, *y /= 2;
  return 1;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int size = argc > 1 ? atoi(argv[1]) : 33, iterations = argc > 2 ? atoi(argv[2]) : 3, x, y;
  if (!split(RCCE_num_ues(), &x, &y) || size < 5 || size > 1024 || iterations < 1 || grid_init(size, x, y, 0) != 0)
    return standin_usage("a power-of-two number of UEs");
  rsd = calloc((size_t)nz * wy * wx * NV, sizeof(double));
  jac = malloc((size_t)lx * ly * sizeof *jac);
  if (!rsd || !jac) fail("out of memory");
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = RCCE_wtime();
  for (int it = 0; it < iterations; it++) {
    exchange_halo();
    right_hand_side(rsd);
    sweep(-1);
    sweep(+1);
    update();
  }
  return standin_finish("rsd", rsd, iterations, RCCE_wtime() - t0);
}

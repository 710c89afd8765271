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
 * The norm and sum do not depend on the decomposition beyond rounding.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"

#define NV 5   /* unknowns per point */
#define HALO 2 /* halo width in x and y (fourth-order dissipation) */
#define GAMMA 1.4
#define OMEGA 1.2
#define DT 0.5
#define DISSIPATION 0.25

static int n, nz, px, py, myx, myy, lx, ly, gx0, gy0, wx, wy;
static double *u, *rsd, (*jac)[4][NV][NV];

/* Point (k, j, i) of a field, i and j local with the halo (0 .. l + 3). */
static double *at(double *f, int k, int j, int i) { return f + (((size_t)k * wy + j) * wx + i) * NV; }
static int ue_at(int x, int y) { return y * px + x; }
static int global_i(int i) { return gx0 + i - HALO; }
static int global_j(int j) { return gy0 + j - HALO; }
static int interior(int k, int j, int i) {
  int gi = global_i(i), gj = global_j(j);
  return k > 0 && k < nz - 1 && gi > 0 && gi < n - 1 && gj > 0 && gj < n - 1;
}

/* The Euler flux in direction d (0 x, 1 y, 2 z) of state q. */
static void flux(const double *q, int d, double *f) {
  double v = q[1 + d] / q[0], ke = 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / q[0];
  double p = (GAMMA - 1) * (q[4] - ke);
  f[0] = q[1 + d];
  for (int m = 0; m < 3; m++) f[1 + m] = q[1 + m] * v + (m == d ? p : 0.0);
  f[4] = (q[4] + p) * v;
}

/* The flux Jacobian dF_d/dq at state q, scaled by s, added to a. */
static void add_jacobian(const double *q, int d, double s, double a[NV][NV]) {
  double r = 1.0 / q[0], vel[3] = {q[1] * r, q[2] * r, q[3] * r}, vd = vel[d];
  double qq = 0.5 * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
  double h = GAMMA * q[4] * r - (GAMMA - 1) * qq;
  a[0][1 + d] += s;
  for (int m = 0; m < 3; m++) {
    a[1 + m][0] += s * (-vel[m] * vd + (m == d ? (GAMMA - 1) * qq : 0.0));
    for (int c = 0; c < 3; c++)
      a[1 + m][1 + c] += s * ((m == c ? vd : 0.0) + (c == d ? vel[m] : 0.0) - (m == d ? (GAMMA - 1) * vel[c] : 0.0));
    a[1 + m][4] += s * (m == d ? GAMMA - 1 : 0.0);
  }
  a[4][0] += s * vd * ((GAMMA - 1) * qq - h);
  for (int c = 0; c < 3; c++) a[4][1 + c] += s * ((c == d ? h : 0.0) - (GAMMA - 1) * vel[c] * vd);
  a[4][4] += s * GAMMA * vd;
}

/* Solves d x = b in place (b becomes x) by elimination without pivoting:
 * d is diagonally dominant. */
static void solve5(double d[NV][NV], double *b) {
  for (int c = 0; c < NV; c++) {
    double inv = 1.0 / d[c][c];
    for (int r = c + 1; r < NV; r++) {
      double f = d[r][c] * inv;
      for (int k = c + 1; k < NV; k++) d[r][k] -= f * d[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int r = NV - 1; r >= 0; r--) {
    double s = b[r];
    for (int k = r + 1; k < NV; k++) s -= d[r][k] * b[k];
    b[r] = s / d[r][r];
  }
}

static void fail(const char *what) {
  fprintf(stderr, "ssor_lu: UE %d: %s\n", RCCE_ue(), what);
  exit(1);
}

/* ------------------------------------------------------------ messages */

static double *buffer;

static void send_to(int x, int y, size_t doubles) {
  if (RCCE_send((char *)buffer, doubles * sizeof(double), ue_at(x, y)) != RCCE_SUCCESS) fail("RCCE_send");
}
static void recv_from(int x, int y, size_t doubles) {
  if (RCCE_recv((char *)buffer, doubles * sizeof(double), ue_at(x, y)) != RCCE_SUCCESS) fail("RCCE_recv");
}

/* Copies columns i0 .. i0+w-1 (every k and j) of f to or from the buffer. */
static size_t columns(double *f, int i0, int w, int to_buffer) {
  size_t b = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < wy; j++)
      for (int i = i0; i < i0 + w; i++, b += NV)
        if (to_buffer) memcpy(buffer + b, at(f, k, j, i), sizeof(double) * NV);
        else memcpy(at(f, k, j, i), buffer + b, sizeof(double) * NV);
  return b;
}
static size_t rows(double *f, int j0, int w, int to_buffer) {
  size_t b = 0;
  for (int k = 0; k < nz; k++)
    for (int j = j0; j < j0 + w; j++)
      for (int i = 0; i < wx; i++, b += NV)
        if (to_buffer) memcpy(buffer + b, at(f, k, j, i), sizeof(double) * NV);
        else memcpy(at(f, k, j, i), buffer + b, sizeof(double) * NV);
  return b;
}

/* The halo of u from the four neighbours; even positions send first so the
 * synchronous sends pair up. */
static void exchange_halo(void) {
  for (int step = 0; step < 2; step++) {
    int sending = (myx % 2 == 0) == (step == 0);
    if (sending) {
      if (myx + 1 < px) send_to(myx + 1, myy, columns(u, lx, HALO, 1));
      if (myx > 0) send_to(myx - 1, myy, columns(u, HALO, HALO, 1));
    } else {
      if (myx > 0) recv_from(myx - 1, myy, (size_t)nz * wy * HALO * NV), columns(u, 0, HALO, 0);
      if (myx + 1 < px) recv_from(myx + 1, myy, (size_t)nz * wy * HALO * NV), columns(u, lx + HALO, HALO, 0);
    }
  }
  for (int step = 0; step < 2; step++) {
    int sending = (myy % 2 == 0) == (step == 0);
    if (sending) {
      if (myy + 1 < py) send_to(myx, myy + 1, rows(u, ly, HALO, 1));
      if (myy > 0) send_to(myx, myy - 1, rows(u, HALO, HALO, 1));
    } else {
      if (myy > 0) recv_from(myx, myy - 1, (size_t)nz * HALO * wx * NV), rows(u, 0, HALO, 0);
      if (myy + 1 < py) recv_from(myx, myy + 1, (size_t)nz * HALO * wx * NV), rows(u, ly + HALO, HALO, 0);
    }
  }
}

/* ------------------------------------------------------- the solver */

static double initial(int m, int gk, int gj, int gi) {
  double x = (double)gi / (n - 1), y = (double)gj / (n - 1), z = (double)gk / (nz - 1);
  double s = sin(3.0 * x + 1.0) * cos(2.0 * y) * sin(2.5 * z + 0.5);
  static const double base[NV] = {1.0, 0.1, 0.05, 0.02, 2.5};
  return base[m] * (1.0 + 0.1 * s + 0.02 * m * x * y);
}

/* Clamps an index of the k direction (not split) to the grid. */
static int kc(int k) { return k < 0 ? 0 : k >= nz ? nz - 1 : k; }

/* rsd = -(flux differences) - dissipation at every interior point. */
static void right_hand_side(void) {
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++) {
        double *r = at(rsd, k, j, i);
        if (!interior(k, j, i)) {
          memset(r, 0, sizeof(double) * NV);
          continue;
        }
        double fp[NV], fm[NV];
        const double *nb[3][5] = {
            {at(u, k, j, i - 2), at(u, k, j, i - 1), at(u, k, j, i), at(u, k, j, i + 1), at(u, k, j, i + 2)},
            {at(u, k, j - 2, i), at(u, k, j - 1, i), at(u, k, j, i), at(u, k, j + 1, i), at(u, k, j + 2, i)},
            {at(u, kc(k - 2), j, i), at(u, k - 1, j, i), at(u, k, j, i), at(u, k + 1, j, i), at(u, kc(k + 2), j, i)}};
        for (int m = 0; m < NV; m++) r[m] = 0.0;
        for (int d = 0; d < 3; d++) {
          flux(nb[d][3], d, fp);
          flux(nb[d][1], d, fm);
          for (int m = 0; m < NV; m++)
            r[m] -= 0.5 * (fp[m] - fm[m]) +
                    DISSIPATION * (nb[d][0][m] - 4 * nb[d][1][m] + 6 * nb[d][2][m] - 4 * nb[d][3][m] + nb[d][4][m]);
        }
        for (int m = 0; m < NV; m++) r[m] *= DT;
      }
}

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

/* UE 0's (sum of rsd^2, sum of u) over the whole grid. */
static void norms(double out[2]) {
  double mine[2] = {0.0, 0.0};
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++)
        for (int m = 0; m < NV; m++) {
          mine[0] += at(rsd, k, j, i)[m] * at(rsd, k, j, i)[m];
          mine[1] += at(u, k, j, i)[m];
        }
  if (RCCE_allreduce((char *)mine, (char *)out, 2, RCCE_DOUBLE, RCCE_SUM, RCCE_COMM_WORLD) != RCCE_SUCCESS)
    fail("RCCE_allreduce");
}

/* px x py with px >= py, both powers of two (LU's rule). */
static int split(int ues) {
  if (ues < 1 || (ues & (ues - 1))) return 0;
  for (py = 1, px = ues; px > py; px /= 2, py *= 2) {}
  if (px < py) px *= 2, py /= 2;
  return 1;
}

/* This UE's share [start, start + len) of n points split over parts. */
static void share(int parts, int me, int *start, int *len) {
  *start = me * n / parts;
  *len = (me + 1) * n / parts - *start;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  n = argc > 1 ? atoi(argv[1]) : 33;
  int iterations = argc > 2 ? atoi(argv[2]) : 3;
  nz = n;
  if (!split(RCCE_num_ues()) || n < 5 || n > 1024 || iterations < 1 || n / px < HALO || n / py < HALO) {
    if (RCCE_ue() == 0)
      fprintf(stderr,
              "ssor_lu: usage: ssor_lu [n 5..1024] [iterations >= 1] on a power-of-two number of UEs "
              "with at least %d points per UE in x and y\n",
              HALO);
    RCCE_finalize();
    return 2;
  }
  myx = RCCE_ue() % px, myy = RCCE_ue() / px;
  share(px, myx, &gx0, &lx);
  share(py, myy, &gy0, &ly);
  wx = lx + 2 * HALO, wy = ly + 2 * HALO;
  size_t points = (size_t)nz * wy * wx;
  u = malloc(points * NV * sizeof(double));
  rsd = calloc(points * NV, sizeof(double));
  jac = malloc((size_t)lx * ly * sizeof *jac);
  buffer = malloc((size_t)nz * HALO * (wx > wy ? wx : wy) * NV * sizeof(double));
  if (!u || !rsd || !jac || !buffer) fail("out of memory");
  /* Every point, halo included, starts from the initial state (clamped to
   * the grid), so the halo beyond the grid's edge holds boundary values. */
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < wy; j++)
      for (int i = 0; i < wx; i++) {
        int gi = global_i(i), gj = global_j(j);
        gi = gi < 0 ? 0 : gi >= n ? n - 1 : gi;
        gj = gj < 0 ? 0 : gj >= n ? n - 1 : gj;
        for (int m = 0; m < NV; m++) at(u, k, j, i)[m] = initial(m, k, gj, gi);
      }
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = RCCE_wtime();
  for (int it = 0; it < iterations; it++) {
    exchange_halo();
    right_hand_side();
    sweep(-1);
    sweep(+1);
    update();
  }
  double seconds = RCCE_wtime() - t0, sums[2];
  norms(sums);
  if (RCCE_ue() == 0)
    printf("ssor_lu n %d ues %d px %d py %d iterations %d seconds %.9f rsd_norm %.15e u_sum %.15e\n", n, RCCE_num_ues(),
           px, py, iterations, seconds, sqrt(sums[0]), sums[1]);
  RCCE_finalize();
  return 0;
}

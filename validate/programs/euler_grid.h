/*
 * euler_grid.h - what the application stand-ins of make validate share
 * (ssor_lu.c, adi_bt.c; docs/model.md "Whole applications"): a 3-D grid of
 * five unknowns per point (the compressible Euler equations' density,
 * momentum and energy) whose x-y plane is split over px x py UEs, with a
 * halo of two points; the Euler fluxes and their Jacobians; the right-hand
 * side (central flux differences and fourth-order dissipation); the halo
 * exchange; a 5x5 solve.  Written from the NAS codes' descriptions, not
 * their code.  Define STANDIN_NAME before including it.
 */
#ifndef EULER_GRID_H
#define EULER_GRID_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"

#define NV 5   /* unknowns per point */
#define HALO 2 /* halo width in x and y (fourth-order dissipation) */
#define GAMMA 1.4
#define DT 0.5
#define DISSIPATION 0.25

/* The grid: n points a side (nz = n in z, not split); this UE at (myx,
 * myy) of px x py holds lx x ly points from (gx0, gy0), wx x wy with the
 * halo; u the unknowns, buffer the messages'. */
static int n, nz, px, py, myx, myy, lx, ly, gx0, gy0, wx, wy;
static double *u, *buffer;

/* Point (k, j, i) of a field, i and j local with the halo (0 .. l + 3). */
static double *at(double *f, int k, int j, int i) { return f + (((size_t)k * wy + j) * wx + i) * NV; }
static int ue_at(int x, int y) { return y * px + x; }
static int global_i(int i) { return gx0 + i - HALO; }
static int global_j(int j) { return gy0 + j - HALO; }
static int interior(int k, int j, int i) {
  int gi = global_i(i), gj = global_j(j);
  return k > 0 && k < nz - 1 && gi > 0 && gi < n - 1 && gj > 0 && gj < n - 1;
}

static void fail(const char *what) {
  fprintf(stderr, STANDIN_NAME ": UE %d: %s\n", RCCE_ue(), what);
  exit(1);
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

/* ------------------------------------------------------------ messages */

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

/* ------------------------------------------------------- the grid */

static double initial(int m, int gk, int gj, int gi) {
  double x = (double)gi / (n - 1), y = (double)gj / (n - 1), z = (double)gk / (nz - 1);
  double s = sin(3.0 * x + 1.0) * cos(2.0 * y) * sin(2.5 * z + 0.5);
  static const double base[NV] = {1.0, 0.1, 0.05, 0.02, 2.5};
  return base[m] * (1.0 + 0.1 * s + 0.02 * m * x * y);
}

/* Clamps an index of the k direction (not split) to the grid. */
static int kc(int k) { return k < 0 ? 0 : k >= nz ? nz - 1 : k; }

/* rhs = -(flux differences) - dissipation at every interior point. */
static void right_hand_side(double *rhs) {
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++) {
        double *r = at(rhs, k, j, i);
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

/* UE 0's (sum of r^2, sum of u) over the whole grid. */
static void grid_sums(double *r, double out[2]) {
  double mine[2] = {0.0, 0.0};
  for (int k = 0; k < nz; k++)
    for (int j = HALO; j < ly + HALO; j++)
      for (int i = HALO; i < lx + HALO; i++)
        for (int m = 0; m < NV; m++) {
          mine[0] += at(r, k, j, i)[m] * at(r, k, j, i)[m];
          mine[1] += at(u, k, j, i)[m];
        }
  if (RCCE_allreduce((char *)mine, (char *)out, 2, RCCE_DOUBLE, RCCE_SUM, RCCE_COMM_WORLD) != RCCE_SUCCESS)
    fail("RCCE_allreduce");
}

/* This UE's share [start, start + len) of n points split over parts. */
static void share(int parts, int me, int *start, int *len) {
  *start = me * n / parts;
  *len = (me + 1) * n / parts - *start;
}

/* Lays out this UE's part of an n^3 grid split px_ x py_ and fills u (the
 * halo too: beyond the grid's edge it holds the boundary's values); the
 * message buffer holds `buffer_doubles` or a halo, whichever is larger.
 * Returns 0, or -1 if the split leaves a UE fewer than HALO points a side. */
static int grid_init(int n_, int px_, int py_, size_t buffer_doubles) {
  n = nz = n_, px = px_, py = py_;
  if (n / px < HALO || n / py < HALO) return -1;
  myx = RCCE_ue() % px, myy = RCCE_ue() / px;
  share(px, myx, &gx0, &lx);
  share(py, myy, &gy0, &ly);
  wx = lx + 2 * HALO, wy = ly + 2 * HALO;
  size_t halo = (size_t)nz * HALO * (wx > wy ? wx : wy) * NV;
  u = malloc((size_t)nz * wy * wx * NV * sizeof(double));
  buffer = malloc((halo > buffer_doubles ? halo : buffer_doubles) * sizeof(double));
  if (!u || !buffer) fail("out of memory");
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < wy; j++)
      for (int i = 0; i < wx; i++) {
        int gi = global_i(i), gj = global_j(j);
        gi = gi < 0 ? 0 : gi >= n ? n - 1 : gi;
        gj = gj < 0 ? 0 : gj >= n ? n - 1 : gj;
        for (int m = 0; m < NV; m++) at(u, k, j, i)[m] = initial(m, k, gj, gi);
      }
  return 0;
}

/* What a stand-in refuses: UE 0 says so; the job ends with exit status 2. */
static int standin_usage(const char *ues) {
  if (RCCE_ue() == 0)
    fprintf(stderr,
            STANDIN_NAME ": usage: " STANDIN_NAME " [n 5..1024] [iterations >= 1] on %s with at least %d points "
                         "per UE in x and y\n",
            ues, HALO);
  RCCE_finalize();
  return 2;
}

/* The run's result line (UE 0): the timed iterations' seconds, the norm of
 * the field r (named `residual`) and the sum of u. */
static int standin_finish(const char *residual, double *r, int iterations, double seconds) {
  double sums[2];
  grid_sums(r, sums);
  if (RCCE_ue() == 0)
    printf(STANDIN_NAME " n %d ues %d px %d py %d iterations %d seconds %.9f %s_norm %.15e u_sum %.15e\n", n,
           RCCE_num_ues(), px, py, iterations, seconds, residual, sqrt(sums[0]), sums[1]);
  RCCE_finalize();
  return 0;
}

#endif

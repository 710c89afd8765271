/*
 * collectives.c - communicators and collectives of the basic interface.
 *
 * usage: collectives [count=3000]
 *
 *  1. RCCE_allreduce / RCCE_reduce (every root) over RCCE_COMM_WORLD for all
 *     four types and four operators, with `count` elements (so more than one
 *     RCCE_chunk of payload for the larger types); results checked exactly
 *     (integer-valued inputs, so even float/double sums are exact).
 *  2. RCCE_bcast from every root, of 1 byte, one chunk and several chunks.
 *  3. RCCE_comm_split into pairs (rank/2), parity (rank%2), and "all"; size,
 *     rank, member order, barriers and collectives inside each communicator.
 *  4. The basic interface keeps spare MPB lines for 8 communicators alive at
 *     once besides RCCE_COMM_WORLD and RCCE_P_COMM (docs/rcce.md): 8 more
 *     splits succeed, a 9th returns RCCE_ERROR_COMM_INITIALIZED, and after
 *     RCCE_comm_free of one a new split succeeds again.
 *  5. Small reductions (at most one MPB line) over every UE, the one-barrier
 *     path of native mode, back to back with RCCE_send/RCCE_recv around the
 *     ring and RCCE_reduce to a rotating root, with UE 0 lagging now and
 *     then: a UE that leaves early and sends must not disturb the pieces its
 *     peers still read.
 * Any failure prints "collectives: UE n: ..." and exits 1; UE 0 prints
 * "collectives: OK" at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "testprog.h"
#include "RCCE_lib.h"

static int me, np;

static void ok(int rc, const char *what) {
  if (rc != RCCE_SUCCESS) fail("%s returned %d", what, rc);
}

static const int types[] = {RCCE_INT, RCCE_LONG, RCCE_FLOAT, RCCE_DOUBLE};
static const char *type_names[] = {"INT", "LONG", "FLOAT", "DOUBLE"};
static const int ops[] = {RCCE_SUM, RCCE_MIN, RCCE_MAX, RCCE_PROD};
static const char *op_names[] = {"SUM", "MIN", "MAX", "PROD"};

/* Element i of UE u's input: small integers, so every result is exact. */
static long input(int u, int i, int op) {
  if (op == RCCE_PROD) return (i + u) % 3 == 0 ? 2 : 1; /* products stay small */
  return (long)((i * 7 + u * 13) % 101) - 50;
}

static long expect(int i, int op, const int *members, int n) {
  long r = input(members[0], i, op);
  for (int k = 1; k < n; k++) {
    long v = input(members[k], i, op);
    if (op == RCCE_SUM) r += v;
    else if (op == RCCE_PROD) r *= v;
    else if (op == RCCE_MIN) r = v < r ? v : r;
    else r = v > r ? v : r;
  }
  return r;
}

static size_t tsize(int t) {
  return t == RCCE_INT ? sizeof(int) : t == RCCE_LONG ? sizeof(long) : t == RCCE_FLOAT ? sizeof(float) : sizeof(double);
}
static void put_val(void *buf, int t, int i, long v) {
  if (t == RCCE_INT) ((int *)buf)[i] = (int)v;
  else if (t == RCCE_LONG) ((long *)buf)[i] = v;
  else if (t == RCCE_FLOAT) ((float *)buf)[i] = (float)v;
  else ((double *)buf)[i] = (double)v;
}
static long get_val(const void *buf, int t, int i) {
  if (t == RCCE_INT) return ((const int *)buf)[i];
  if (t == RCCE_LONG) return ((const long *)buf)[i];
  if (t == RCCE_FLOAT) return (long)((const float *)buf)[i];
  return (long)((const double *)buf)[i];
}

/* All reductions over comm (whose members are members[0..n-1], my rank r). */
static void reductions(RCCE_COMM comm, const int *members, int n, int r, int count, const char *name) {
  void *in = malloc((size_t)count * 8), *out = malloc((size_t)count * 8);
  if (!in || !out) fail("out of memory");
  for (int ti = 0; ti < 4; ti++)
    for (int oi = 0; oi < 4; oi++) {
      int t = types[ti], op = ops[oi];
      for (int i = 0; i < count; i++) put_val(in, t, i, input(members[r], i, op));
      /* allreduce */
      memset(out, 0x77, (size_t)count * tsize(t));
      ok(RCCE_allreduce(in, out, count, t, op, comm), "RCCE_allreduce");
      for (int i = 0; i < count; i++)
        if (get_val(out, t, i) != expect(i, op, members, n))
          fail("%s: RCCE_allreduce(%s, %s) element %d is %ld, expected %ld", name, type_names[ti], op_names[oi], i,
               get_val(out, t, i), expect(i, op, members, n));
      /* reduce to every root in turn (only 2 roots for the long runs) */
      for (int root = 0; root < n; root += (n > 4 ? n - 1 : 1)) {
        memset(out, 0x77, (size_t)count * tsize(t));
        ok(RCCE_reduce(in, out, count, t, op, root, comm), "RCCE_reduce");
        if (r == root)
          for (int i = 0; i < count; i++)
            if (get_val(out, t, i) != expect(i, op, members, n))
              fail("%s: RCCE_reduce(%s, %s, root %d) element %d is %ld, expected %ld", name, type_names[ti],
                   op_names[oi], root, i, get_val(out, t, i), expect(i, op, members, n));
      }
    }
  free(in);
  free(out);
}

static void broadcasts(RCCE_COMM comm, int n, int r, const char *name) {
  size_t sizes[] = {1, RCCE_chunk, 3 * RCCE_chunk + 17};
  for (size_t s = 0; s < 3; s++) {
    size_t bytes = sizes[s];
    unsigned char *buf = malloc(bytes);
    if (!buf) fail("out of memory");
    for (int root = 0; root < n; root += (n > 4 ? n - 1 : 1)) {
      for (size_t i = 0; i < bytes; i++) buf[i] = r == root ? (unsigned char)(i * 31 + root + s) : 0xEE;
      ok(RCCE_bcast((char *)buf, bytes, root, comm), "RCCE_bcast");
      for (size_t i = 0; i < bytes; i++)
        if (buf[i] != (unsigned char)(i * 31 + root + s))
          fail("%s: RCCE_bcast of %zu bytes from root %d: byte %zu is 0x%02x", name, bytes, root, i, buf[i]);
    }
    free(buf);
  }
}

/* Section 5 (header): SUM of (u + 1) * (round + i) over every UE u, for every type and length up to a line. */
static void small_reductions_between_sends(RCCE_COMM c, const char *name) {
  const long sum_ue = (long)np * (np + 1) / 2;
  unsigned char out_msg[64], in_msg[64];
  int right = (me + 1) % np, left = (me + np - 1) % np;
  for (int round = 0; round < 100; round++) {
    for (int ti = 0; ti < 4; ti++)
      for (int n = 1; n * tsize(types[ti]) <= 32; n *= 2) {
        long in[4], out[4];
        for (int i = 0; i < n; i++) put_val(in, types[ti], i, (long)(me + 1) * (round + i));
        if (me == 0 && round % 7 == 0)
          for (volatile int spin = 0; spin < 20000; spin++) continue; /* lag: the others run ahead */
        ok(RCCE_allreduce((char *)in, (char *)out, n, types[ti], RCCE_SUM, c), "small RCCE_allreduce");
        for (int i = 0; i < n; i++)
          if (get_val(out, types[ti], i) != sum_ue * (round + i))
            fail("%s: RCCE_allreduce(%s) of %d, round %d: element %d is %ld, expected %ld", name, type_names[ti], n,
                 round, i, get_val(out, types[ti], i), sum_ue * (round + i));
        if (np < 2) continue;
        memset(out_msg, me * 13 + round, sizeof out_msg);
        if (me % 2 == 0) ok(RCCE_send((char *)out_msg, sizeof out_msg, right), "RCCE_send");
        ok(RCCE_recv((char *)in_msg, sizeof in_msg, left), "RCCE_recv");
        if (me % 2 != 0) ok(RCCE_send((char *)out_msg, sizeof out_msg, right), "RCCE_send");
        for (size_t b = 0; b < sizeof in_msg; b++)
          if (in_msg[b] != (unsigned char)(left * 13 + round))
            fail("%s: ring message of round %d corrupted", name, round);
      }
    long mine = me + 1, total = 0;
    int root = round % np;
    ok(RCCE_reduce((char *)&mine, (char *)&total, 1, RCCE_LONG, RCCE_SUM, root, c), "RCCE_reduce");
    if (me == root && total != sum_ue) fail("%s: RCCE_reduce to %d gave %ld, expected %ld", name, root, total, sum_ue);
  }
}

static int pair_color(int ue, void *aux) {
  (void)aux;
  return ue / 2;
}
static int parity_color(int ue, void *aux) {
  (void)aux;
  return ue % 2;
}
static int index_color(int ue, void *aux) { return ue < *(int *)aux ? 0 : 1; }

static void check_comm(RCCE_COMM *c, int (*color)(int, void *), void *aux, const char *name, int count) {
  int members[RCCE_MAXNP], n = 0, r = -1, mine = color(me, aux);
  for (int u = 0; u < np; u++)
    if (color(u, aux) == mine) {
      if (u == me) r = n;
      members[n++] = u;
    }
  int size = -1, rank = -1;
  ok(RCCE_comm_size(*c, &size), "RCCE_comm_size");
  ok(RCCE_comm_rank(*c, &rank), "RCCE_comm_rank");
  if (size != n || rank != r) fail("%s: size %d rank %d, expected %d and %d", name, size, rank, n, r);
  for (int k = 0; k < n; k++)
    if (c->member[k] != members[k]) fail("%s: member %d is UE %d, expected %d", name, k, c->member[k], members[k]);
  ok(RCCE_barrier(c), "RCCE_barrier(sub)");
  reductions(*c, members, n, r, count, name);
  broadcasts(*c, n, r, name);
  ok(RCCE_barrier(c), "RCCE_barrier(sub)");
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  me = RCCE_ue();
  testprog_name = "collectives";
  testprog_ue = me;
  np = RCCE_num_ues();
  int count = argc > 1 ? atoi(argv[1]) : 3000;

  int world[RCCE_MAXNP];
  for (int u = 0; u < np; u++) world[u] = u;
  reductions(RCCE_COMM_WORLD, world, np, me, count, "world");
  broadcasts(RCCE_COMM_WORLD, np, me, "world");

  RCCE_COMM pairs, parity, all;
  ok(RCCE_comm_split(pair_color, NULL, &pairs), "RCCE_comm_split(pairs)");
  ok(RCCE_comm_split(parity_color, NULL, &parity), "RCCE_comm_split(parity)");
  ok(RCCE_comm_split(RCCE_global_color, NULL, &all), "RCCE_comm_split(all)");
  check_comm(&pairs, pair_color, NULL, "pairs", 50);
  check_comm(&parity, parity_color, NULL, "parity", 50);
  check_comm(&all, RCCE_global_color, NULL, "all", 50);
  small_reductions_between_sends(RCCE_COMM_WORLD, "world, small");
  small_reductions_between_sends(all, "all, small");

  int half = np / 2; /* UEs below half form colour 0 of index_color */
  ok(RCCE_comm_free(&all), "RCCE_comm_free(all)");
  ok(RCCE_comm_free(&parity), "RCCE_comm_free(parity)");
  ok(RCCE_comm_free(&pairs), "RCCE_comm_free(pairs)");

  /* Eight communicators alive at once; a ninth does not fit. */
  RCCE_COMM many[9];
  for (int k = 0; k < 8; k++) {
    char what[64];
    snprintf(what, sizeof what, "RCCE_comm_split number %d of 8", k + 1);
    ok(RCCE_comm_split(index_color, &half, &many[k]), what);
  }
  for (int k = 0; k < 8; k++) ok(RCCE_barrier(&many[k]), "RCCE_barrier(many)");
  int rc = RCCE_comm_split(index_color, &half, &many[8]);
  if (rc != RCCE_ERROR_COMM_INITIALIZED)
    fail("a 9th RCCE_comm_split returned %d, expected RCCE_ERROR_COMM_INITIALIZED (%d)", rc,
         RCCE_ERROR_COMM_INITIALIZED);
  ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  ok(RCCE_comm_free(&many[3]), "RCCE_comm_free(many[3])");
  ok(RCCE_comm_split(parity_color, NULL, &many[3]), "RCCE_comm_split after RCCE_comm_free");
  check_comm(&many[3], parity_color, NULL, "parity (reused line)", 20);
  for (int k = 0; k < 8; k++) check_comm(&many[k], k == 3 ? parity_color : index_color, &half, "many", 4);
  for (int k = 0; k < 8; k++) ok(RCCE_comm_free(&many[k]), "RCCE_comm_free(many)");

  ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  if (me == 0) printf("collectives: OK (%d UEs, count %d, chunk %zu)\n", np, count, RCCE_chunk);
  fflush(stdout);
  RCCE_finalize();
  return 0;
}

/*
 * stress.c - an ordinary MPI program (nothing of OpenSCC in it) that checks what it receives from
 * every part of MPI that a transport carries: point-to-point from 0 B to MAXBYTES (blocking,
 * synchronous, non-blocking, MPI_Sendrecv, any source, probe/iprobe/mprobe/improbe), every
 * collective in its blocking and non-blocking form (neighbourhood ones on a ring topology),
 * communicator split/dup/create, derived datatypes (vector, indexed, struct) and one-sided
 * communication (put, get, accumulate, fetch-and-op, compare-and-swap) under fences, post-start-
 * complete-wait and passive locks.
 *
 * usage: stress [MAXBYTES=4194304]   (the largest point-to-point message; any number of ranks)
 * Rank 0 prints "stress: OK (N ranks, up to MAXBYTES bytes)". The first mismatch prints
 * "stress: rank R: WHAT: ..." (what was expected, what arrived) and ends the job with MPI_Abort(1).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

/* Print "stress: rank R: message" in one write (lines of several ranks must not mix) and abort. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...) {
  char line[600];
  int n = snprintf(line, sizeof line, "stress: rank %d: ", me);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n - 2, fmt, ap);
  va_end(ap);
  strcat(line, "\n");
  fputs(line, stderr);
  fflush(NULL);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached: MPI_Abort does not return */
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) fail("out of memory (%zu bytes)", n);
  return p;
}

static int right(void) { return (me + 1) % np; }
static int left(void) { return (me + np - 1) % np; }

/* ---- point-to-point ---------------------------------------------------------------------- */

/* The byte at offset i of a len-byte message from src to dst: differs between neighbouring
 * offsets, 256-byte blocks, senders, receivers and lengths, so a misplaced chunk shows. */
static unsigned char pattern(int src, int dst, size_t len, size_t i) {
  return (unsigned char)((size_t)src * 131u + (size_t)dst * 31u + len * 7u + i * 13u + (i >> 8));
}

static void fill(unsigned char *buf, int src, int dst, size_t len) {
  for (size_t i = 0; i < len; i++) buf[i] = pattern(src, dst, len, i);
}

/* Checks a received message: its source, tag and length as MPI reports them, and every byte. */
static void check_msg(const char *what, const unsigned char *buf, const MPI_Status *st, int src, int tag, size_t len) {
  int count;
  MPI_Get_count(st, MPI_BYTE, &count);
  if (st->MPI_SOURCE != src || st->MPI_TAG != tag || (size_t)count != len)
    fail("%s: status says source %d tag %d %d bytes, expected source %d tag %d %zu bytes", what, st->MPI_SOURCE,
         st->MPI_TAG, count, src, tag, len);
  for (size_t i = 0; i < len; i++)
    if (buf[i] != pattern(src, me, len, i))
      fail("%s: %zu-byte message from rank %d: byte %zu is 0x%02x, expected 0x%02x", what, len, src, i, buf[i],
           pattern(src, me, len, i));
}

/* The message lengths tried: both sides of the usual eager/rendezvous and packet boundaries. */
static const size_t lengths[] = {0, 1, 7, 64, 65, 1000, 4096, 8195, 65536, 262145, 1 << 20, 4 << 20};
enum { N_LENGTHS = sizeof lengths / sizeof lengths[0] };

/* MPI_Sendrecv around the ring: to the right, from the left. */
static void p2p_sendrecv_ring(size_t maxbytes, unsigned char *out, unsigned char *in) {
  for (int k = 0; k < N_LENGTHS && lengths[k] <= maxbytes; k++) {
    size_t len = lengths[k];
    MPI_Status st;
    fill(out, me, right(), len);
    MPI_Sendrecv(out, (int)len, MPI_BYTE, right(), k, in, (int)len, MPI_BYTE, left(), k, MPI_COMM_WORLD, &st);
    check_msg("MPI_Sendrecv ring", in, &st, left(), k, len);
  }
  /* MPI_Sendrecv_replace: the buffer goes right and comes back filled from the left. */
  size_t len = maxbytes < 100000 ? maxbytes : 100000;
  MPI_Status st;
  fill(in, me, right(), len);
  MPI_Sendrecv_replace(in, (int)len, MPI_BYTE, right(), 99, left(), 99, MPI_COMM_WORLD, &st);
  check_msg("MPI_Sendrecv_replace ring", in, &st, left(), 99, len);
}

/* Blocking pairs (0,1), (2,3), ...: the even rank sends first; MPI_Ssend on every other length. */
static void p2p_blocking_pairs(size_t maxbytes, unsigned char *out, unsigned char *in) {
  int peer = me ^ 1;
  if (peer >= np) return;
  for (int k = 0; k < N_LENGTHS && lengths[k] <= maxbytes; k++) {
    size_t len = lengths[k];
    MPI_Status st;
    fill(out, me, peer, len);
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == (me % 2 == 0)) {
        if (k % 2) MPI_Ssend(out, (int)len, MPI_BYTE, peer, k, MPI_COMM_WORLD);
        else MPI_Send(out, (int)len, MPI_BYTE, peer, k, MPI_COMM_WORLD);
      } else {
        MPI_Recv(in, (int)len, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
        check_msg(k % 2 ? "MPI_Ssend/MPI_Recv pair" : "MPI_Send/MPI_Recv pair", in, &st, peer, k, len);
      }
    }
  }
}

/* Non-blocking both ways around the ring at once (MPI_Isend, MPI_Issend, MPI_Irecv, MPI_Waitall). */
static void p2p_nonblocking_ring(size_t maxbytes, unsigned char *out, unsigned char *in) {
  unsigned char *out2 = xmalloc(maxbytes), *in2 = xmalloc(maxbytes);
  for (int k = 0; k < N_LENGTHS && lengths[k] <= maxbytes; k++) {
    size_t len = lengths[k];
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Irecv(in, (int)len, MPI_BYTE, left(), k, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(in2, (int)len, MPI_BYTE, right(), 1000 + k, MPI_COMM_WORLD, &req[1]);
    fill(out, me, right(), len);
    fill(out2, me, left(), len);
    MPI_Isend(out, (int)len, MPI_BYTE, right(), k, MPI_COMM_WORLD, &req[2]);
    MPI_Issend(out2, (int)len, MPI_BYTE, left(), 1000 + k, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, st);
    /* With 2 ranks left and right are the same rank: the tags keep the directions apart. */
    check_msg("MPI_Isend/MPI_Irecv ring", in, &st[0], left(), k, len);
    check_msg("MPI_Issend/MPI_Irecv ring", in2, &st[1], right(), 1000 + k, len);
  }
  free(out2);
  free(in2);
}

/* Every rank to every other rank at once, 100..999 bytes, completed with MPI_Waitany. */
static void p2p_all_pairs(void) {
  enum { MAXLEN = 1000 };
  unsigned char *out = xmalloc((size_t)np * MAXLEN), *in = xmalloc((size_t)np * MAXLEN);
  MPI_Request *req = xmalloc(2 * (size_t)np * sizeof *req);
  for (int p = 0; p < np; p++) {
    size_t to = 100 + (size_t)(me * 37 + p * 11) % 900, from = 100 + (size_t)(p * 37 + me * 11) % 900;
    fill(out + (size_t)p * MAXLEN, me, p, to);
    MPI_Irecv(in + (size_t)p * MAXLEN, (int)from, MPI_BYTE, p, 7, MPI_COMM_WORLD, &req[p]);
    MPI_Isend(out + (size_t)p * MAXLEN, (int)to, MPI_BYTE, p, 7, MPI_COMM_WORLD, &req[np + p]);
  }
  for (int done = 0; done < 2 * np; done++) {
    int i;
    MPI_Status st;
    MPI_Waitany(2 * np, req, &i, &st);
    if (i < np) {
      size_t from = 100 + (size_t)(i * 37 + me * 11) % 900;
      check_msg("all pairs MPI_Isend/MPI_Irecv/MPI_Waitany", in + (size_t)i * MAXLEN, &st, i, 7, from);
    }
  }
  free(out);
  free(in);
  free(req);
}

/* How rank 0 receives in fan_in: a plain receive from MPI_ANY_SOURCE, or a probe of each kind. */
enum fan_in_kind { FAN_ANY_SOURCE, FAN_PROBE, FAN_IPROBE, FAN_MPROBE, FAN_IMPROBE, N_FAN_KINDS };
static const char *const fan_in_name[] = {"MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG)", "MPI_Probe", "MPI_Iprobe",
                                          "MPI_Mprobe/MPI_Mrecv", "MPI_Improbe/MPI_Imrecv"};

/* Odd ranks send more than the channel's single-copy threshold (32 KiB): their rendezvous reach
 * rank 0 before it probes or posts, and wait in their EWSs until it does (docs/mpi-channel.md). */
#define FAN_IN_MAX 60000
static size_t fan_in_len(int src, int kind) {
  return 1 + (size_t)(src * 997 + kind * 131) % 20000 + (src % 2 ? 40000 : 0);
}

/* Rank 0 receives one message from every other rank in whatever order they come; the tag is the
 * sender's rank, the length its own. Each sender must come exactly once. */
static void fan_in_root(enum fan_in_kind kind, unsigned char *in) {
  char *seen = xmalloc((size_t)np);
  memset(seen, 0, (size_t)np);
  for (int n = 1; n < np; n++) {
    MPI_Status st;
    MPI_Message msg;
    int flag = 0, count;
    switch (kind) {
      case FAN_ANY_SOURCE: MPI_Recv(in, FAN_IN_MAX, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); break;
      case FAN_PROBE:
      case FAN_IPROBE:
        if (kind == FAN_PROBE) MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        while (!flag && kind == FAN_IPROBE) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        /* Exactly the probed size, from the probed source and tag. */
        MPI_Recv(in, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        break;
      case FAN_MPROBE:
      case FAN_IMPROBE:
        if (kind == FAN_MPROBE) MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
        while (!flag && kind == FAN_IMPROBE) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (kind == FAN_MPROBE) {
          MPI_Mrecv(in, count, MPI_BYTE, &msg, &st);
        } else {
          MPI_Request req;
          MPI_Imrecv(in, count, MPI_BYTE, &msg, &req);
          MPI_Wait(&req, &st);
        }
        break;
      default: fail("fan_in: kind %d", (int)kind);
    }
    int src = st.MPI_SOURCE;
    if (src <= 0 || src >= np || seen[src]) fail("%s: message %d came from rank %d", fan_in_name[kind], n, src);
    seen[src] = 1;
    check_msg(fan_in_name[kind], in, &st, src, src, fan_in_len(src, kind));
  }
  free(seen);
}

static void p2p_fan_in(unsigned char *out, unsigned char *in) {
  for (int kind = 0; kind < N_FAN_KINDS; kind++) {
    if (me == 0) {
      fan_in_root((enum fan_in_kind)kind, in);
    } else {
      size_t len = fan_in_len(me, kind);
      fill(out, me, 0, len);
      MPI_Send(out, (int)len, MPI_BYTE, 0, me, MPI_COMM_WORLD);
    }
    /* Rounds must not mix: the next round's messages would match this round's wildcards. */
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

static void point_to_point(size_t maxbytes) {
  unsigned char *out = xmalloc(maxbytes > FAN_IN_MAX ? maxbytes : FAN_IN_MAX);
  unsigned char *in = xmalloc(maxbytes > FAN_IN_MAX ? maxbytes : FAN_IN_MAX);
  p2p_sendrecv_ring(maxbytes, out, in);
  p2p_blocking_pairs(maxbytes, out, in);
  p2p_nonblocking_ring(maxbytes, out, in);
  p2p_all_pairs();
  p2p_fan_in(out, in);
  free(out);
  free(in);
}

/* ---- collectives ------------------------------------------------------------------------- */

/* Runs MPI_<blocking>(args) or, when nb, MPI_<nonblocking>(args, &req) + MPI_Wait. */
#define COLL(nb, blocking, nonblocking, ...) \
  do {                                       \
    if (nb) {                                \
      MPI_Request req_;                      \
      MPI_##nonblocking(__VA_ARGS__, &req_); \
      MPI_Wait(&req_, MPI_STATUS_IGNORE);    \
    } else {                                 \
      MPI_##blocking(__VA_ARGS__);           \
    }                                        \
  } while (0)

enum { BLOCK = 100 }; /* ints per rank in the fixed-size collectives */

/* The int that rank src gives rank dst at index i (src, dst < 48 and i < 1000 keep sums in int). */
static int val(int src, int dst, int i) { return src * 100000 + dst * 1000 + i; }
/* The variable counts: some ranks give or get nothing. */
static int vcount(int r) { return r % 4 * 7; }
/* Displacements with a one-int gap after each rank's part, so that a write past a part shows. */
static int vdispl(int r) {
  int d = 0;
  for (int s = 0; s < r; s++) d += vcount(s) + 1;
  return d;
}
static int vtotal(void) { return vdispl(np); }

static void expect_int(const char *what, int nb, int index, int got, int want) {
  if (got != want) fail("%s%s: element %d is %d, expected %d", nb ? "MPI_I" : "MPI_", what, index, got, want);
}

static int *ints(size_t n, int value) {
  int *p = xmalloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = value;
  return p;
}

static void coll_bcast_reduce(int nb) {
  int root = np - 1, *buf = ints(1000, -1), *out = ints(1000, -1);
  if (me == root)
    for (int i = 0; i < 1000; i++) buf[i] = val(root, 0, i);
  COLL(nb, Bcast, Ibcast, buf, 1000, MPI_INT, root, MPI_COMM_WORLD);
  for (int i = 0; i < 1000; i++) expect_int("bcast", nb, i, buf[i], val(root, 0, i));

  int tri = np * (np - 1) / 2;
  for (int i = 0; i < 1000; i++) buf[i] = me + i;
  COLL(nb, Reduce, Ireduce, buf, out, 1000, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    for (int i = 0; i < 1000; i++) expect_int("reduce(MPI_SUM)", nb, i, out[i], tri + np * i);
  COLL(nb, Allreduce, Iallreduce, buf, out, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < 1000; i++) expect_int("allreduce(MPI_SUM)", nb, i, out[i], tri + np * i);
  COLL(nb, Allreduce, Iallreduce, MPI_IN_PLACE, buf, 1000, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < 1000; i++) expect_int("allreduce(MPI_IN_PLACE, MPI_MAX)", nb, i, buf[i], np - 1 + i);

  /* MPI_MAXLOC over (value, rank) pairs: the largest (me * 7) % np, lowest rank on ties. */
  struct {
    int v, r;
  } pair = {me * 7 % np, me}, best, want = {-1, -1};
  for (int r = 0; r < np; r++)
    if (r * 7 % np > want.v) want.v = r * 7 % np, want.r = r;
  COLL(nb, Allreduce, Iallreduce, &pair, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
  expect_int("allreduce(MPI_MAXLOC) value", nb, 0, best.v, want.v);
  expect_int("allreduce(MPI_MAXLOC) rank", nb, 0, best.r, want.r);

  /* A large broadcast (1 MiB) in several packets. */
  enum { BIG = 1 << 20 };
  unsigned char *big = xmalloc(BIG);
  if (me == root) fill(big, root, 0, BIG);
  COLL(nb, Bcast, Ibcast, big, BIG, MPI_BYTE, root, MPI_COMM_WORLD);
  for (size_t i = 0; i < BIG; i++)
    if (big[i] != pattern(root, 0, BIG, i)) fail("%sbcast 1 MiB: byte %zu differs", nb ? "MPI_I" : "MPI_", i);
  free(big);
  free(buf);
  free(out);
}

static void coll_gather_scatter(int nb) {
  int root = np / 2, n = np * BLOCK;
  int *mine = ints(BLOCK, 0), *all = ints((size_t)n, -1);
  for (int i = 0; i < BLOCK; i++) mine[i] = val(me, root, i);
  COLL(nb, Gather, Igather, mine, BLOCK, MPI_INT, all, BLOCK, MPI_INT, root, MPI_COMM_WORLD);
  if (me == root)
    for (int i = 0; i < n; i++) expect_int("gather", nb, i, all[i], val(i / BLOCK, root, i % BLOCK));

  if (me == root)
    for (int i = 0; i < n; i++) all[i] = val(root, i / BLOCK, i % BLOCK);
  COLL(nb, Scatter, Iscatter, all, BLOCK, MPI_INT, mine, BLOCK, MPI_INT, root, MPI_COMM_WORLD);
  for (int i = 0; i < BLOCK; i++) expect_int("scatter", nb, i, mine[i], val(root, me, i));

  for (int i = 0; i < BLOCK; i++) mine[i] = val(me, 0, i);
  COLL(nb, Allgather, Iallgather, mine, BLOCK, MPI_INT, all, BLOCK, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) expect_int("allgather", nb, i, all[i], val(i / BLOCK, 0, i % BLOCK));
  free(mine);
  free(all);
}

/* The v-variants: rank r contributes vcount(r) ints placed at vdispl(r); the gaps stay -1. */
static void expect_v_layout(const char *what, int nb, const int *buf, int dst) {
  for (int r = 0; r < np; r++) {
    for (int i = 0; i < vcount(r); i++) expect_int(what, nb, vdispl(r) + i, buf[vdispl(r) + i], val(r, dst, i));
    expect_int(what, nb, vdispl(r) + vcount(r), buf[vdispl(r) + vcount(r)], -1);
  }
}

static void coll_gather_scatter_v(int nb) {
  int root = np - 1, *counts = ints((size_t)np, 0), *displs = ints((size_t)np, 0);
  for (int r = 0; r < np; r++) counts[r] = vcount(r), displs[r] = vdispl(r);
  int *mine = ints(64, -1), *all = ints((size_t)vtotal(), -1);
  for (int i = 0; i < vcount(me); i++) mine[i] = val(me, root, i);
  COLL(nb, Gatherv, Igatherv, mine, vcount(me), MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
  if (me == root) expect_v_layout("gatherv", nb, all, root);

  /* Scatterv sends what rank root holds for each rank: val(root, r, i). */
  for (int r = 0; r < np && me == root; r++)
    for (int i = 0; i < vcount(r); i++) all[vdispl(r) + i] = val(root, r, i);
  for (int i = 0; i < 64; i++) mine[i] = -1;
  COLL(nb, Scatterv, Iscatterv, all, counts, displs, MPI_INT, mine, vcount(me), MPI_INT, root, MPI_COMM_WORLD);
  for (int i = 0; i < vcount(me); i++) expect_int("scatterv", nb, i, mine[i], val(root, me, i));
  expect_int("scatterv (past the end)", nb, vcount(me), mine[vcount(me)], -1);

  for (int i = 0; i < vcount(me); i++) mine[i] = val(me, 0, i);
  for (int i = 0; i < vtotal(); i++) all[i] = -1;
  COLL(nb, Allgatherv, Iallgatherv, mine, vcount(me), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  expect_v_layout("allgatherv", nb, all, 0);
  free(counts);
  free(displs);
  free(mine);
  free(all);
}

/* All-to-all: what src sends dst is (src + dst) % 3 * 5 ints in the v and w forms. */
static int a2a_count(int src, int dst) { return (src + dst) % 3 * 5; }

static void coll_alltoall(int nb) {
  int n = np * BLOCK, *out = ints((size_t)n, 0), *in = ints((size_t)n, -1);
  for (int i = 0; i < n; i++) out[i] = val(me, i / BLOCK, i % BLOCK);
  COLL(nb, Alltoall, Ialltoall, out, BLOCK, MPI_INT, in, BLOCK, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) expect_int("alltoall", nb, i, in[i], val(i / BLOCK, me, i % BLOCK));

  int *scount = ints((size_t)np, 0), *sdispl = ints((size_t)np, 0), *rcount = ints((size_t)np, 0),
      *rdispl = ints((size_t)np, 0), *sbytes = ints((size_t)np, 0), *rbytes = ints((size_t)np, 0);
  MPI_Datatype *types = xmalloc((size_t)np * sizeof *types);
  for (int p = 0, so = 0, ro = 0; p < np; p++) {
    scount[p] = a2a_count(me, p), rcount[p] = a2a_count(p, me);
    sdispl[p] = so, rdispl[p] = ro;
    sbytes[p] = so * (int)sizeof(int), rbytes[p] = ro * (int)sizeof(int), types[p] = MPI_INT;
    for (int i = 0; i < scount[p]; i++) out[so + i] = val(me, p, i);
    so += scount[p], ro += rcount[p] + 1; /* one-int gap after each received part */
  }
  for (int w = 0; w < 2; w++) {
    for (int i = 0; i < n; i++) in[i] = -1;
    if (w) COLL(nb, Alltoallw, Ialltoallw, out, scount, sbytes, types, in, rcount, rbytes, types, MPI_COMM_WORLD);
    else COLL(nb, Alltoallv, Ialltoallv, out, scount, sdispl, MPI_INT, in, rcount, rdispl, MPI_INT, MPI_COMM_WORLD);
    const char *what = w ? "alltoallw" : "alltoallv";
    for (int p = 0; p < np; p++) {
      for (int i = 0; i < rcount[p]; i++) expect_int(what, nb, rdispl[p] + i, in[rdispl[p] + i], val(p, me, i));
      expect_int(what, nb, rdispl[p] + rcount[p], in[rdispl[p] + rcount[p]], -1);
    }
  }
  free(out), free(in), free(scount), free(sdispl), free(rcount), free(rdispl), free(sbytes), free(rbytes);
  free(types);
}

static void coll_reduce_scatter_scan(int nb) {
  int n = np * BLOCK, *in = ints((size_t)n, 0), *out = ints((size_t)n, -1);
  int srcsum = 100000 * (np * (np - 1) / 2); /* sum over senders of val(s, .., ..)'s src part */
  for (int i = 0; i < n; i++) in[i] = val(me, i / BLOCK, i % BLOCK);
  COLL(nb, Reduce_scatter_block, Ireduce_scatter_block, in, out, BLOCK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < BLOCK; i++) expect_int("reduce_scatter_block", nb, i, out[i], srcsum + np * (1000 * me + i));

  int *counts = ints((size_t)np, 0);
  for (int r = 0, o = 0; r < np; r++) {
    counts[r] = vcount(r);
    for (int i = 0; i < vcount(r); i++) in[o + i] = val(me, r, i);
    o += vcount(r);
  }
  for (int i = 0; i < n; i++) out[i] = -1;
  COLL(nb, Reduce_scatter, Ireduce_scatter, in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < vcount(me); i++) expect_int("reduce_scatter", nb, i, out[i], srcsum + np * (1000 * me + i));

  for (int i = 0; i < BLOCK; i++) in[i] = me + i;
  COLL(nb, Scan, Iscan, in, out, BLOCK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < BLOCK; i++) expect_int("scan", nb, i, out[i], me * (me + 1) / 2 + (me + 1) * i);
  COLL(nb, Exscan, Iexscan, in, out, BLOCK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < BLOCK && me > 0; i++) expect_int("exscan", nb, i, out[i], me * (me - 1) / 2 + me * i);
  free(in), free(out), free(counts);
}

/* Neighbourhood collectives on a periodic 1-D Cartesian ring: neighbours are (left, right). */
static void coll_neighbour(int nb) {
  MPI_Comm ring;
  int dims[1] = {np}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  int out[2 * BLOCK], in[2 * BLOCK];
  for (int i = 0; i < BLOCK; i++) out[i] = val(me, 0, i);
  COLL(nb, Neighbor_allgather, Ineighbor_allgather, out, BLOCK, MPI_INT, in, BLOCK, MPI_INT, ring);
  for (int i = 0; i < BLOCK; i++) {
    expect_int("neighbor_allgather (from left)", nb, i, in[i], val(left(), 0, i));
    expect_int("neighbor_allgather (from right)", nb, BLOCK + i, in[BLOCK + i], val(right(), 0, i));
  }
  /* Block 0 goes to the left neighbour, block 1 to the right; each tells which way it went. With
   * 1 or 2 ranks both neighbours are one rank, and which of its blocks lands where was only settled
   * by MPI-3.1: then either order passes. */
  for (int i = 0; i < BLOCK; i++) out[i] = val(me, 0, i), out[BLOCK + i] = val(me, 1, i);
  COLL(nb, Neighbor_alltoall, Ineighbor_alltoall, out, BLOCK, MPI_INT, in, BLOCK, MPI_INT, ring);
  int swapped = np <= 2 && in[0] == val(left(), 0, 0);
  for (int i = 0; i < BLOCK; i++) {
    expect_int("neighbor_alltoall (from left)", nb, i, in[i], val(left(), !swapped, i));
    expect_int("neighbor_alltoall (from right)", nb, BLOCK + i, in[BLOCK + i], val(right(), swapped, i));
  }
  MPI_Comm_free(&ring);
}

static void collectives(void) {
  for (int nb = 0; nb < 2; nb++) {
    COLL(nb, Barrier, Ibarrier, MPI_COMM_WORLD);
    coll_bcast_reduce(nb);
    coll_gather_scatter(nb);
    coll_gather_scatter_v(nb);
    coll_alltoall(nb);
    coll_reduce_scatter_scan(nb);
    coll_neighbour(nb);
  }
}

/* ---- communicators ----------------------------------------------------------------------- */

static void expect_comm(const char *what, int got, int want) {
  if (got != want) fail("%s is %d, expected %d", what, got, want);
}

/* MPI_Comm_split by rank % 3 with key -rank: ranks in reverse order inside each colour. */
static void comm_split(void) {
  MPI_Comm sub;
  int color = me % 3, size, rank, above = 0, members = 0, sum, want = 0;
  MPI_Comm_split(MPI_COMM_WORLD, color, -me, &sub);
  for (int r = 0; r < np; r++)
    if (r % 3 == color) members++, want += r, above += r > me;
  MPI_Comm_size(sub, &size);
  MPI_Comm_rank(sub, &rank);
  expect_comm("MPI_Comm_split: size", size, members);
  expect_comm("MPI_Comm_split: rank", rank, above);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub);
  expect_comm("MPI_Comm_split: allreduce of the world ranks", sum, want);
  /* The highest world rank of the colour is rank 0 of sub: its broadcast reaches the colour. */
  int from = me;
  MPI_Bcast(&from, 1, MPI_INT, 0, sub);
  int highest = color + (np - 1 - color) / 3 * 3;
  expect_comm("MPI_Comm_split: broadcast from sub rank 0", from, highest);
  MPI_Comm_free(&sub);
}

/* MPI_Comm_dup: same group, separate matching (a message on one never matches a receive on the other). */
static void comm_dup(void) {
  MPI_Comm dup;
  int cmp;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  expect_comm("MPI_Comm_compare(world, dup)", cmp, MPI_CONGRUENT);
  if (np > 1 && me < 2) {
    int a = 0, b = 0;
    if (me == 0) {
      int on_world = 111, on_dup = 222;
      MPI_Send(&on_world, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
      MPI_Send(&on_dup, 1, MPI_INT, 1, 5, dup);
    } else {
      /* Receive in the opposite order: the dup's message first. */
      MPI_Recv(&b, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
      MPI_Recv(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      expect_comm("MPI_Comm_dup: the message on the dup", b, 222);
      expect_comm("MPI_Comm_dup: the message on world", a, 111);
    }
  }
  MPI_Comm_free(&dup);
}

/* MPI_Comm_create from the group of even ranks: odd ranks get MPI_COMM_NULL. */
static void comm_create(void) {
  MPI_Group world, evens;
  int n = (np + 1) / 2, *ranks = ints((size_t)n, 0);
  for (int i = 0; i < n; i++) ranks[i] = 2 * i;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, n, ranks, &evens);
  MPI_Comm comm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &comm);
  if ((comm == MPI_COMM_NULL) != (me % 2 == 1))
    fail("MPI_Comm_create: %s communicator on an %s rank", comm == MPI_COMM_NULL ? "no" : "a", me % 2 ? "odd" : "even");
  if (comm != MPI_COMM_NULL) {
    int sum;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm);
    expect_comm("MPI_Comm_create: allreduce of the even world ranks", sum, n * (n - 1));
    MPI_Comm_free(&comm);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
  free(ranks);
}

/* ---- derived datatypes ------------------------------------------------------------------- */

enum { DIM = 16 };

/* A matrix column as MPI_Type_vector: sent from a column of the sender's matrix, received once
 * into a contiguous array and once into a column of the receiver's matrix (the rest untouched). */
static void type_vector(void) {
  double m[DIM][DIM], col[DIM], got[DIM][DIM];
  MPI_Datatype column;
  MPI_Type_vector(DIM, 1, DIM, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  for (int r = 0; r < DIM; r++)
    for (int c = 0; c < DIM; c++) m[r][c] = me * 1000.0 + r * DIM + c, got[r][c] = -1.0;
  int c = me % DIM, lc = left() % DIM; /* column sent, column the left neighbour sends */
  MPI_Sendrecv(&m[0][c], 1, column, right(), 20, col, DIM, MPI_DOUBLE, left(), 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int r = 0; r < DIM; r++)
    if (col[r] != left() * 1000.0 + r * DIM + lc) fail("MPI_Type_vector: row %d of the column is %g", r, col[r]);
  MPI_Sendrecv(&m[0][c], 1, column, right(), 21, &got[0][(c + 1) % DIM], 1, column, left(), 21, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int r = 0; r < DIM; r++)
    for (int k = 0; k < DIM; k++) {
      double want = k == (c + 1) % DIM ? left() * 1000.0 + r * DIM + lc : -1.0;
      if (got[r][k] != want) fail("MPI_Type_vector into a column: [%d][%d] is %g, expected %g", r, k, got[r][k], want);
    }
  /* In a collective: rank 0's column 3 to everyone's column 3. */
  for (int r = 0; r < DIM; r++) m[r][3] = me == 0 ? 7.0 * r : -1.0;
  MPI_Bcast(&m[0][3], 1, column, 0, MPI_COMM_WORLD);
  for (int r = 0; r < DIM; r++)
    if (m[r][3] != 7.0 * r) fail("MPI_Bcast of an MPI_Type_vector column: row %d is %g", r, m[r][3]);
  MPI_Type_free(&column);
}

/* MPI_Type_indexed: blocks of 1, 3, 2, 5 ints at 0, 2, 8, 13, gathered into 11 contiguous ints. */
static void type_indexed(void) {
  int lens[4] = {1, 3, 2, 5}, displs[4] = {0, 2, 8, 13}, src[20], dst[11];
  MPI_Datatype idx;
  MPI_Type_indexed(4, lens, displs, MPI_INT, &idx);
  MPI_Type_commit(&idx);
  for (int i = 0; i < 20; i++) src[i] = val(me, right(), i);
  MPI_Sendrecv(src, 1, idx, right(), 22, dst, 11, MPI_INT, left(), 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int b = 0, k = 0; b < 4; b++)
    for (int i = 0; i < lens[b]; i++, k++)
      if (dst[k] != val(left(), me, displs[b] + i))
        fail("MPI_Type_indexed: int %d is %d, expected %d", k, dst[k], val(left(), me, displs[b] + i));
  MPI_Type_free(&idx);
}

/* MPI_Type_create_struct over a C struct with padding, resized to the struct's size. */
struct rec {
  char c;
  double d;
  int i[3];
  short s;
};

static struct rec rec_of(int src, int k) {
  struct rec r = {(char)('a' + (src + k) % 26), src * 0.5 + k, {src, k, src * k}, (short)(src - k)};
  return r;
}

static void type_struct(void) {
  enum { N = 7 };
  int lens[4] = {1, 1, 3, 1};
  MPI_Aint displs[4] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i),
                        offsetof(struct rec, s)};
  MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, raw, rec_type;
  MPI_Type_create_struct(4, lens, displs, types, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(struct rec), &rec_type);
  MPI_Type_commit(&rec_type);
  struct rec out[N], in[N];
  memset(in, 0, sizeof in);
  for (int k = 0; k < N; k++) out[k] = rec_of(me, k);
  MPI_Sendrecv(out, N, rec_type, right(), 23, in, N, rec_type, left(), 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int k = 0; k < N; k++) {
    struct rec w = rec_of(left(), k);
    if (in[k].c != w.c || in[k].d != w.d || in[k].i[0] != w.i[0] || in[k].i[1] != w.i[1] || in[k].i[2] != w.i[2] ||
        in[k].s != w.s)
      fail("MPI_Type_create_struct: record %d is {%c, %g, {%d, %d, %d}, %d}, expected {%c, %g, {%d, %d, %d}, %d}", k,
           in[k].c, in[k].d, in[k].i[0], in[k].i[1], in[k].i[2], in[k].s, w.c, w.d, w.i[0], w.i[1], w.i[2], w.s);
  }
  MPI_Type_free(&rec_type);
  MPI_Type_free(&raw);
}

/* ---- one-sided --------------------------------------------------------------------------- */

/* The ints of each rank's window. */
enum {
  W_PUT = 0,     /* written by the left neighbour's MPI_Put (fence), then by PSCW */
  W_GET = 1,     /* 8 ints me * 1000 + k, read by the right neighbour's MPI_Get */
  W_ACC = 16,    /* 4 ints, rank 0: MPI_Accumulate(MPI_SUM) of every rank's me + i */
  W_FOP = 24,    /* rank 0: MPI_Fetch_and_op counter */
  W_CAS = 25,    /* rank 0: MPI_Compare_and_swap slot, -1 until one rank wins */
  W_LOCKED = 26, /* rank 0: read-increment-write under exclusive locks */
  W_INTS = 32
};

static void expect_rma(const char *what, int got, int want) {
  if (got != want) fail("%s: %d, expected %d", what, got, want);
}

/* A word of rank target's window, read with MPI_Get under a shared lock. */
static int rma_read(MPI_Win win, int target, int disp) {
  int v;
  MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
  MPI_Get(&v, 1, MPI_INT, target, disp, 1, MPI_INT, win);
  MPI_Win_unlock(target, win);
  return v;
}

static void rma_fence(MPI_Win win, int *buf) {
  int got[8], one[4];
  for (int i = 0; i < 4; i++) one[i] = me + i;
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  int v = me * 7 + 1;
  MPI_Put(&v, 1, MPI_INT, right(), W_PUT, 1, MPI_INT, win);
  MPI_Get(got, 8, MPI_INT, left(), W_GET, 8, MPI_INT, win);
  MPI_Accumulate(one, 4, MPI_INT, 0, W_ACC, 4, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  expect_rma("MPI_Put under fences", buf[W_PUT], left() * 7 + 1);
  for (int k = 0; k < 8; k++) expect_rma("MPI_Get under fences", got[k], left() * 1000 + k);
  for (int i = 0; i < 4 && me == 0; i++)
    expect_rma("MPI_Accumulate(MPI_SUM) under fences", buf[W_ACC + i], np * (np - 1) / 2 + np * i);
}

/* Post-start-complete-wait: each rank exposes its window to its left neighbour and writes into
 * its right neighbour's. */
static void rma_pscw(MPI_Win win, int *buf) {
  MPI_Group world, from, to;
  int l = left(), r = right();
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &l, &from);
  MPI_Group_incl(world, 1, &r, &to);
  MPI_Win_post(from, 0, win);
  MPI_Win_start(to, 0, win);
  int v = me * 3 + 2;
  MPI_Put(&v, 1, MPI_INT, r, W_PUT, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  expect_rma("MPI_Put in a post/start/complete/wait epoch", buf[W_PUT], l * 3 + 2);
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
}

static void rma_passive(MPI_Win win) {
  /* MPI_Fetch_and_op: every rank adds 1; the old values are 0..np-1, each once. */
  int one = 1, old, cas_old, want_cas = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Fetch_and_op(&one, &old, MPI_INT, 0, W_FOP, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  int *olds = ints((size_t)np, 0);
  MPI_Allgather(&old, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0, sum = 0; r < np; r++) {
    sum += olds[r];
    if (olds[r] < 0 || olds[r] >= np) fail("MPI_Fetch_and_op: rank %d fetched %d", r, olds[r]);
    if (r == np - 1) expect_rma("MPI_Fetch_and_op: sum of the fetched values", sum, np * (np - 1) / 2);
  }
  free(olds);

  /* MPI_Compare_and_swap: every rank tries -1 -> its rank; exactly one wins. */
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Compare_and_swap(&me, &want_cas, &cas_old, MPI_INT, 0, W_CAS, win);
  MPI_Win_unlock(0, win);
  int won = cas_old == -1, winners, winner = won ? me : -1, who;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&winner, &who, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  expect_rma("MPI_Compare_and_swap: ranks that swapped", winners, 1);
  if (!won && cas_old != who) fail("MPI_Compare_and_swap: a loser read %d, the winner is %d", cas_old, who);

  /* Exclusive locks: get, flush, put back + 1; only mutual exclusion makes the total np. */
  int x;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Get(&x, 1, MPI_INT, 0, W_LOCKED, 1, MPI_INT, win);
  MPI_Win_flush(0, win);
  x++;
  MPI_Put(&x, 1, MPI_INT, 0, W_LOCKED, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_rma("MPI_Fetch_and_op: counter at the end", rma_read(win, 0, W_FOP), np);
  expect_rma("MPI_Compare_and_swap: slot at the end", rma_read(win, 0, W_CAS), who);
  expect_rma("read-increment-write under MPI_LOCK_EXCLUSIVE: counter", rma_read(win, 0, W_LOCKED), np);

  /* MPI_Win_lock_all + MPI_Get + MPI_Win_flush_all from the right neighbour. */
  int got;
  MPI_Win_lock_all(0, win);
  MPI_Get(&got, 1, MPI_INT, right(), W_GET + 5, 1, MPI_INT, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  expect_rma("MPI_Get under MPI_Win_lock_all", got, right() * 1000 + 5);
}

/* A larger transfer through a window from MPI_Win_allocate: 256 KiB put to the right neighbour. */
static void rma_large(size_t maxbytes) {
  size_t len = maxbytes < (256 << 10) ? maxbytes : (256 << 10);
  unsigned char *base, *out = xmalloc(len);
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  fill(out, me, right(), len);
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  MPI_Put(out, (int)len, MPI_BYTE, right(), 0, (int)len, MPI_BYTE, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (size_t i = 0; i < len; i++)
    if (base[i] != pattern(left(), me, len, i))
      fail("MPI_Put of %zu bytes (MPI_Win_allocate): byte %zu differs", len, i);
  MPI_Win_free(&win);
  free(out);
}

static void one_sided(size_t maxbytes) {
  int *buf;
  MPI_Win win;
  MPI_Alloc_mem(W_INTS * sizeof(int), MPI_INFO_NULL, &buf);
  for (int i = 0; i < W_INTS; i++) buf[i] = 0;
  for (int k = 0; k < 8; k++) buf[W_GET + k] = me * 1000 + k;
  buf[W_PUT] = buf[W_CAS] = -1;
  MPI_Win_create(buf, W_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  rma_fence(win, buf);
  rma_pscw(win, buf);
  /* No lock on a window that its owner still exposes in an active target epoch (MPI-3.1 11.5). */
  MPI_Barrier(MPI_COMM_WORLD);
  rma_passive(win);
  MPI_Win_free(&win);
  MPI_Free_mem(buf);
  rma_large(maxbytes);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char *end = NULL;
  long long maxbytes = argc > 1 ? strtoll(argv[1], &end, 10) : 4 << 20;
  /* val() keeps its sums in an int up to 200 ranks. */
  if (argc > 2 || (end && *end) || maxbytes < 0 || maxbytes > (4 << 20) || np > 200) {
    if (me == 0) fprintf(stderr, "usage: stress [MAXBYTES=4194304 (0..4194304)] (1..200 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  point_to_point((size_t)maxbytes);
  collectives();
  comm_split();
  comm_dup();
  comm_create();
  type_vector();
  type_indexed();
  type_struct();
  one_sided((size_t)maxbytes);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("stress: OK (%d ranks, up to %lld bytes)\n", np, maxbytes);
  MPI_Finalize();
  return 0;
}

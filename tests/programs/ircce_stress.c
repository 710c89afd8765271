/*
 * ircce_stress.c - randomized stress of every way to move a message: RCCE
 * and iRCCE, blocking, pipelined and non-blocking, any-source, any-length
 * and peeked receives, under whatever rccerun options the test passes
 * (--scheme lprg|rplg, --flags normal|tagged, --no-single-copy).
 *
 * usage: ircce_stress [seed=1] [rounds=20] [max_bytes=300000]
 *
 * Every UE derives the same schedule from the seed.  Each round has two
 * phases.  Pairs: a random permutation pairs the UEs; each pair exchanges
 * 1..4 messages in random directions, each sent with a random call
 * (RCCE_send, iRCCE_ssend, iRCCE_isend + wait, iRCCE_isend + test loop) and
 * received with a random call (RCCE_recv, iRCCE_srecv, iRCCE_irecv + wait,
 * any-length irecv, any-source irecv, iRCCE_probe then receive, RCCE_peek
 * then RCCE_recv).  All-to-all: every UE posts a receive from every other UE
 * (some any-length), then sends to all of them in a random order, all
 * non-blocking, completed through a wait list.
 *
 * A message's bytes come from a stream keyed by (seed, round, src, dst,
 * index) and the receiver checks every byte, the reported source and size.
 * Any mismatch prints "ircce_stress: UE n: ..." and exits 1; UE 0 prints
 * "ircce_stress: OK (...)" at the end.  With -DSINGLEBITFLAGS the any-length
 * and peek receives (big flags only) are left out of the schedule.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "iRCCE.h"
#include "RCCE_lib.h"
#include "testprog.h"

static int me, np;
static uint64_t seed, sched_state, messages, bytes_moved;
static size_t max_bytes;

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
static uint64_t rand_below(uint64_t n) { return n ? mix(sched_state += 0x632BE59BD9B4E019ull) % n : 0; }

static uint64_t key_of(int round, int src, int dst, int index) {
  return mix(mix(seed ^ (uint64_t)round) ^ ((uint64_t)src << 40 | (uint64_t)dst << 20 | (uint64_t)index));
}
static unsigned char byte_at(uint64_t key, size_t p) { return (unsigned char)(mix(key ^ (p / 8)) >> (8 * (p % 8))); }

static void fill(unsigned char *buf, size_t n, uint64_t key) {
  for (size_t p = 0; p < n; p++) buf[p] = byte_at(key, p);
}

static void check_bytes(const unsigned char *buf, size_t n, uint64_t key, const char *what, int src) {
  for (size_t p = 0; p < n; p++)
    if (buf[p] != byte_at(key, p))
      fail("%s: %zu-byte message from UE %d: byte %zu is %u, expected %u", what, n, src, p, buf[p], byte_at(key, p));
}

static void check_rc(int rc, const char *what, int peer) {
  if (rc != RCCE_SUCCESS && rc != iRCCE_PENDING) fail("%s with UE %d returned %d", what, peer, rc);
}

static size_t pick_size(void) {
  size_t c = RCCE_chunk;
  const size_t edges[] = {1, 8, 24, 28, 29, 32, c / 2, c / 2 + 1, c - 1, c, c + 1, 2 * c + 3, 32768, 65536};
  unsigned r = (unsigned)rand_below(100);
  size_t s = r < 40   ? 1 + rand_below(40)
             : r < 65 ? edges[rand_below(sizeof edges / sizeof edges[0])]
             : r < 85 ? 1 + rand_below(3 * c)
                      : 1 + rand_below(max_bytes);
  return s > max_bytes ? max_bytes : s;
}

enum { S_RCCE, S_SSEND, S_ISEND_WAIT, S_ISEND_TEST, NSEND };
enum { R_RCCE, R_SRECV, R_IRECV, R_ANY_SOURCE, R_PROBE, R_ANY_LENGTH, R_PEEK, NRECV };
#ifdef SINGLEBITFLAGS
#define RECV_KINDS R_ANY_LENGTH /* any-length and peek need big flags */
#else
#define RECV_KINDS NRECV
#endif

static void send_one(unsigned char *buf, size_t n, int dest, int how) {
  iRCCE_SEND_REQUEST req;
  int test = 0;
  switch (how) {
    case S_RCCE: check_rc(RCCE_send((char *)buf, n, dest), "RCCE_send", dest); break;
    case S_SSEND: check_rc(iRCCE_ssend((char *)buf, (ssize_t)n, dest), "iRCCE_ssend", dest); break;
    case S_ISEND_WAIT:
      check_rc(iRCCE_isend((char *)buf, (ssize_t)n, dest, &req), "iRCCE_isend", dest);
      check_rc(iRCCE_isend_wait(&req), "iRCCE_isend_wait", dest);
      break;
    default:
      check_rc(iRCCE_isend((char *)buf, (ssize_t)n, dest, &req), "iRCCE_isend", dest);
      while (!test) check_rc(iRCCE_isend_test(&req, &test), "iRCCE_isend_test", dest);
  }
}

static void recv_one(unsigned char *buf, size_t n, int src, int how, uint64_t key) {
  iRCCE_RECV_REQUEST req;
  const char *what = "RCCE_recv";
  int from = src;
  switch (how) {
    case R_RCCE: check_rc(RCCE_recv((char *)buf, n, src), what, src); break;
    case R_SRECV: check_rc(iRCCE_srecv((char *)buf, (ssize_t)n, src), what = "iRCCE_srecv", src); break;
    case R_IRECV:
    case R_ANY_SOURCE:
      what = how == R_IRECV ? "iRCCE_irecv" : "iRCCE_irecv(ANY_SOURCE)";
      check_rc(iRCCE_irecv((char *)buf, (ssize_t)n, how == R_IRECV ? src : iRCCE_ANY_SOURCE, &req), what, src);
      check_rc(iRCCE_irecv_wait(&req), what, src);
      from = iRCCE_get_source(&req);
      break;
    case R_PROBE: {
      what = "iRCCE_probe";
      check_rc(iRCCE_probe(iRCCE_ANY_SOURCE, &from), what, src);
      check_rc(iRCCE_srecv((char *)buf, (ssize_t)n, from), what, src);
      break;
    }
#ifndef SINGLEBITFLAGS
    case R_ANY_LENGTH:
      what = "iRCCE_irecv(ANY_LENGTH)";
      check_rc(iRCCE_irecv((char *)buf, iRCCE_ANY_LENGTH, src, &req), what, src);
      check_rc(iRCCE_irecv_wait(&req), what, src);
      if ((size_t)iRCCE_get_size(NULL, &req) != n || (size_t)iRCCE_get_length() != n)
        fail("%s from UE %d: size %d / length %d, expected %zu", what, src, iRCCE_get_size(NULL, &req),
             iRCCE_get_length(), n);
      break;
    default: {
      what = "RCCE_peek";
      unsigned char head[40];
      size_t k = n < sizeof head ? n : sizeof head;
      int rc;
      while ((rc = RCCE_peek((char *)head, k, src)) == 1) {}
      check_rc(rc, what, src);
      check_bytes(head, k, key, what, src);
      check_rc(RCCE_recv((char *)buf, n, src), what, src);
    }
#endif
  }
  if (from != src) fail("%s: message expected from UE %d came from UE %d", what, src, from);
  check_bytes(buf, n, key, what, src);
}

static void pair_phase(int round, unsigned char *sbuf, unsigned char *rbuf) {
  int *perm = malloc((size_t)np * sizeof *perm);
  for (int i = 0; i < np; i++) perm[i] = i;
  for (int i = np - 1; i > 0; i--) {
    int j = (int)rand_below((uint64_t)i + 1), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int p = 0; p + 1 < np; p += 2) {
    int a = perm[p], b = perm[p + 1], count = 1 + (int)rand_below(4);
    for (int i = 0; i < count; i++) {
      int src = rand_below(2) ? a : b, dst = src == a ? b : a;
      size_t n = pick_size();
      int how_send = (int)rand_below(NSEND), how_recv = (int)rand_below(RECV_KINDS);
      uint64_t key = key_of(round, src, dst, i);
      if (me == src) {
        fill(sbuf, n, key);
        send_one(sbuf, n, dst, how_send);
        messages++;
        bytes_moved += n;
      } else if (me == dst) {
        recv_one(rbuf, n, src, how_recv, key);
      }
    }
  }
  free(perm);
}

/* Every UE sends one message to every other; all requests outstanding at once. */
static void all_to_all_phase(int round) {
  size_t *size = malloc((size_t)np * np * sizeof *size);
  int *any_length = malloc((size_t)np * sizeof *any_length), *order = malloc((size_t)np * sizeof *order);
  for (int i = 0; i < np * np; i++) size[i] = 1 + rand_below(max_bytes < 70000 ? max_bytes : 70000);
  for (int u = 0; u < np; u++) any_length[u] = RECV_KINDS == NRECV && rand_below(3) == 0;
  unsigned char **in = calloc((size_t)np, sizeof *in), **out = calloc((size_t)np, sizeof *out);
  iRCCE_RECV_REQUEST *rreq = calloc((size_t)np, sizeof *rreq);
  iRCCE_SEND_REQUEST *sreq = calloc((size_t)np, sizeof *sreq);
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int u = 0; u < np; u++) {
    if (u == me) continue;
    in[u] = malloc(size[u * np + me]);
    out[u] = malloc(size[me * np + u]);
    fill(out[u], size[me * np + u], key_of(round, me, u, 100));
  }
  for (int u = 0; u < np; u++) {
    if (u == me) continue;
    ssize_t n = (ssize_t)size[u * np + me];
#ifndef SINGLEBITFLAGS
    if (any_length[me]) n = iRCCE_ANY_LENGTH;
#endif
    check_rc(iRCCE_irecv((char *)in[u], n, u, &rreq[u]), "iRCCE_irecv", u);
    iRCCE_add_to_wait_list(&list, NULL, &rreq[u]);
  }
  for (int i = 0; i < np; i++) order[i] = (me + 1 + i) % np;
  for (int i = np - 1; i > 0; i--) {
    int j = (int)(mix(seed ^ (uint64_t)(round * 1000 + me * 7 + i)) % (uint64_t)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int i = 0; i < np; i++) {
    int u = order[i];
    if (u == me) continue;
    check_rc(iRCCE_isend((char *)out[u], (ssize_t)size[me * np + u], u, &sreq[u]), "iRCCE_isend", u);
    iRCCE_add_to_wait_list(&list, &sreq[u], NULL);
    messages++;
    bytes_moved += size[me * np + u];
  }
  check_rc(iRCCE_wait_all(&list), "iRCCE_wait_all", -1);
  for (int u = 0; u < np; u++) {
    if (u == me) continue;
    size_t n = size[u * np + me];
    if ((size_t)iRCCE_get_size(NULL, &rreq[u]) != n)
      fail("all-to-all: message from UE %d has size %d, expected %zu", u, iRCCE_get_size(NULL, &rreq[u]), n);
    check_bytes(in[u], n, key_of(round, u, me, 100), "all-to-all", u);
    free(in[u]);
    free(out[u]);
  }
  free(in), free(out), free(rreq), free(sreq), free(size), free(any_length), free(order);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  me = RCCE_ue();
  np = RCCE_num_ues();
  testprog_name = "ircce_stress";
  testprog_ue = me;
  seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  int rounds = argc > 2 ? atoi(argv[2]) : 20;
  max_bytes = argc > 3 ? strtoull(argv[3], NULL, 10) : 300000;
  sched_state = mix(seed);
  unsigned char *sbuf = malloc(max_bytes), *rbuf = malloc(max_bytes);
  if (!sbuf || !rbuf) fail("out of memory");
  /* Barriers between phases: an any-source receive must only see its partner. */
  for (int r = 0; r < rounds; r++) {
    RCCE_barrier(&RCCE_COMM_WORLD);
    pair_phase(r, sbuf, rbuf);
    if (rand_below(3) == 0) {
      RCCE_barrier(&RCCE_COMM_WORLD);
      all_to_all_phase(r);
    }
  }
  long long mine[2] = {(long long)messages, (long long)bytes_moved}, total[2] = {0, 0};
  RCCE_allreduce((char *)mine, (char *)total, 2, RCCE_LONG, RCCE_SUM, RCCE_COMM_WORLD);
  if (me == 0)
    printf("ircce_stress: OK (%d UEs, seed %llu, %d rounds, %lld messages, %lld bytes)\n", np, (unsigned long long)seed,
           rounds, total[0], total[1]);
  free(sbuf);
  free(rbuf);
  RCCE_finalize();
  return 0;
}

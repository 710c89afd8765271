/*
 * stress.c - randomized point-to-point stress test of RCCE_send/RCCE_recv.
 *
 * usage: stress [seed=1] [rounds=20] [max_bytes=1048576] [corrupt_ue=-1]
 *
 * corrupt_ue >= 0 makes that UE flip one payload byte of each message it
 * sends after computing the checksum: a self-test showing the receivers'
 * checks catch corruption (the job must then fail).
 *
 * Every UE derives the same schedule from the seed.  Each round draws a
 * random permutation of the UEs and pairs perm[0]-perm[1], perm[2]-perm[3],
 * ... (an odd last UE idles).  Each pair exchanges 1..3 messages, each with a
 * random direction and a random size in 0..max_bytes (biased towards small
 * sizes, and now and then exactly a chunk boundary such as 8160, 8192, 4992,
 * 5024, RCCE_chunk+-1 or the single-copy threshold).  Some rounds receive by
 * polling RCCE_recv_test instead of RCCE_recv, some end with a barrier.
 *
 * A message of at least HDR bytes starts with a header (magic, round, src,
 * dst, seq, index, size, checksum of the payload); the rest, and the whole of
 * a shorter message, comes from a PRNG seeded by (seed, round, src, index),
 * so the receiver checks the header, the checksum and every byte.  seq counts
 * the messages from src to dst, so a lost or reordered message is caught.
 * At the end every UE compares the totals (allreduce) with the schedule.
 *
 * On any mismatch the UE prints "stress: UE n: ..." and exits 1.
 * UE 0 prints "stress: OK ..." when everything matched.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "testprog.h"
#include "RCCE_lib.h"

#define MAGIC 0x5354524553534d47ull /* "GMSSERTS" */

struct header {
  uint64_t magic;
  int32_t round, src, dst, seq, index, pad;
  uint64_t size;
  uint64_t checksum;
};
#define HDR ((size_t)sizeof(struct header))

static int me, np;
static unsigned long seed;

static void check_rc(int rc, const char *what, int peer) {
  if (rc != RCCE_SUCCESS) {
    char text[RCCE_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    RCCE_error_string(rc, text, &len);
    fail("%s with UE %d returned %d (%s)", what, peer, rc, text);
  }
}

/* splitmix64: the schedule and the payload streams. */
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static uint64_t sched_state;
static uint64_t next_rand(void) { return mix(sched_state += 0x632BE59BD9B4E019ull); }
static uint64_t rand_below(uint64_t n) { return n ? next_rand() % n : 0; }

/* Byte stream of one message: word w = mix(key ^ w * K). */
static uint64_t stream_key(int round, int src, int index) {
  return mix(mix(mix((uint64_t)seed) ^ (uint64_t)round) ^ ((uint64_t)src << 20 | (uint64_t)index));
}
static uint64_t stream_word(uint64_t key, size_t w) { return mix(key ^ ((uint64_t)w * 0xD6E8FEB86659FD93ull)); }

/* Fills [from, n) of buf with the stream (byte p = byte p%8 of word p/8). */
static void fill_stream(unsigned char *buf, size_t from, size_t n, uint64_t key) {
  size_t p = from;
  while (p < n && p % 8) {
    uint64_t x = stream_word(key, p / 8);
    buf[p] = ((unsigned char *)&x)[p % 8];
    p++;
  }
  for (; p + 8 <= n; p += 8) {
    uint64_t x = stream_word(key, p / 8);
    memcpy(buf + p, &x, 8);
  }
  for (; p < n; p++) {
    uint64_t x = stream_word(key, p / 8);
    buf[p] = ((unsigned char *)&x)[p % 8];
  }
}

/* First wrong byte in [from, n), or -1. */
static long check_stream(const unsigned char *buf, size_t from, size_t n, uint64_t key, unsigned *want) {
  for (size_t p = from; p < n; p++) {
    if (p % 8 == 0 && p + 8 <= n) {
      uint64_t x = stream_word(key, p / 8);
      if (memcmp(buf + p, &x, 8) == 0) {
        p += 7;
        continue;
      }
    }
    uint64_t x = stream_word(key, p / 8);
    unsigned char b = ((unsigned char *)&x)[p % 8];
    if (buf[p] != b) {
      *want = b;
      return (long)p;
    }
  }
  return -1;
}

static uint64_t checksum(const unsigned char *buf, size_t from, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t p = from; p < n; p++) h = (h ^ buf[p]) * 1099511628211ull;
  return h;
}

static size_t max_bytes;
static int corrupt_ue = -1;

static size_t pick_size(void) {
  size_t c = RCCE_chunk;
  const size_t boundaries[] = {0,         1,         HDR - 1, HDR,   HDR + 1, 31,    32,       33,
                               4992,      5024,      8160,    8192,  c - 1,   c,     c + 1,    2 * c,
                               2 * c + 1, 3 * c - 1, 32767,   32768, 32769,   65536, max_bytes};
  unsigned r = (unsigned)rand_below(100);
  size_t s;
  if (r < 35) s = rand_below(129);
  else if (r < 55) s = rand_below(3 * c + 1);
  else if (r < 72) s = boundaries[rand_below(sizeof boundaries / sizeof boundaries[0])];
  else if (r < 90) {
    unsigned bits = 0;
    while (bits < 40 && ((size_t)1 << (bits + 1)) <= max_bytes) bits++;
    size_t base = (size_t)1 << rand_below(bits + 1);
    s = base + rand_below(base);
  } else s = rand_below(max_bytes + 1);
  return s > max_bytes ? max_bytes : s;
}

static unsigned char *sbuf, *rbuf;
static int *send_seq, *recv_seq;
static long long msgs_sent, msgs_recv, bytes_recv;

static void do_send(int round, int index, int dst, size_t size) {
  uint64_t key = stream_key(round, me, index);
  if (size >= HDR) {
    fill_stream(sbuf, HDR, size, key);
    struct header h = {MAGIC, round, me, dst, send_seq[dst], index, 0, size, checksum(sbuf, HDR, size)};
    memcpy(sbuf, &h, HDR);
    if (me == corrupt_ue && size > HDR) sbuf[HDR + (size - HDR) / 2] ^= 0x10;
  } else {
    fill_stream(sbuf, 0, size, key);
  }
  send_seq[dst]++;
  check_rc(RCCE_send((char *)sbuf, size, dst), "RCCE_send", dst);
  msgs_sent++;
}

static void do_recv(int round, int index, int src, size_t size, int poll) {
  /* Poison the buffer so that bytes that never arrive are caught. */
  memset(rbuf, 0xA5 ^ (round & 0xff), size < 64 ? size : 64);
  if (size > 64) memset(rbuf + size - 64, 0x5A ^ (round & 0xff), 64);
  if (poll) {
    int test = 0;
    long polls = 0;
    while (!test) {
      check_rc(RCCE_recv_test((char *)rbuf, size, src, &test), "RCCE_recv_test", src);
      if (!test && ++polls % 64 == 0) sched_yield();
    }
  } else {
    check_rc(RCCE_recv((char *)rbuf, size, src), "RCCE_recv", src);
  }
  uint64_t key = stream_key(round, src, index);
  size_t from = 0;
  if (size >= HDR) {
    struct header h;
    memcpy(&h, rbuf, HDR);
    if (h.magic != MAGIC || h.round != round || h.src != src || h.dst != me || h.seq != recv_seq[src] ||
        h.index != index || h.size != size)
      fail("round %d message %d from UE %d (%zu bytes): header says magic %#llx round %d src %d dst %d seq %d "
           "index %d size %llu; expected round %d src %d dst %d seq %d index %d size %zu",
           round, index, src, size, (unsigned long long)h.magic, h.round, h.src, h.dst, h.seq, h.index,
           (unsigned long long)h.size, round, src, me, recv_seq[src], index, size);
    uint64_t sum = checksum(rbuf, HDR, size);
    if (sum != h.checksum)
      fail("round %d message %d from UE %d (%zu bytes): payload checksum %#llx, header says %#llx", round, index, src,
           size, (unsigned long long)sum, (unsigned long long)h.checksum);
    from = HDR;
  }
  unsigned want = 0;
  long bad = check_stream(rbuf, from, size, key, &want);
  if (bad >= 0)
    fail("round %d message %d from UE %d (%zu bytes, seq %d): byte %ld is 0x%02x, expected 0x%02x", round, index, src,
         size, recv_seq[src], bad, rbuf[bad], want);
  recv_seq[src]++;
  msgs_recv++;
  bytes_recv += (long long)size;
}

static long parse_arg(int argc, char **argv, int i, long def, long lo, long hi) {
  if (argc <= i) return def;
  char *end;
  long v = strtol(argv[i], &end, 0);
  if (*end || v < lo || v > hi) {
    /* every UE says it: the first to exit ends the job, and it must have said why */
    fprintf(stderr, "stress: bad argument %d '%s' (expected %ld..%ld)\n", i, argv[i], lo, hi);
    exit(2);
  }
  return v;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  me = RCCE_ue();
  testprog_name = "stress";
  testprog_ue = me;
  np = RCCE_num_ues();
  seed = (unsigned long)parse_arg(argc, argv, 1, 1, 0, 1L << 40);
  int rounds = (int)parse_arg(argc, argv, 2, 20, 0, 1000000);
  max_bytes = (size_t)parse_arg(argc, argv, 3, 1 << 20, 0, 1L << 28);
  corrupt_ue = (int)parse_arg(argc, argv, 4, -1, -1, RCCE_MAXNP);

  sbuf = malloc(max_bytes + 1);
  rbuf = malloc(max_bytes + 1);
  send_seq = calloc((size_t)np, sizeof *send_seq);
  recv_seq = calloc((size_t)np, sizeof *recv_seq);
  int *perm = malloc((size_t)np * sizeof *perm);
  if (!sbuf || !rbuf || !send_seq || !recv_seq || !perm) fail("out of memory");

  sched_state = mix(seed);
  long long expect_msgs = 0, expect_bytes = 0;
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < np; i++) perm[i] = i;
    for (int i = np - 1; i > 0; i--) {
      int j = (int)rand_below((uint64_t)i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    int poll = rand_below(4) == 0;
    for (int p = 0; p + 1 < np; p += 2) {
      int a = perm[p], b = perm[p + 1];
      int nmsg = 1 + (int)rand_below(3);
      for (int k = 0; k < nmsg; k++) {
        int dir = (int)rand_below(2);
        int src = dir ? a : b, dst = dir ? b : a;
        size_t size = pick_size();
        expect_msgs++;
        expect_bytes += (long long)size;
        if (me == src) do_send(round, k, dst, size);
        else if (me == dst) do_recv(round, k, src, size, poll);
      }
    }
    if (rand_below(8) == 0) check_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier", -1);
  }

  /* Nothing lost: the totals over all UEs match the schedule. */
  long long mine[3] = {msgs_sent, msgs_recv, bytes_recv}, total[3] = {0, 0, 0};
  check_rc(RCCE_allreduce((char *)mine, (char *)total, 3, RCCE_LONG, RCCE_SUM, RCCE_COMM_WORLD), "RCCE_allreduce", -1);
  if (total[0] != expect_msgs || total[1] != expect_msgs || total[2] != expect_bytes)
    fail("totals: %lld sent, %lld received, %lld bytes; the schedule has %lld messages, %lld bytes", total[0], total[1],
         total[2], expect_msgs, expect_bytes);
  check_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier", -1);
  if (me == 0) {
    printf("stress: OK (%d UEs, seed %lu, %d rounds, %lld messages, %lld bytes, chunk %zu)\n", np, seed, rounds,
           expect_msgs, expect_bytes, RCCE_chunk);
    fflush(stdout);
  }
  free(sbuf);
  free(rbuf);
  free(send_seq);
  free(recv_seq);
  free(perm);
  RCCE_finalize();
  return 0;
}

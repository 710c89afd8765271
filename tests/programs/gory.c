/*
 * gory.c - RCCE's "gory" interface: user-managed MPB buffers and flags.
 *
 * usage: gory [rounds=3]        (build with -DGORY, optionally -DSINGLEBITFLAGS)
 *        gory deadlock          every UE waits in RCCE_wait_until for a flag nobody sets
 *
 * Steps (every UE, all allocations in the same order so they are symmetric):
 *  1. RCCE_malloc_request of more than the MPB: a usable power-of-two chunk;
 *     RCCE_free it and request again: the same chunk size comes back.
 *  2. flags from RCCE_flag_alloc start UNSET (RCCE_flag_read, local and remote).
 *  3. one-sided ring: RCCE_put a pattern into the successor's MPB buffer, then
 *     RCCE_flag_write(SET) its flag; the successor RCCE_wait_until(SET), checks
 *     the flag with RCCE_flag_read and RCCE_test_flag, RCCE_get's its own buffer and checks the
 *     pattern, clears the flag; after a barrier every UE RCCE_get's the
 *     successor's buffer (holding what it put there itself) and checks it.
 *  4. gory RCCE_send/RCCE_recv around the ring (even ranks send first) with
 *     several chunk sizes (RCCE_malloc'ed comm buffers) and message sizes:
 *     0, 1, chunk-1, chunk, chunk+1, 3*chunk+5, 40000 (> single-copy
 *     threshold); every byte checked; some rounds receive with RCCE_recv_test.
 *  5. RCCE_flag_free, RCCE_free, and a final RCCE_barrier.
 * Any failure prints "gory: UE n: ..." and exits 1; UE 0 prints "gory: OK".
 */
#ifndef GORY
#define GORY
#endif
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "testprog.h"

static int me, np;

static void ok(int rc, const char *what) {
  if (rc != RCCE_SUCCESS) {
    char text[RCCE_MAX_ERROR_STRING + 1] = "";
    int len;
    RCCE_error_string(rc, text, &len);
    fail("%s returned %d (%s)", what, rc, text);
  }
}

static unsigned char pattern(int sender, int round, size_t i) {
  return (unsigned char)((i * 131u + (size_t)sender * 17u + (size_t)round * 29u + (i >> 8) * 7u) & 0xff);
}

static void fill(unsigned char *b, size_t n, int sender, int round) {
  for (size_t i = 0; i < n; i++) b[i] = pattern(sender, round, i);
}

static void check(const unsigned char *b, size_t n, int sender, int round, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != pattern(sender, round, i))
      fail("%s (round %d, %zu bytes from UE %d): byte %zu is 0x%02x, expected 0x%02x", what, round, n, sender, i, b[i],
           pattern(sender, round, i));
}

static RCCE_FLAG_STATUS read_flag(RCCE_FLAG f, int ue, const char *what) {
  RCCE_FLAG_STATUS v = -1;
  ok(RCCE_flag_read(f, &v, ue), what);
  if (v != RCCE_FLAG_SET && v != RCCE_FLAG_UNSET) fail("%s gave status %d", what, v);
  return v;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  me = RCCE_ue();
  testprog_name = "gory";
  testprog_ue = me;
  np = RCCE_num_ues();
  if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
    RCCE_FLAG never_set;
    ok(RCCE_flag_alloc(&never_set), "RCCE_flag_alloc");
    ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
    RCCE_wait_until(never_set, RCCE_FLAG_SET);
    fail("RCCE_wait_until returned for a flag nobody set");
  }
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  int next = (me + 1) % np, prev = (me - 1 + np) % np;

  /* 1. RCCE_malloc_request / RCCE_free / reuse. */
  size_t big = 0, again = 0;
  t_vcharp p = RCCE_malloc_request(1 << 20, &big);
  if (!p || big == 0 || big % RCCE_LINE_SIZE || (big & (big - 1)))
    fail("RCCE_malloc_request(1 MiB) gave %p with chunk %zu", (void *)p, big);
  RCCE_free(p);
  t_vcharp q = RCCE_malloc_request(1 << 20, &again);
  if (!q || again != big) fail("after RCCE_free, RCCE_malloc_request gave chunk %zu, first time %zu", again, big);
  RCCE_free(q);
  t_vcharp tiny = RCCE_malloc(1); /* rounded up to one line */
  if (!tiny || ((uintptr_t)tiny % RCCE_LINE_SIZE)) fail("RCCE_malloc(1) gave %p", (void *)tiny);

  /* 2. Flags start UNSET. */
  RCCE_FLAG ready, sent, putflag;
  ok(RCCE_flag_alloc(&ready), "RCCE_flag_alloc(ready)");
  ok(RCCE_flag_alloc(&sent), "RCCE_flag_alloc(sent)");
  ok(RCCE_flag_alloc(&putflag), "RCCE_flag_alloc(putflag)");
  ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  if (read_flag(putflag, me, "RCCE_flag_read(own putflag)") != RCCE_FLAG_UNSET ||
      read_flag(putflag, next, "RCCE_flag_read(next putflag)") != RCCE_FLAG_UNSET ||
      read_flag(ready, me, "RCCE_flag_read(own ready)") != RCCE_FLAG_UNSET)
    fail("a freshly allocated flag is SET");

  /* 3. One-sided ring with put/get and flags. */
  enum { PUTBYTES = 416 };
  t_vcharp pbuf = RCCE_malloc(PUTBYTES);
  if (!pbuf) fail("RCCE_malloc(%d) returned NULL", PUTBYTES);
  unsigned char *local = malloc(PUTBYTES), *got = malloc(PUTBYTES);
  if (!local || !got) fail("out of memory");
  ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  for (int round = 0; round < rounds && np > 1; round++) {
    fill(local, PUTBYTES, me, round);
    ok(RCCE_put(pbuf, (t_vcharp)local, PUTBYTES, next), "RCCE_put");
    ok(RCCE_flag_write(&putflag, RCCE_FLAG_SET, next), "RCCE_flag_write(SET, next)");
    ok(RCCE_wait_until(putflag, RCCE_FLAG_SET), "RCCE_wait_until(SET)");
    if (read_flag(putflag, me, "RCCE_flag_read(own putflag)") != RCCE_FLAG_SET)
      fail("RCCE_wait_until(SET) returned but RCCE_flag_read says UNSET");
    int is_set = -1, is_unset = -1;
    ok(RCCE_test_flag(putflag, RCCE_FLAG_SET, &is_set), "RCCE_test_flag(SET)");
    ok(RCCE_test_flag(putflag, RCCE_FLAG_UNSET, &is_unset), "RCCE_test_flag(UNSET)");
    if (is_set != 1 || is_unset != 0) fail("RCCE_test_flag of a SET flag: SET %d, UNSET %d", is_set, is_unset);
    memset(got, 0, PUTBYTES);
    ok(RCCE_get((t_vcharp)got, pbuf, PUTBYTES, me), "RCCE_get(own)");
    check(got, PUTBYTES, prev, round, "RCCE_put by the predecessor");
    ok(RCCE_flag_write(&putflag, RCCE_FLAG_UNSET, me), "RCCE_flag_write(UNSET, me)");
    ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
    memset(got, 0, PUTBYTES);
    ok(RCCE_get((t_vcharp)got, pbuf, PUTBYTES, next), "RCCE_get(next)");
    check(got, PUTBYTES, me, round, "RCCE_get of the successor's MPB");
    if (read_flag(putflag, next, "RCCE_flag_read(next putflag)") != RCCE_FLAG_UNSET)
      fail("the successor's flag is still SET after it cleared it");
    ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  }

  /* 4. gory send/recv around the ring. */
  const size_t chunks[] = {32, 1024, 4096};
  size_t maxmsg = 40000;
  char *sbuf = malloc(maxmsg), *rbuf = malloc(maxmsg);
  if (!sbuf || !rbuf) fail("out of memory");
  long msgs = 0;
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0] && np > 1; c++) {
    size_t chunk = chunks[c];
    t_vcharp combuf = RCCE_malloc(chunk);
    if (!combuf) fail("RCCE_malloc(%zu) for the comm buffer returned NULL", chunk);
    ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
    const size_t sizes[] = {0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 5, maxmsg};
    for (int round = 0; round < rounds; round++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        int tag = round * 100 + (int)(c * 10 + s);
        int poll = (round + (int)s) % 3 == 1;
        fill((unsigned char *)sbuf, n, me, tag);
        memset(rbuf, 0xEE, n);
        int send_first = me % 2 == 0 && !(np % 2 == 1 && me == np - 1);
        for (int step = 0; step < 2; step++) {
          if ((step == 0) == send_first) {
            ok(RCCE_send(sbuf, combuf, chunk, &ready, &sent, n, next), "RCCE_send(gory)");
          } else if (poll) {
            int test = 0;
            long spins = 0;
            while (!test) {
              ok(RCCE_recv_test(rbuf, combuf, chunk, &ready, &sent, n, prev, &test), "RCCE_recv_test(gory)");
              if (!test && ++spins % 64 == 0) sched_yield();
            }
          } else {
            ok(RCCE_recv(rbuf, combuf, chunk, &ready, &sent, n, prev), "RCCE_recv(gory)");
          }
        }
        check((unsigned char *)rbuf, n, prev, tag, "gory RCCE_send/RCCE_recv");
        msgs++;
      }
    }
    ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
    RCCE_free(combuf);
  }

  /* 5. Release everything; the space is usable again. */
  ok(RCCE_flag_free(&putflag), "RCCE_flag_free(putflag)");
  ok(RCCE_flag_free(&sent), "RCCE_flag_free(sent)");
  ok(RCCE_flag_free(&ready), "RCCE_flag_free(ready)");
  RCCE_free(pbuf);
  RCCE_free(tiny);
  size_t last = 0;
  t_vcharp r = RCCE_malloc_request(1 << 20, &last);
  if (!r || last != big) fail("after freeing everything, RCCE_malloc_request gave chunk %zu, at first %zu", last, big);
  RCCE_free(r);
  free(local);
  free(got);
  free(sbuf);
  free(rbuf);
  ok(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  if (me == 0) {
#ifdef SINGLEBITFLAGS
    const char *form = "single-bit";
#else
    const char *form = "big";
#endif
    printf("gory: OK (%d UEs, %s flags, chunk %zu, %ld messages per UE)\n", np, form, big, msgs);
    fflush(stdout);
  }
  RCCE_finalize();
  return 0;
}

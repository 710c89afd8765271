/*
 * ircce.c - iRCCE requests, written like iRCCE-era programs (buffers and
 * requests in globals).
 *
 * usage: ircce MODE [rounds]
 *   ring      each UE posts many irecvs from its left and isends to its right
 *             (sizes 1 B .. 200 KiB), then completes them in a scrambled order
 *   waitany   UE 0 collects `rounds` messages from every other UE with
 *             iRCCE_wait_any, re-posting each finished receive; per-sender
 *             order and counts are checked
 *   cancel    a queued send is cancelled, the head cannot be, finished ones
 *             are not enqueued; waiting on a request never started is an error
 *   mixed     blocking RCCE and iRCCE interleaved on one pair keep their order
 *   anysource UE 0 keeps 4 iRCCE_ANY_SOURCE receives posted and collects
 *             `rounds` messages (72 KiB: the single-copy path) from every other UE;
 *             per-sender order and counts are checked
 *   probe     UE 0 finds each waiting sender with iRCCE_probe(iRCCE_ANY_SOURCE)
 *             and receives from it with blocking RCCE_recv; iprobe of a quiet
 *             source says no
 *   anyblock  UE 0 posts an any-source receive, then sends to UE 1 with a
 *             blocking RCCE_send while UE 1 first sends to UE 0: only the
 *             unbound receive can take UE 1's message, so the blocking send
 *             must move it while it waits (else both UEs block in a send)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "iRCCE.h"
#include "testprog.h"

#define NREQ 16
#define MAXMSG (200 * 1024)

static char sendbuf[NREQ][MAXMSG], recvbuf[NREQ][MAXMSG];
static iRCCE_SEND_REQUEST sreq[NREQ];
static iRCCE_RECV_REQUEST rreq[NREQ];
static int me, np;

static size_t size_of(int k) {
  static const size_t sizes[] = {1, 8, 31, 32, 100, 4800, 7744, 9000, 40000, 70000, MAXMSG};
  return sizes[k % (int)(sizeof sizes / sizeof sizes[0])];
}

static unsigned char byte_of(int src, int k, size_t i) { return (unsigned char)(src * 131 + k * 17 + i * 7); }

static void fill(char *buf, int src, int k, size_t n) {
  for (size_t i = 0; i < n; i++) buf[i] = (char)byte_of(src, k, i);
}

static void check(const char *buf, int src, int k, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)buf[i] != byte_of(src, k, i))
      fail("message %d from UE %d: byte %zu of %zu is wrong", k, src, i, n);
}

static void expect(int got, int want, const char *what) {
  if (got != want) fail("%s returned %d, expected %d", what, got, want);
}

static void mode_ring(void) {
  int right = (me + 1) % np, left = (me - 1 + np) % np;
  for (int k = 0; k < NREQ; k++) {
    iRCCE_irecv(recvbuf[k], (ssize_t)size_of(k), left, &rreq[k]);
    fill(sendbuf[k], me, k, size_of(k));
    iRCCE_isend(sendbuf[k], (ssize_t)size_of(k), right, &sreq[k]);
  }
  /* complete in a scrambled order: later requests first, tests and waits mixed */
  for (int k = NREQ - 1; k >= 0; k -= 2) {
    int done = 0;
    iRCCE_irecv_test(&rreq[k], &done);
    expect(iRCCE_irecv_wait(&rreq[k]), iRCCE_SUCCESS, "iRCCE_irecv_wait");
    expect(iRCCE_isend_wait(&sreq[k]), iRCCE_SUCCESS, "iRCCE_isend_wait");
  }
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int k = 0; k < NREQ; k += 2) iRCCE_add_to_wait_list(&list, &sreq[k], &rreq[k]);
  expect(iRCCE_wait_all(&list), iRCCE_SUCCESS, "iRCCE_wait_all");
  for (int k = 0; k < NREQ; k++) {
    if (!rreq[k].finished || !sreq[k].finished) fail("request %d not finished after the waits", k);
    if (iRCCE_get_source(&rreq[k]) != left || iRCCE_get_dest(&sreq[k]) != right) fail("request %d: wrong peer", k);
    check(recvbuf[k], left, k, size_of(k));
  }
}

static void mode_waitany(int rounds) {
  if (me != 0) {
    for (int k = 0; k < rounds; k++) {
      int64_t msg[2] = {me, k};
      iRCCE_isend((char *)msg, sizeof msg, 0, &sreq[0]);
      iRCCE_isend_wait(&sreq[0]);
    }
    return;
  }
  static int64_t inbox[RCCE_MAXNP][2];
  static iRCCE_RECV_REQUEST reqs[RCCE_MAXNP];
  int *next = calloc((size_t)np, sizeof *next), remaining = (np - 1) * rounds;
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int src = 1; src < np; src++) {
    iRCCE_irecv((char *)inbox[src], sizeof inbox[src], src, &reqs[src]);
    iRCCE_add_to_wait_list(&list, NULL, &reqs[src]);
  }
  while (remaining > 0) {
    iRCCE_RECV_REQUEST *done = NULL;
    expect(iRCCE_wait_any(&list, NULL, &done), iRCCE_SUCCESS, "iRCCE_wait_any");
    if (!done) fail("iRCCE_wait_any returned no request");
    int src = iRCCE_get_source(done);
    if (inbox[src][0] != src || inbox[src][1] != next[src])
      fail("from UE %d got message (%lld, %lld), expected (%d, %d)", src, (long long)inbox[src][0],
           (long long)inbox[src][1], src, next[src]);
    next[src]++;
    remaining--;
    if (next[src] < rounds) {
      iRCCE_irecv((char *)inbox[src], sizeof inbox[src], src, &reqs[src]);
      iRCCE_add_to_wait_list(&list, NULL, &reqs[src]);
    }
  }
  printf("ircce: waitany collected %d messages from %d senders\n", (np - 1) * rounds, np - 1);
  free(next);
}

static void mode_cancel(void) {
  int test = -1;
  iRCCE_SEND_REQUEST never;
  memset(&never, 0, sizeof never);
  expect(iRCCE_isend_wait(&never), iRCCE_ERROR, "iRCCE_isend_wait(never started)");
  expect(iRCCE_isend_test(&never, &test), iRCCE_ERROR, "iRCCE_isend_test(never started)");
  /* an any-source receive waiting for a sender can be cancelled (no UE sends before the barrier) */
  expect(iRCCE_irecv(recvbuf[5], 64, iRCCE_ANY_SOURCE, &rreq[5]), iRCCE_PENDING, "iRCCE_irecv(ANY_SOURCE)");
  expect(iRCCE_irecv(recvbuf[5], 64, iRCCE_ANY_SOURCE, &rreq[5]), iRCCE_ERROR, "iRCCE_irecv(still pending)");
  expect(iRCCE_irecv_cancel(&rreq[5], &test), iRCCE_SUCCESS, "iRCCE_irecv_cancel(unbound)");
  expect(test, 1, "cancel test flag (unbound)");
  expect(iRCCE_irecv_cancel(&rreq[5], &test), iRCCE_NOT_ENQUEUED, "iRCCE_irecv_cancel(cancelled)");
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) {
    for (int k = 0; k < 3; k++) {
      fill(sendbuf[k], me, k, 64);
      iRCCE_isend(sendbuf[k], 64, 1, &sreq[k]);
    }
    expect(iRCCE_isend(sendbuf[1], 64, 1, &sreq[1]), iRCCE_ERROR, "iRCCE_isend(request still pending)");
    expect(iRCCE_isend_cancel(&sreq[2], &test), iRCCE_SUCCESS, "iRCCE_isend_cancel(queued)");
    expect(test, 1, "cancel test flag (queued)");
    expect(iRCCE_isend_cancel(&sreq[0], &test), iRCCE_PENDING, "iRCCE_isend_cancel(head)");
    expect(test, 0, "cancel test flag (head)");
    RCCE_barrier(&RCCE_COMM_WORLD); /* UE 1 starts receiving only now */
    expect(iRCCE_isend_wait(&sreq[0]), iRCCE_SUCCESS, "iRCCE_isend_wait");
    expect(iRCCE_isend_wait(&sreq[1]), iRCCE_SUCCESS, "iRCCE_isend_wait");
    expect(iRCCE_isend_cancel(&sreq[0], &test), iRCCE_NOT_ENQUEUED, "iRCCE_isend_cancel(finished)");
    expect(iRCCE_isend_wait(&sreq[2]), iRCCE_ERROR, "iRCCE_isend_wait(cancelled)");
    /* the cancelled slot is reusable: the third message goes now */
    iRCCE_isend(sendbuf[2], 64, 1, &sreq[2]);
    expect(iRCCE_isend_wait(&sreq[2]), iRCCE_SUCCESS, "iRCCE_isend_wait(reused)");
  } else {
    RCCE_barrier(&RCCE_COMM_WORLD);
  }
  if (me == 1) {
    for (int k = 0; k < 3; k++) {
      iRCCE_recv(recvbuf[k], 64, 0);
      check(recvbuf[k], 0, k, 64);
    }
    expect(iRCCE_get_length(), 64, "iRCCE_get_length");
  }
}

static void mode_mixed(void) {
  enum { N = 6 };
  if (me == 0) {
    for (int k = 0; k < N; k++) {
      fill(sendbuf[k], me, k, size_of(k + 3));
      if (k % 2) RCCE_send(sendbuf[k], size_of(k + 3), 1);
      else iRCCE_isend(sendbuf[k], (ssize_t)size_of(k + 3), 1, &sreq[k]);
    }
    for (int k = 0; k < N; k += 2) iRCCE_isend_wait(&sreq[k]);
  } else if (me == 1) {
    for (int k = 0; k < N; k++) {
      if (k % 3 == 0) RCCE_recv(recvbuf[k], size_of(k + 3), 0);
      else iRCCE_irecv(recvbuf[k], (ssize_t)size_of(k + 3), 0, &rreq[k]);
    }
    for (int k = 0; k < N; k++) {
      if (k % 3) iRCCE_irecv_wait(&rreq[k]);
      check(recvbuf[k], 0, k, size_of(k + 3));
    }
  }
}

#define ANY_SIZE (72 * 1024)

static void mode_anysource(int rounds) {
  if (me != 0) {
    for (int k = 0; k < rounds; k++) {
      fill(sendbuf[0], me, k, ANY_SIZE);
      iRCCE_isend(sendbuf[0], ANY_SIZE, 0, &sreq[0]);
      iRCCE_isend_wait(&sreq[0]);
    }
    return;
  }
  int *next = calloc((size_t)np, sizeof *next), remaining = (np - 1) * rounds, posted = 0;
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int k = 0; k < 4 && posted < remaining; k++, posted++) {
    iRCCE_irecv(recvbuf[k], ANY_SIZE, iRCCE_ANY_SOURCE, &rreq[k]);
    iRCCE_add_to_wait_list(&list, NULL, &rreq[k]);
  }
  while (remaining > 0) {
    iRCCE_RECV_REQUEST *done = NULL;
    expect(iRCCE_wait_any(&list, NULL, &done), iRCCE_SUCCESS, "iRCCE_wait_any");
    int k = (int)(done - rreq), src = iRCCE_get_source(done);
    if (src <= 0 || src >= np) fail("any-source receive bound to UE %d", src);
    check(recvbuf[k], src, next[src]++, ANY_SIZE);
    remaining--;
    if (posted < (np - 1) * rounds) {
      iRCCE_irecv(recvbuf[k], ANY_SIZE, iRCCE_ANY_SOURCE, &rreq[k]);
      iRCCE_add_to_wait_list(&list, NULL, &rreq[k]);
      posted++;
    }
  }
  for (int src = 1; src < np; src++)
    if (next[src] != rounds) fail("got %d messages from UE %d, expected %d", next[src], src, rounds);
  free(next);
}

static void mode_probe(void) {
  if (me != 0) {
    fill(sendbuf[0], me, 0, 256);
    RCCE_send(sendbuf[0], 256, 0);
    return;
  }
  int test = -1, src = -1;
  expect(iRCCE_iprobe(0 == np - 1 ? 0 : np - 1, &test, &src), iRCCE_SUCCESS, "iRCCE_iprobe");
  for (int n = 1; n < np; n++) {
    expect(iRCCE_probe(iRCCE_ANY_SOURCE, &src), iRCCE_SUCCESS, "iRCCE_probe");
    if (src <= 0 || src >= np) fail("iRCCE_probe found UE %d", src);
    RCCE_recv(recvbuf[0], 256, src);
    check(recvbuf[0], src, 0, 256);
    expect(iRCCE_iprobe(src, &test, NULL), iRCCE_SUCCESS, "iRCCE_iprobe");
    expect(test, 0, "iprobe of a sender already received");
  }
}

static void mode_anyblock(int rounds) {
  for (int k = 0; k < rounds; k++) {
    int peer = 1 - me;
    fill(sendbuf[0], me, k, 64);
    if (me == 0) {
      iRCCE_irecv(recvbuf[0], 64, iRCCE_ANY_SOURCE, &rreq[0]);
      RCCE_barrier(&RCCE_COMM_WORLD); /* UE 1's message comes after the receive is posted */
      expect(RCCE_send(sendbuf[0], 64, peer), RCCE_SUCCESS, "RCCE_send");
      expect(iRCCE_irecv_wait(&rreq[0]), iRCCE_SUCCESS, "iRCCE_irecv_wait");
      expect(iRCCE_get_source(&rreq[0]), peer, "iRCCE_get_source");
    } else if (me == 1) {
      RCCE_barrier(&RCCE_COMM_WORLD);
      expect(RCCE_send(sendbuf[0], 64, peer), RCCE_SUCCESS, "RCCE_send");
      expect(RCCE_recv(recvbuf[0], 64, peer), RCCE_SUCCESS, "RCCE_recv");
    } else {
      RCCE_barrier(&RCCE_COMM_WORLD);
      continue;
    }
    check(recvbuf[0], peer, k, 64);
  }
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  me = RCCE_ue();
  np = RCCE_num_ues();
  testprog_name = "ircce";
  testprog_ue = me;
  const char *mode = argc > 1 ? argv[1] : "ring";
  int rounds = argc > 2 ? atoi(argv[2]) : 20;
  if (np < 2) fail("needs at least 2 UEs");
  if (!strcmp(mode, "ring")) mode_ring();
  else if (!strcmp(mode, "waitany")) mode_waitany(rounds);
  else if (!strcmp(mode, "cancel")) mode_cancel();
  else if (!strcmp(mode, "mixed")) mode_mixed();
  else if (!strcmp(mode, "anysource")) mode_anysource(rounds);
  else if (!strcmp(mode, "probe")) mode_probe();
  else if (!strcmp(mode, "anyblock")) mode_anyblock(rounds);
  else fail("unknown mode %s", mode);
  RCCE_finalize();
  if (me == 0) printf("ircce: %s OK (%d UEs)\n", mode, np);
  return 0;
}

/*
 * ring_bench.c - a ring of iRCCE requests (issue 12 item 20; run by
 * bench/run_bench.py's loaded group and by tests/integration/test_ircce.py).
 * Every UE sends N messages to its right neighbour with iRCCE_isend and
 * receives N from its left one with iRCCE_irecv, one pair of requests at a
 * time.  Modes (first argument):
 *   poll   spin on iRCCE_isend_test / iRCCE_irecv_test until both are done
 *          (the tight polling loop of many iRCCE programs)
 *   wait   iRCCE_isend_wait / iRCCE_irecv_wait (the blocking equivalent)
 * Each message carries (sender, index); a receiver checks that message k
 * from its left neighbour is that neighbour's k-th, so loss or reordering
 * fails the run.  Usage: ring_bench poll|wait [messages=1000] [bytes=64].
 * UE 0 prints one JSON line with the wall time of the whole ring (host
 * CLOCK_MONOTONIC) and "ring: OK (...)".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "RCCE.h"
#include "iRCCE.h"

struct ring_msg {
  int32_t sender;
  int32_t index;
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(int ue, const char *what) {
  fprintf(stderr, "ring: UE %d: %s\n", ue, what);
  exit(1);
}

static long arg_or(int argc, char **argv, int i, long dflt, long lo, long hi, int ue) {
  if (argc <= i) return dflt;
  char *end;
  long v = strtol(argv[i], &end, 10);
  if (*end || v < lo || v > hi) die(ue, "bad argument (usage: ring_bench poll|wait [messages] [bytes])");
  return v;
}

static void wait_both(int poll, iRCCE_SEND_REQUEST *s, iRCCE_RECV_REQUEST *r, int ue) {
  if (!poll) {
    if (iRCCE_isend_wait(s) != iRCCE_SUCCESS || iRCCE_irecv_wait(r) != iRCCE_SUCCESS) die(ue, "wait failed");
    return;
  }
  int sent = 0, got = 0;
  while (!sent || !got) {
    if (!sent && iRCCE_isend_test(s, &sent) == iRCCE_ERROR) die(ue, "iRCCE_isend_test failed");
    if (!got && iRCCE_irecv_test(r, &got) == iRCCE_ERROR) die(ue, "iRCCE_irecv_test failed");
  }
}

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  int ue = RCCE_ue(), n = RCCE_num_ues();
  if (argc < 2 || (strcmp(argv[1], "poll") && strcmp(argv[1], "wait")))
    die(ue, "bad argument (usage: ring_bench poll|wait [messages] [bytes])");
  int poll = !strcmp(argv[1], "poll");
  long count = arg_or(argc, argv, 2, 1000, 1, 100000000, ue);
  long bytes = arg_or(argc, argv, 3, 64, (long)sizeof(struct ring_msg), 1 << 20, ue);
  if (n < 2) die(ue, "needs at least 2 UEs");
  int right = (ue + 1) % n, left = (ue + n - 1) % n;
  char *out = calloc(1, (size_t)bytes), *in = calloc(1, (size_t)bytes);
  if (!out || !in) die(ue, "out of memory");
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = now_s();
  for (long k = 0; k < count; k++) {
    struct ring_msg m = {ue, (int32_t)k}, got;
    memcpy(out, &m, sizeof m);
    iRCCE_SEND_REQUEST s;
    iRCCE_RECV_REQUEST r;
    iRCCE_isend(out, (ssize_t)bytes, right, &s);
    iRCCE_irecv(in, (ssize_t)bytes, left, &r);
    wait_both(poll, &s, &r, ue);
    memcpy(&got, in, sizeof got);
    if (got.sender != left || got.index != (int32_t)k) {
      fprintf(stderr, "ring: UE %d: message %ld from UE %d carries (UE %d, %d)\n", ue, k, left, (int)got.sender,
              (int)got.index);
      exit(1);
    }
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  double elapsed = now_s() - t0;
  if (ue == 0) {
    printf("{\"bench\":\"ring\",\"impl\":\"%s\",\"ues\":%d,\"size\":%ld,\"iters\":%ld,\"elapsed_s\":%.6f,"
           "\"valid\":true}\n",
           poll ? "poll" : "wait", n, bytes, count, elapsed);
    printf("ring: OK (%d UEs, %ld messages of %ld bytes, %s)\n", n, count, bytes, poll ? "poll" : "wait");
  }
  free(out);
  free(in);
  RCCE_finalize();
  return 0;
}

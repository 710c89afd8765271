/* rcce2_api.c - RCCE 2.0's extensions to the basic interface (RCCE.h,
 * docs/rcce.md "RCCE 2.0's extensions"), as a program written for RWTH's
 * RCCE 2.0 uses them.  Modes (every UE runs the same one):
 *   ring     RCCE_isend/RCCE_irecv around the ring, several outstanding per
 *            neighbour, completed by test, push and wait; return codes
 *            SUCCESS / PENDING / RESERVED; data checked in order
 *   variants _pipe, _tagged, _mcast, _cancel, _probe and the memcpy copies
 *   barriers every barrier algorithm, the non-blocking ones polled, with a
 *            shared counter proving nobody passed early; RCCE_tree_init
 *   shm      RCCE_shrealloc keeps the old bytes
 *   devs     RCCE_dev / RCCE_num_dev / RCCE_num_ues_dev / RCCE_ue_to_dev /
 *            RCCE_dev_ue agree with one another
 *   misuse   RCCE's error codes for misuse (UEs 0 and 1)
 * Prints "rcce2: MODE OK (N UEs)" on UE 0. */
#include <stdint.h>

#include "RCCE.h"
#include "testprog.h"

#define OUTSTANDING 4
#define BIG (3 * 8192 + 100) /* several chunks: the requests stay pending */

static int me, n;

static void fill(char *buf, size_t len, int from, int k) {
  for (size_t i = 0; i < len; i++) buf[i] = (char)(from * 31 + k * 7 + (int)i);
}
static void check(const char *buf, size_t len, int from, int k, const char *what) {
  for (size_t i = 0; i < len; i++)
    if (buf[i] != (char)(from * 31 + k * 7 + (int)i))
      fail("%s: message %d from UE %d wrong at byte %zu", what, k, from, i);
}

static void ring(void) {
  static char out[OUTSTANDING][BIG], in[OUTSTANDING][BIG];
  RCCE_SEND_REQUEST sreq[OUTSTANDING];
  RCCE_RECV_REQUEST rreq[OUTSTANDING];
  int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int k = 0; k < OUTSTANDING; k++) fill(out[k], BIG, me, k);
  /* Even UEs send first, odd ones receive first: both orders start requests. */
  for (int phase = 0; phase < 2; phase++)
    for (int k = 0; k < OUTSTANDING; k++) {
      int rc = (phase == me % 2) ? RCCE_isend(out[k], BIG, right, &sreq[k]) : RCCE_irecv(in[k], BIG, left, &rreq[k]);
      if (rc != RCCE_SUCCESS && rc != RCCE_PENDING && rc != RCCE_RESERVED) fail("start %d: code %d", k, rc);
      if (k == 0 && rc == RCCE_RESERVED) fail("the first request is RCCE_RESERVED with nothing ahead of it");
    }
  int test = -1, rc = RCCE_isend_test(&sreq[OUTSTANDING - 1], &test);
  if (test ? rc != RCCE_SUCCESS : rc != RCCE_PENDING && rc != RCCE_RESERVED) fail("test: %d, code %d", test, rc);
  while (RCCE_isend_push(right) != RCCE_SUCCESS || RCCE_irecv_push(left) != RCCE_SUCCESS) {}
  for (int k = 0; k < OUTSTANDING; k++) {
    if (RCCE_isend_wait(&sreq[k]) != RCCE_SUCCESS || !sreq[k].finished) fail("send %d not finished", k);
    if (RCCE_irecv_test(&rreq[k], &test) != RCCE_SUCCESS || !test) fail("receive %d not finished", k);
    if (RCCE_irecv_wait(&rreq[k]) != RCCE_SUCCESS) fail("receive %d wait", k);
    check(in[k], BIG, left, k, "ring");
  }
  /* Without a handle the call completes at once. */
  char one = (char)me, got = -1;
  if (me % 2 == 0) {
    RCCE_isend(&one, 1, right, NULL);
    RCCE_irecv(&got, 1, left, NULL);
  } else {
    RCCE_irecv(&got, 1, left, NULL);
    RCCE_isend(&one, 1, right, NULL);
  }
  if (got != (char)left) fail("handle-less message %d, want %d", got, left);
}

static void variants(void) {
  static char buf[BIG], mine[BIG];
  int right = (me + 1) % n, left = (me + n - 1) % n;
  /* pipelined */
  fill(mine, BIG, me, 1);
  if (me % 2 == 0) {
    RCCE_send_pipe(mine, BIG, right);
    RCCE_recv_pipe(buf, BIG, left);
  } else {
    RCCE_recv_pipe(buf, BIG, left);
    RCCE_send_pipe(mine, BIG, right);
  }
  check(buf, BIG, left, 1, "pipe");
  /* tagged: tag and data arrive together, the tag first */
  int tag = 1000 + me, got_tag = -1;
  fill(mine, 100, me, 2);
  if (me % 2 == 0) {
    RCCE_send_tagged(mine, 100, right, &tag, sizeof tag);
    RCCE_recv_tagged(buf, 100, left, &got_tag, sizeof got_tag);
  } else {
    RCCE_recv_tagged(buf, 100, left, &got_tag, sizeof got_tag);
    RCCE_send_tagged(mine, 100, right, &tag, sizeof tag);
  }
  if (got_tag != 1000 + left) fail("tag %d, want %d", got_tag, 1000 + left);
  check(buf, 100, left, 2, "tagged");
  /* multicast from the last UE */
  int root = n - 1;
  if (me == root) {
    fill(mine, 5000, me, 3);
    if (RCCE_send_mcast(mine, 5000) != RCCE_SUCCESS) fail("send_mcast");
  } else {
    if (RCCE_recv_mcast(buf, 5000, root) != RCCE_SUCCESS) fail("recv_mcast");
    check(buf, 5000, root, 3, "mcast");
  }
  /* probe, then cancel: UE 0 sends UE 1 two messages; UE 1 probes until the
   * first is there, drops it, and receives the second */
  if (me == 0) {
    fill(mine, 64, 0, 4);
    RCCE_send(mine, 64, 1);
    fill(mine, 64, 0, 5);
    RCCE_send(mine, 64, 1);
  } else if (me == 1) {
    int test = 0;
    t_vcharp where = NULL;
    while (!test) RCCE_recv_probe(0, &test, &where);
    if (!where) fail("probe found a message but no MPB address");
    if (RCCE_recv_cancel(64, 0) != RCCE_SUCCESS) fail("recv_cancel");
    RCCE_recv_probe(0, NULL, NULL); /* blocking probe: the second one */
    RCCE_recv(buf, 64, 0);
    check(buf, 64, 0, 5, "after cancel");
  }
  /* tagged probe: UE 1 learns the tag before it receives the data */
  if (me == 1) {
    int t = 77;
    fill(mine, 40, 1, 6);
    RCCE_send_tagged(mine, 40, 0, &t, sizeof t);
  } else if (me == 0) {
    int t = -1;
    RCCE_recv_probe_tagged(1, NULL, NULL, &t, sizeof t);
    if (t != 77) fail("probed tag %d", t);
    RCCE_recv(buf, 40, 1);
    check(buf, 40, 1, 6, "probe_tagged");
  }
  /* copies into and out of my MPB */
  t_vcharp mpb = RCCE_malloc(RCCE_LINE_SIZE * 4);
  if (!mpb) fail("RCCE_malloc");
  fill(mine, 128, me, 7);
  RCCE_memcpy_put((void *)mpb, mine, 128);
  memset(buf, 0, 128);
  RCCE_memcpy_get(buf, (const void *)mpb, 128);
  check(buf, 128, me, 7, "memcpy");
  RCCE_memcpy(buf, mine, 16);
  RCCE_free(mpb);
  RCCE_barrier(&RCCE_COMM_WORLD);
}

/* Everybody adds one to a shared counter, then passes a barrier; nobody may
 * see less than n * round after it. */
static void barriers(void) {
  volatile int *count = (volatile int *)RCCE_shmalloc(RCCE_LINE_SIZE);
  if (!count) fail("RCCE_shmalloc");
  if (me == 0) *count = 0;
  RCCE_barrier(&RCCE_COMM_WORLD);
  tree_t tree;
  if (RCCE_tree_init(&RCCE_COMM_WORLD, &tree, 2) != RCCE_SUCCESS) fail("tree_init");
  if ((me == 0) != (tree.parent == -1)) fail("tree parent %d", tree.parent);
  if (tree.num_children != (2 * me + 1 < n) + (2 * me + 2 < n)) fail("tree children %d", tree.num_children);
  int round = 0;
  for (int algo = 0; algo < 11; algo++) {
    RCCE_acquire_lock(0);
    *count = *count + 1;
    RCCE_release_lock(0);
    round++;
    int rc = RCCE_SUCCESS, polls = 0;
    switch (algo) {
      case 0: rc = RCCE_tree_barrier(&RCCE_COMM_WORLD, &tree); break;
      case 1: rc = RCCE_tournament_barrier(&RCCE_COMM_WORLD); break;
      case 2: rc = RCCE_tournament_fixed_barrier(&RCCE_COMM_WORLD); break;
      case 3: rc = RCCE_dissemination_barrier(&RCCE_COMM_WORLD); break;
      case 4: rc = RCCE_TNS_barrier(&RCCE_COMM_WORLD); break;
      case 5: rc = RCCE_AIR_barrier(&RCCE_COMM_WORLD); break;
      case 6: rc = RCCE_AIR_barrier2(&RCCE_COMM_WORLD); break;
      case 7:
      case 8:
      case 9:
      case 10:
        /* the non-blocking ones, polled; UE 0 comes late so the others poll */
        if (me == 0) RCCE_recv_probe(1 % n, &polls, NULL); /* a little work first */
        while ((rc = algo == 7   ? RCCE_nb_barrier(&RCCE_COMM_WORLD)
                     : algo == 8 ? RCCE_nb_TNS_barrier(&RCCE_COMM_WORLD)
                                 : RCCE_nb_AIR_barrier(&RCCE_COMM_WORLD)) == RCCE_PENDING)
          polls++;
        break;
    }
    if (rc != RCCE_SUCCESS) fail("barrier algorithm %d: code %d", algo, rc);
    if (*count < n * round) fail("barrier algorithm %d let me pass at count %d of %d", algo, *count, n * round);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
}

static void shm(void) {
  char *p = (char *)RCCE_shmalloc(100);
  if (!p) fail("RCCE_shmalloc");
  if (me == 0) fill(p, 100, 9, 9);
  RCCE_barrier(&RCCE_COMM_WORLD);
  char *q = (char *)RCCE_shrealloc((t_vcharp)p, 5000);
  if (!q) fail("RCCE_shrealloc");
  RCCE_barrier(&RCCE_COMM_WORLD);
  check(q, 100, 9, 9, "shrealloc");
  RCCE_barrier(&RCCE_COMM_WORLD);
  RCCE_shfree((t_vcharp)q);
}

/* Misuse gives RCCE's error codes (UEs 0 and 1; the others only pass). */
static void misuse(void) {
  static char big[BIG], small[8];
  if (me == 0) {
    RCCE_SEND_REQUEST a, never;
    memset(&never, 0, sizeof never);
    int test = 0;
    if (RCCE_isend_test(&never, &test) == RCCE_SUCCESS) fail("test of a request never started succeeded");
    int rc = RCCE_isend(big, BIG, 1, &a);
    if (rc == RCCE_PENDING && RCCE_isend(big, BIG, 1, &a) != RCCE_ERROR_ID) fail("a pending request started again");
    RCCE_isend_wait(&a);
    if (RCCE_isend(small, 8, 0, &a) != RCCE_ERROR_ID) fail("a request to myself");
    if (RCCE_send_tagged(small, 8, 1, small, -1) != RCCE_ERROR_MESSAGE_LENGTH) fail("a tag of -1 bytes");
    RCCE_send(small, 8, 1); /* the receive below expects 4 bytes: its request fails */
    tree_t tree;
    if (RCCE_tree_init(&RCCE_COMM_WORLD, &tree, 0) == RCCE_SUCCESS) fail("a tree of fanout 0");
    if (RCCE_shrealloc((t_vcharp)small, 10) != NULL) fail("shrealloc of a private buffer");
  } else if (me == 1) {
    RCCE_recv(big, BIG, 0);
    RCCE_RECV_REQUEST r;
    RCCE_irecv(small, 4, 0, &r);
    if (RCCE_irecv_wait(&r) != RCCE_ERROR_MESSAGE_LENGTH) fail("an 8-byte message into a 4-byte receive");
    RCCE_recv(small, 8, 0); /* the message stayed pending for a receive that fits */
  }
}

static void devs(void) {
  int dev = RCCE_dev(), total = 0, before = 0;
  if (dev != RCCE_ue_to_dev(me)) fail("RCCE_dev %d, RCCE_ue_to_dev %d", dev, RCCE_ue_to_dev(me));
  for (int d = 0; d < RCCE_num_dev(); d++) total += RCCE_num_ues_dev(d);
  if (total != n) fail("boards hold %d UEs of %d", total, n);
  for (int u = 0; u < me; u++) before += RCCE_ue_to_dev(u) == dev;
  if (RCCE_dev_ue() != before) fail("RCCE_dev_ue %d, want %d", RCCE_dev_ue(), before);
  if (RCCE_ue_to_dev(n) != -1) fail("RCCE_ue_to_dev past the last UE");
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  me = RCCE_ue();
  n = RCCE_num_ues();
  testprog_name = "rcce2";
  testprog_ue = me;
  const char *mode = argc > 1 ? argv[1] : "ring";
  if (!strcmp(mode, "ring")) ring();
  else if (!strcmp(mode, "variants")) variants();
  else if (!strcmp(mode, "barriers")) barriers();
  else if (!strcmp(mode, "shm")) shm();
  else if (!strcmp(mode, "devs")) devs();
  else if (!strcmp(mode, "misuse")) misuse();
  else fail("unknown mode %s", mode);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("rcce2: %s OK (%d UEs)\n", mode, n);
  RCCE_finalize();
  return 0;
}

/*
 * ircce_ext.c - the RCCE/iRCCE extensions: RCCE_peek, iRCCE_ANY_LENGTH,
 * size checks, tagged flags, the pipelined iRCCE_ssend, the iRCCE
 * collectives, and the collectives' refusal to run over a busy send buffer.
 *
 * usage: ircce_ext MODE
 *   peek      UE 0 serves every other UE: nothing is pending before the
 *             clients send (RCCE_peek and RCCE_peek_size return 1); then it
 *             finds each request with RCCE_peek, reads its header twice, its
 *             size with RCCE_peek_size, and receives the whole
 *             message (sizes from 1 B to 200 KiB: tagged, chunked,
 *             single-copy); peeking past the end of a message is an error.
 *             With -DSINGLEBITFLAGS peeking is refused with an error.
 *   anylength iRCCE_ANY_LENGTH receives (irecv and srecv) learn each size;
 *             a receive of the wrong size fails and leaves the message for a
 *             receive that fits
 *   tagged    iRCCE tagged flags carry 28 bytes; a longer tag is an error
 *   pipeline  iRCCE_ssend (pipelined) to RCCE_recv, iRCCE_srecv and irecv,
 *             both directions, behind queued requests
 *   mcast     iRCCE_mcast / msend / mrecv from every root, iRCCE_bcast,
 *             iRCCE_barrier(NULL)
 *   busy      RCCE_allreduce while an isend occupies the send buffer returns
 *             RCCE_ERROR_DATA_OVERLAP; after the send finished it works
 *             (local put only: under remote put the send uses the peer's buffer)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "RCCE_lib.h"
#include "iRCCE.h"
#include "testprog.h"

static int me, np;
static char big_in[256 * 1024], big_out[256 * 1024];

static unsigned char byte_of(int src, int k, size_t i) {
  return (unsigned char)(src * 131 + k * 17 + i * 7 + (i >> 8));
}
static void fill(char *buf, int src, int k, size_t n) {
  for (size_t i = 0; i < n; i++) buf[i] = (char)byte_of(src, k, i);
}
static void check(const char *buf, int src, int k, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)buf[i] != byte_of(src, k, i))
      fail("%s: message %d from UE %d: byte %zu of %zu is wrong", what, k, src, i, n);
}
static void expect(int got, int want, const char *what) {
  if (got != want) fail("%s returned %d, expected %d", what, got, want);
}

#ifndef SINGLEBITFLAGS
static size_t size_of(int k) {
  const size_t sizes[] = {1, 24, 28, 29, 100, RCCE_chunk - 1, RCCE_chunk + 1, 40000, 200000};
  return sizes[k % 9];
}
#define NSIZES 9

/* A request: its own size in the first 4 bytes (at least 4 bytes long). */
static size_t request_size(int src, int k) { return 4 + size_of(k + src) % 150000; }
#endif

static void mode_peek(void) {
  char head[8];
  if (me == 0) {
    size_t size;
    for (int u = 1; u < np; u++) expect(RCCE_peek(head, 4, u), 1, "RCCE_peek before any send");
    for (int u = 1; u < np; u++) expect(RCCE_peek_size(u, &size), 1, "RCCE_peek_size before any send");
    expect(RCCE_peek_size(1, NULL), RCCE_ERROR_TARGET, "RCCE_peek_size without a size pointer");
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
#ifdef SINGLEBITFLAGS
  if (me == 1) {
    fill(big_out, me, 0, 100);
    expect(RCCE_send(big_out, 100, 0), RCCE_SUCCESS, "RCCE_send");
  } else if (me == 0) {
    int rc;
    while ((rc = RCCE_peek(head, 4, 1)) == 1) {}
    expect(rc, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_peek with single-bit flags");
    size_t size;
    expect(RCCE_peek_size(1, &size), RCCE_ERROR_FLAG_UNDEFINED, "RCCE_peek_size with single-bit flags");
    expect(RCCE_recv(big_in, 100, 1), RCCE_SUCCESS, "RCCE_recv");
    check(big_in, 1, 0, 100, "recv after refused peek");
  }
#else
  if (me != 0) {
    for (int k = 0; k < NSIZES; k++) {
      uint32_t n = (uint32_t)request_size(me, k);
      fill(big_out, me, k, n);
      memcpy(big_out, &n, 4);
      expect(RCCE_send(big_out, n, 0), RCCE_SUCCESS, "RCCE_send request");
    }
    uint32_t four = 4; /* peeking at 8 bytes of this 4-byte message is an error */
    expect(RCCE_send((char *)&four, 4, 0), RCCE_SUCCESS, "RCCE_send short");
  } else {
    int *next = calloc((size_t)np, sizeof *next), left = (np - 1) * (NSIZES + 1), src = 0;
    while (left > 0) {
      src = src % (np - 1) + 1; /* round-robin over the clients */
      if (next[src] == NSIZES + 1 || RCCE_peek(head, 4, src) == 1) continue;
      uint32_t n, again;
      memcpy(&n, head, 4);
      expect(RCCE_peek((char *)&again, 4, src), RCCE_SUCCESS, "second RCCE_peek");
      if (again != n) fail("two peeks at UE %d's message differ: %u, %u", src, n, again);
      size_t size = 0;
      expect(RCCE_peek_size(src, &size), RCCE_SUCCESS, "RCCE_peek_size");
      if (size != n) fail("RCCE_peek_size says %zu bytes for UE %d's message of %u", size, src, n);
      if (next[src] == NSIZES) {
        expect(RCCE_peek(head, 8, src), RCCE_ERROR_MESSAGE_LENGTH, "RCCE_peek past the end");
        expect(RCCE_recv(head, 4, src), RCCE_SUCCESS, "RCCE_recv short");
      } else {
        if (n != request_size(src, next[src])) fail("request %d of UE %d announces %u bytes", next[src], src, n);
        expect(RCCE_recv(big_in, n, src), RCCE_SUCCESS, "RCCE_recv request");
        fill(big_in, src, next[src], 4); /* the size field replaced the pattern's first bytes */
        check(big_in, src, next[src], n, "peek server");
      }
      next[src]++;
      left--;
    }
    free(next);
  }
#endif
}

#ifndef SINGLEBITFLAGS
static void mode_anylength(void) {
  if (me != 0) {
    for (int k = 0; k < NSIZES; k++) {
      fill(big_out, me, k, size_of(k));
      expect(RCCE_send(big_out, size_of(k), 0), RCCE_SUCCESS, "RCCE_send");
    }
    fill(big_out, me, 99, 300);
    expect(iRCCE_ssend(big_out, 300, 0), RCCE_SUCCESS, "iRCCE_ssend 300");
    return;
  }
  for (int src = 1; src < np; src++) {
    for (int k = 0; k < NSIZES; k++) {
      iRCCE_RECV_REQUEST req;
      memset(big_in, 0, size_of(k) + 1);
      if (k % 2) {
        expect(iRCCE_srecv(big_in, iRCCE_ANY_LENGTH, src), RCCE_SUCCESS, "iRCCE_srecv(ANY_LENGTH)");
      } else {
        int rc = iRCCE_irecv(big_in, iRCCE_ANY_LENGTH, src, &req);
        if (rc == iRCCE_PENDING) rc = iRCCE_irecv_wait(&req);
        expect(rc, RCCE_SUCCESS, "iRCCE_irecv(ANY_LENGTH)");
        expect(iRCCE_get_size(NULL, &req), (int)size_of(k), "iRCCE_get_size");
      }
      expect(iRCCE_get_length(), (int)size_of(k), "iRCCE_get_length");
      check(big_in, src, k, size_of(k), "any-length receive");
      if (big_in[size_of(k)] != 0) fail("any-length receive wrote past the message");
    }
    /* wrong sizes fail and leave the message; the right one takes it */
    expect(RCCE_recv(big_in, 299, src), RCCE_ERROR_MESSAGE_LENGTH, "RCCE_recv too short");
    iRCCE_RECV_REQUEST req;
    int rc = iRCCE_irecv(big_in, 301, src, &req);
    if (rc == iRCCE_PENDING) rc = iRCCE_irecv_wait(&req);
    expect(rc, RCCE_ERROR_MESSAGE_LENGTH, "iRCCE_irecv too long");
    expect(RCCE_recv(big_in, 300, src), RCCE_SUCCESS, "RCCE_recv of the right size");
    check(big_in, src, 99, 300, "receive after size errors");
  }
}

static void mode_tagged(void) {
  RCCE_FLAG flag;
  expect(iRCCE_flag_alloc_tagged(&flag), RCCE_SUCCESS, "iRCCE_flag_alloc_tagged");
  expect(iRCCE_get_max_tagged_len(), 28, "iRCCE_get_max_tagged_len");
  RCCE_barrier(&RCCE_COMM_WORLD);
  char tag[32], got[32];
  int right = (me + 1) % np, left = (me - 1 + np) % np, result = -1;
  fill(tag, me, 5, 28);
  expect(iRCCE_flag_write_tagged(&flag, RCCE_FLAG_SET, right, tag, 29), RCCE_ERROR_MESSAGE_LENGTH, "29-byte tag");
  expect(iRCCE_flag_write_tagged(&flag, RCCE_FLAG_SET, right, tag, 28), RCCE_SUCCESS, "iRCCE_flag_write_tagged");
  expect(iRCCE_wait_tagged(flag, RCCE_FLAG_SET, got, 28), RCCE_SUCCESS, "iRCCE_wait_tagged");
  check(got, left, 5, 28, "tag after wait");
  memset(got, 0, sizeof got);
  expect(iRCCE_test_tagged(flag, RCCE_FLAG_SET, &result, got, 10), RCCE_SUCCESS, "iRCCE_test_tagged");
  if (result != 1) fail("iRCCE_test_tagged: result %d", result);
  check(got, left, 5, 10, "tag after test");
  RCCE_FLAG_STATUS st = RCCE_FLAG_UNSET;
  expect(iRCCE_flag_read_tagged(flag, &st, me, got, 28), RCCE_SUCCESS, "iRCCE_flag_read_tagged");
  if (st != RCCE_FLAG_SET) fail("read_tagged: status %d", st);
  check(got, left, 5, 28, "tag after read");
  RCCE_barrier(&RCCE_COMM_WORLD);
  /* a short tag: the rest of the line reads as zeros */
  expect(iRCCE_flag_write_tagged(&flag, RCCE_FLAG_UNSET, right, tag, 3), RCCE_SUCCESS, "3-byte tag");
  expect(iRCCE_wait_tagged(flag, RCCE_FLAG_UNSET, got, 28), RCCE_SUCCESS, "iRCCE_wait_tagged");
  check(got, left, 5, 3, "short tag");
  for (int i = 3; i < 28; i++)
    if (got[i]) fail("byte %d after a 3-byte tag is %d", i, got[i]);
  RCCE_barrier(&RCCE_COMM_WORLD);
  /* iRCCE's names under RCCE's prefix, a second flag freed again, and iRCCE_memcpy into my MPB */
  RCCE_FLAG second;
  expect(RCCE_flag_alloc_tagged(&second), RCCE_SUCCESS, "RCCE_flag_alloc_tagged");
  RCCE_barrier(&RCCE_COMM_WORLD);
  expect(RCCE_flag_write_tagged(&second, RCCE_FLAG_SET, right, tag, 8), RCCE_SUCCESS, "RCCE_flag_write_tagged");
  expect(RCCE_wait_tagged(second, RCCE_FLAG_SET, got, 8), RCCE_SUCCESS, "RCCE_wait_tagged");
  check(got, left, 5, 8, "tag through RCCE_wait_tagged");
  RCCE_barrier(&RCCE_COMM_WORLD);
  expect(RCCE_flag_free_tagged(&second), RCCE_SUCCESS, "RCCE_flag_free_tagged");
  t_vcharp mpb = RCCE_malloc(RCCE_LINE_SIZE);
  iRCCE_memcpy((void *)mpb, tag, 28);
  memset(got, 0, sizeof got);
  iRCCE_memcpy_get(got, (const void *)mpb, 28);
  check(got, me, 5, 28, "iRCCE_memcpy");
  RCCE_free(mpb);
  RCCE_barrier(&RCCE_COMM_WORLD);
}
#endif

static void mode_pipeline(void) {
  const size_t sizes[] = {RCCE_chunk / 2, RCCE_chunk + 1, 3 * RCCE_chunk + 5, 100000, 250000};
  int peer = me ^ 1;
  if (peer >= np) return;
  for (int dir = 0; dir < 2; dir++) {
    int sender = (me % 2) == dir;
    for (int k = 0; k < 5; k++) {
      size_t n = sizes[k];
      if (sender) {
        /* a queued small isend first: the pipelined send queues behind it */
        iRCCE_SEND_REQUEST sr;
        char small[10];
        fill(small, me, 50 + k, 10);
        int rc = iRCCE_isend(small, 10, peer, &sr);
        fill(big_out, me, k, n);
        expect(iRCCE_ssend(big_out, (ssize_t)n, peer), RCCE_SUCCESS, "iRCCE_ssend");
        if (rc == iRCCE_PENDING) rc = iRCCE_isend_wait(&sr);
        expect(rc, RCCE_SUCCESS, "iRCCE_isend");
      } else {
        char small[10];
        expect(RCCE_recv(small, 10, peer), RCCE_SUCCESS, "RCCE_recv small");
        check(small, peer, 50 + k, 10, "small before pipelined");
        if (k % 3 == 0) {
          expect(RCCE_recv(big_in, n, peer), RCCE_SUCCESS, "RCCE_recv of a pipelined send");
        } else if (k % 3 == 1) {
          expect(iRCCE_srecv(big_in, (ssize_t)n, peer), RCCE_SUCCESS, "iRCCE_srecv");
        } else {
          iRCCE_RECV_REQUEST req;
          int rc = iRCCE_irecv(big_in, (ssize_t)n, peer, &req);
          if (rc == iRCCE_PENDING) rc = iRCCE_irecv_wait(&req);
          expect(rc, RCCE_SUCCESS, "iRCCE_irecv of a pipelined send");
        }
        check(big_in, peer, k, n, "pipelined");
      }
    }
  }
}

static void mode_mcast(void) {
  const size_t sizes[] = {1, 100, RCCE_chunk, RCCE_chunk + 1, 50000};
  for (int root = 0; root < np; root++) {
    for (int k = 0; k < 5; k++) {
      size_t n = sizes[k];
      char *buf = me == root ? big_out : big_in;
      if (me == root) fill(big_out, root, k, n);
      if (k % 2) expect(iRCCE_mcast(buf, n, root), RCCE_SUCCESS, "iRCCE_mcast");
      else if (me == root) expect(iRCCE_msend(buf, (ssize_t)n), RCCE_SUCCESS, "iRCCE_msend");
      else expect(iRCCE_mrecv(buf, (ssize_t)n, root), RCCE_SUCCESS, "iRCCE_mrecv");
      if (me != root) check(big_in, root, k, n, "multicast");
    }
    expect(iRCCE_barrier(NULL), RCCE_SUCCESS, "iRCCE_barrier");
    if (me == root) fill(big_out, root, 9, 5000);
    expect(iRCCE_bcast(me == root ? big_out : big_in, 5000, root, RCCE_COMM_WORLD), RCCE_SUCCESS, "iRCCE_bcast");
    if (me != root) check(big_in, root, 9, 5000, "iRCCE_bcast");
  }
}

static void mode_busy(void) {
  int in = me, out = 0;
  if (me == 0) {
    iRCCE_SEND_REQUEST sr;
    fill(big_out, 0, 1, 100);
    expect(iRCCE_isend(big_out, 100, 1, &sr), iRCCE_PENDING, "iRCCE_isend");
    expect(RCCE_allreduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), RCCE_ERROR_DATA_OVERLAP,
           "RCCE_allreduce over a busy send buffer");
    RCCE_barrier(&RCCE_COMM_WORLD);
    expect(iRCCE_isend_wait(&sr), RCCE_SUCCESS, "iRCCE_isend_wait");
  } else {
    RCCE_barrier(&RCCE_COMM_WORLD);
    if (me == 1) {
      expect(RCCE_recv(big_in, 100, 0), RCCE_SUCCESS, "RCCE_recv");
      check(big_in, 0, 1, 100, "busy");
    }
  }
  expect(RCCE_allreduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), RCCE_SUCCESS,
         "RCCE_allreduce");
  if (out != np * (np - 1) / 2) fail("allreduce sum %d", out);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  me = RCCE_ue();
  np = RCCE_num_ues();
  testprog_name = "ircce_ext";
  testprog_ue = me;
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "peek")) mode_peek();
#ifndef SINGLEBITFLAGS
  else if (!strcmp(mode, "anylength")) mode_anylength();
  else if (!strcmp(mode, "tagged")) mode_tagged();
#endif
  else if (!strcmp(mode, "pipeline")) mode_pipeline();
  else if (!strcmp(mode, "mcast")) mode_mcast();
  else if (!strcmp(mode, "busy")) mode_busy();
  else fail("unknown mode '%s'", mode);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("ircce_ext: %s OK (%d UEs)\n", mode, np);
  RCCE_finalize();
  return 0;
}

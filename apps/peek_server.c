/*
 * peek_server.c - a request/reply server built on RCCE_peek.
 *
 * RCCE's receive needs the sender and the exact size in advance.  A server
 * that answers requests of any size from any client knows neither, so the
 * Ruby-on-SCC work ([RUBY-2011] (docs/references.md), the MARC 2011 proceedings, "Ruby on SCC":
 * the RCCE_peek section and Fig. 1) added RCCE_peek(buf, size, src):
 * it returns 0 after copying the first `size` bytes of the next message
 * from `src` without receiving it, or 1 when `src` has nothing waiting; a
 * later RCCE_recv reads the same message.  Every message starts with a
 * header that holds the body size, so a peek at the header tells the
 * receiver how many bytes to RCCE_recv.  This program is that protocol.
 *
 * UE 0 is the server, UEs 1..N-1 are clients.  A message is a 16-byte
 * header {uint32 body_size, client, seq, op} followed by body_size bytes.
 *   - Each client sends `rounds` REQUEST messages whose bodies have
 *     irregular sizes (0..max_body bytes, from a hash of client and seq;
 *     every fourth is tiny) and a pattern derived from (client, seq).
 *   - The server visits the clients round-robin, starting after the one it
 *     served last, with RCCE_peek(hdr, sizeof hdr, src) until one has a
 *     message waiting; it checks the header, peeks again at the header and
 *     the first body bytes (the message must still be there, unchanged),
 *     makes sure a peek longer than the message is refused, and then
 *     RCCE_recv's exactly sizeof hdr + body_size bytes.  It checks every
 *     body byte and answers with a REPLY message: a 4-byte checksum of the
 *     request body, the body reversed, and a tail of a few to a hundred
 *     pattern bytes, so replies have their own irregular sizes.
 *   - The client learns the reply size the same way: it peeks at the
 *     server's header, then RCCE_recv's header + body and checks it all.
 *   - At the end every client sends a header-only BYE; the server stops
 *     when all clients said BYE and prints the requests served per client.
 * Anyone polling with RCCE_peek who found nothing calls sched_yield(), so
 * 48 UEs on a few host CPUs still make progress.
 *
 * usage: peek_server [rounds=10] [max_body=20000]
 */
#define APP_NAME "peek_server"
#include "app_common.h"

#include <sched.h>

enum { OP_REQUEST = 1, OP_REPLY = 2, OP_BYE = 3 };

typedef struct {
  uint32_t body_size;
  uint32_t client;
  uint32_t seq;
  uint32_t op;
} header;

#define HDR ((size_t)sizeof(header))
#define MAX_TAIL 100
#define PEEK_BODY 64 /* body bytes the server peeks at besides the header */

/* Body size of request seq of client c: irregular, sometimes tiny. */
static size_t request_size(int c, int seq, size_t max_body) {
  uint32_t h = app_seed(0x5eed, (uint32_t)c, (uint32_t)seq);
  if (seq % 4 == 0) return h % 13 < max_body ? h % 13 : max_body; /* header + body <= 28 bytes */
  return h % (uint32_t)(max_body + 1);
}
static uint32_t request_seed(int c, int seq) { return app_seed(0x7e9, (uint32_t)c, (uint32_t)seq); }
static size_t tail_size(int c, int seq) {
  return 1 + (size_t)(app_seed(0x7a11, (uint32_t)c, (uint32_t)seq) % MAX_TAIL);
}
static uint32_t tail_seed(int c, int seq) { return app_seed(0x2e91, (uint32_t)c, (uint32_t)seq); }

static uint32_t checksum(const unsigned char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

/* Polls src with RCCE_peek until a message is waiting; copies its first
   `len` bytes to buf.  Returns 0, or -1 after an error (reported). */
static int peek_wait(char *buf, size_t len, int src) {
  for (;;) {
    int rc = RCCE_peek(buf, len, src);
    if (rc == 0) return 0;
    if (rc != 1) {
      app_rc(rc, "RCCE_peek");
      return -1;
    }
    sched_yield();
  }
}

static void client(int rounds, size_t max_body) {
  int me = RCCE_ue();
  size_t cap = HDR + 4 + max_body + MAX_TAIL;
  unsigned char *req = malloc(HDR + max_body), *rep = malloc(cap);
  if (!req || !rep) app_die("out of memory");
  for (int seq = 0; seq < rounds; seq++) {
    size_t body = request_size(me, seq, max_body);
    header h = {(uint32_t)body, (uint32_t)me, (uint32_t)seq, OP_REQUEST};
    memcpy(req, &h, HDR);
    app_fill(req + HDR, body, request_seed(me, seq));
    if (app_rc(RCCE_send((char *)req, HDR + body, 0), "RCCE_send(request)") != RCCE_SUCCESS) break;

    header r;
    if (peek_wait((char *)&r, HDR, 0) != 0) break;
    size_t want = 4 + body + tail_size(me, seq);
    if (r.op != OP_REPLY || r.client != (uint32_t)me || r.seq != (uint32_t)seq || r.body_size != want) {
      app_error("reply header to request %d is {size %u, client %u, seq %u, op %u}, expected {%zu, %d, %d, %d}", seq,
                r.body_size, r.client, r.seq, r.op, want, me, seq, OP_REPLY);
      if (r.body_size > cap - HDR) app_die("reply too large to receive; giving up");
    }
    if (app_rc(RCCE_recv((char *)rep, HDR + r.body_size, 0), "RCCE_recv(reply)") != RCCE_SUCCESS) break;
    if (memcmp(rep, &r, HDR) != 0) app_error("reply %d: received header differs from the peeked one", seq);
    if (r.body_size != want) continue;
    const unsigned char *b = rep + HDR;
    uint32_t sum;
    memcpy(&sum, b, 4);
    if (sum != checksum(req + HDR, body)) app_error("reply %d: checksum %08x is wrong", seq, sum);
    for (size_t i = 0; i < body; i++)
      if (b[4 + i] != req[HDR + body - 1 - i]) {
        app_error("reply %d: byte %zu of the reversed body is wrong", seq, i);
        break;
      }
    long bad = app_check(b + 4 + body, tail_size(me, seq), tail_seed(me, seq));
    if (bad >= 0) app_error("reply %d: tail byte %ld is wrong", seq, bad);
  }
  header bye = {0, (uint32_t)me, (uint32_t)rounds, OP_BYE};
  app_rc(RCCE_send((char *)&bye, HDR, 0), "RCCE_send(BYE)");
  free(req);
  free(rep);
}

static void server(int rounds, size_t max_body) {
  int np = RCCE_num_ues(), active = np - 1, last = 0;
  unsigned char *msg = malloc(HDR + max_body), *rep = malloc(HDR + 4 + max_body + MAX_TAIL);
  unsigned char first[HDR + PEEK_BODY];
  int *served = calloc((size_t)np, sizeof *served), *gone = calloc((size_t)np, sizeof *gone);
  long refused = 0, polls = 0;
  if (!msg || !rep || !served || !gone) app_die("out of memory");
  double t0 = RCCE_wtime();
  while (active > 0) {
    /* Find a client with a message waiting, round-robin after the last one. */
    header h;
    int src = -1;
    for (int k = 1; k <= np - 1 && src < 0; k++) {
      int c = 1 + (last - 1 + k + (np - 1)) % (np - 1);
      if (gone[c]) continue;
      int rc = RCCE_peek((char *)&h, HDR, c);
      if (rc == 0) src = c;
      else if (rc != 1) {
        app_rc(rc, "RCCE_peek");
        app_die("RCCE_peek failed; giving up");
      }
    }
    if (src < 0) {
      polls++;
      sched_yield();
      continue;
    }
    last = src;
    int want_op = served[src] < rounds ? OP_REQUEST : OP_BYE;
    if (h.client != (uint32_t)src || h.op != (uint32_t)want_op || h.body_size > max_body ||
        (want_op == OP_REQUEST &&
         (h.seq != (uint32_t)served[src] || h.body_size != request_size(src, served[src], max_body))) ||
        (want_op == OP_BYE && h.body_size != 0)) {
      app_error("message from UE %d has header {size %u, client %u, seq %u, op %u}", src, h.body_size, h.client, h.seq,
                h.op);
      app_die("cannot tell the message size; giving up");
    }
    size_t len = HDR + h.body_size;
    /* The message is still there: peek at it again, a little further. */
    size_t plen = len < sizeof first ? len : sizeof first;
    if (app_rc(RCCE_peek((char *)first, plen, src), "RCCE_peek(again)") == 0 && memcmp(first, &h, HDR) != 0)
      app_error("second peek at UE %d's message shows another header", src);
    /* A peek longer than the message is an error, and changes nothing. */
    if (len < sizeof first) {
      int rc = RCCE_peek((char *)rep, len + 1, src);
      if (rc == 0 || rc == 1) app_error("RCCE_peek of %zu bytes of a %zu-byte message returned %d", len + 1, len, rc);
      else refused++;
    }
    if (app_rc(RCCE_recv((char *)msg, len, src), "RCCE_recv(request)") != RCCE_SUCCESS) continue;
    if (memcmp(msg, first, plen) != 0) app_error("message from UE %d differs from what RCCE_peek showed", src);
    if (want_op == OP_BYE) {
      gone[src] = 1;
      active--;
      continue;
    }
    int seq = served[src]++;
    size_t body = h.body_size;
    long bad = app_check(msg + HDR, body, request_seed(src, seq));
    if (bad >= 0) app_error("request %d from UE %d: byte %ld is wrong", seq, src, bad);

    size_t tail = tail_size(src, seq), rbody = 4 + body + tail;
    header r = {(uint32_t)rbody, (uint32_t)src, (uint32_t)seq, OP_REPLY};
    memcpy(rep, &r, HDR);
    uint32_t sum = checksum(msg + HDR, body);
    memcpy(rep + HDR, &sum, 4);
    for (size_t i = 0; i < body; i++) rep[HDR + 4 + i] = msg[HDR + body - 1 - i];
    app_fill(rep + HDR + 4 + body, tail, tail_seed(src, seq));
    app_rc(RCCE_send((char *)rep, HDR + rbody, src), "RCCE_send(reply)");
  }
  double t = RCCE_wtime() - t0;
  long total = 0;
  printf("peek_server: %d client(s) x %d requests (bodies 0..%zu bytes)\n", np - 1, rounds, max_body);
  for (int c = 1; c < np; c++) {
    printf("peek_server: UE %d: %d requests served\n", c, served[c]);
    if (served[c] != rounds) app_error("UE %d: %d requests served, expected %d", c, served[c], rounds);
    total += served[c];
  }
  printf("peek_server: %ld requests in %.6f s, %ld over-long peeks refused, %ld empty polling rounds\n", total, t,
         refused, polls);
  fflush(stdout);
  free(msg);
  free(rep);
  free(served);
  free(gone);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"rounds", 10, 1, 1000000}, {"max_body", 20000, 0, 1L << 22}};
  int rc = app_args(argc, argv, args, 2, NULL);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int rounds = (int)args[0].value;
  size_t max_body = (size_t)args[1].value;
  if (RCCE_ue() == 0) server(rounds, max_body);
  else client(rounds, max_body);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

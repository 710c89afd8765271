/* Mailbox tests (scc_mailbox.h), one mode per run:
 *   stress N     every UE sends N mails to every UE (itself included) at
 *                once; each mail names its sender and sequence number and
 *                carries a pattern: none lost, none duplicated, in order
 *   handler N    as stress, but mails are taken by a handler (asynchronous)
 *   nonblock     MAILBOX_EMPTY when nothing waits; a mail sent is then there
 *   rcce         RCCE messages of every size still work after mailbox_init
 *                (the send buffer shrank), mixed with mails
 *   errors       every documented error code
 */
#include <sched.h>
#include <stdint.h>

#include "RCCE.h"
#include "scc_mailbox.h"
#include "testprog.h"

struct mail {
  int32_t src, seq;
  unsigned char pattern[MAILBOX_MAX_LEN - 8];
};

static int me, np;

static void make_mail(struct mail *m, int seq, int dest) {
  m->src = me;
  m->seq = seq;
  for (size_t i = 0; i < sizeof m->pattern; i++) m->pattern[i] = (unsigned char)(seq * 7 + me * 13 + dest * 3 + (int)i);
}

static int32_t *next_seq; /* per sender: the sequence number expected next */
static volatile int received;

static void check_mail(int src, const void *msg, size_t len) {
  struct mail m, want;
  if (len != sizeof m) fail("mail from UE %d has %zu bytes, sent %zu", src, len, sizeof m);
  memcpy(&m, msg, sizeof m);
  if (m.src != src) fail("mail says it is from UE %d, the mailbox says UE %d", m.src, src);
  if (m.seq != next_seq[src])
    fail("mail %d from UE %d arrived when %d was due (lost or reordered)", m.seq, src, next_seq[src]);
  make_mail(&want, m.seq, me);
  want.src = src;
  for (size_t i = 0; i < sizeof m.pattern; i++)
    if (m.pattern[i] != (unsigned char)(m.seq * 7 + src * 13 + me * 3 + (int)i))
      fail("mail %d from UE %d: byte %zu corrupted", m.seq, src, i);
  next_seq[src]++;
  received++;
}

static void on_mail(int src, const void *msg, size_t len) { check_mail(src, msg, len); }

static int handler_mode; /* mails go to on_mail, asynchronously */

static void send_all(int n) {
  for (int seq = 0; seq < n; seq++)
    for (int k = 0; k < np; k++) {
      int dest = (me + k) % np; /* everyone starts with a different peer */
      struct mail m;
      make_mail(&m, seq, dest);
      int rc = mailbox_send(dest, &m, sizeof m);
      if (rc != MAILBOX_SUCCESS) fail("mailbox_send to %d: %s", dest, mailbox_error_string(rc));
      /* Take mails between sends so nobody's mailboxes stay full forever. */
      int src;
      size_t len;
      unsigned char buf[MAILBOX_MAX_LEN];
      while (!handler_mode && mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK) == MAILBOX_SUCCESS)
        check_mail(src, buf, len);
    }
}

static void stress(int n) {
  send_all(n);
  while (received < n * np) {
    if (handler_mode) {
      sched_yield(); /* the handler runs on doorbells / timer ticks */
      continue;
    }
    int src;
    size_t len;
    unsigned char buf[MAILBOX_MAX_LEN];
    int rc = mailbox_recv(&src, buf, &len, 0);
    if (rc != MAILBOX_SUCCESS) fail("mailbox_recv: %s", mailbox_error_string(rc));
    check_mail(src, buf, len);
  }
  for (int s = 0; s < np; s++)
    if (next_seq[s] != n) fail("%d mails from UE %d, expected %d", next_seq[s], s, n);
  RCCE_barrier(&RCCE_COMM_WORLD);
  int src;
  size_t len;
  unsigned char buf[MAILBOX_MAX_LEN];
  if (!handler_mode && mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK) != MAILBOX_EMPTY)
    fail("a mail from UE %d arrived after all were received (duplicated)", src);
}

static void nonblock(void) {
  int src;
  size_t len;
  unsigned char buf[MAILBOX_MAX_LEN];
  if (mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK) != MAILBOX_EMPTY)
    fail("non-blocking receive found a mail nobody sent");
  RCCE_barrier(&RCCE_COMM_WORLD);
  const char hello[] = "hello";
  if (mailbox_send((me + 1) % np, hello, sizeof hello) != MAILBOX_SUCCESS) fail("mailbox_send failed");
  int rc;
  while ((rc = mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK)) == MAILBOX_EMPTY) sched_yield();
  if (rc != MAILBOX_SUCCESS || src != (me + np - 1) % np || len != sizeof hello || memcmp(buf, hello, len))
    fail("non-blocking receive returned %d from UE %d (%zu bytes)", rc, src, len);
}

static void rcce_mixed(void) {
  static char out[70000], in[70000];
  int right = (me + 1) % np, left = (me + np - 1) % np;
  for (size_t size = 1; size <= sizeof out; size = size * 3 + 1) {
    for (size_t i = 0; i < size; i++) out[i] = (char)(i * 5 + size + (size_t)me);
    struct mail m;
    make_mail(&m, (int)size, right);
    if (mailbox_send(right, &m, sizeof m) != MAILBOX_SUCCESS) fail("mailbox_send failed");
    if (me % 2 == 0) {
      RCCE_send(out, size, right);
      RCCE_recv(in, size, left);
    } else {
      RCCE_recv(in, size, left);
      RCCE_send(out, size, right);
    }
    for (size_t i = 0; i < size; i++)
      if (in[i] != (char)(i * 5 + size + (size_t)left)) fail("RCCE message of %zu bytes corrupted at %zu", size, i);
    int src;
    size_t len;
    unsigned char buf[MAILBOX_MAX_LEN];
    if (mailbox_recv(&src, buf, &len, 0) != MAILBOX_SUCCESS || src != left)
      fail("mail from the left neighbour missing");
  }
}

static void expect(int got, int want, const char *what) {
  if (got != want)
    fail("%s returned %d (%s), expected %d (%s)", what, got, mailbox_error_string(got), want,
         mailbox_error_string(want));
}

static void errors_before_init(void) {
  int src;
  size_t len;
  char buf[MAILBOX_MAX_LEN];
  expect(mailbox_send(0, "x", 1), MAILBOX_ERROR_NOT_INIT, "mailbox_send before mailbox_init");
  expect(mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK), MAILBOX_ERROR_NOT_INIT, "mailbox_recv before mailbox_init");
}

static void errors(void) {
  int src;
  size_t len;
  char buf[64] = {0};
  expect(mailbox_send(np, buf, 1), MAILBOX_ERROR_DEST, "mailbox_send to UE np");
  expect(mailbox_send(-1, buf, 1), MAILBOX_ERROR_DEST, "mailbox_send to UE -1");
  expect(mailbox_send(0, buf, MAILBOX_MAX_LEN + 1), MAILBOX_ERROR_LEN, "mailbox_send of 29 bytes");
  expect(mailbox_send(0, NULL, 4), MAILBOX_ERROR_ARG, "mailbox_send of NULL");
  expect(mailbox_recv(NULL, buf, &len, 0), MAILBOX_ERROR_ARG, "mailbox_recv with NULL src");
  expect(mailbox_recv(&src, buf, &len, 8), MAILBOX_ERROR_ARG, "mailbox_recv with unknown flags");
  expect(mailbox_set_handler(on_mail), MAILBOX_SUCCESS, "mailbox_set_handler");
  expect(mailbox_recv(&src, buf, &len, MAILBOX_NONBLOCK), MAILBOX_ERROR_HANDLER, "mailbox_recv with a handler");
  expect(mailbox_set_handler(NULL), MAILBOX_SUCCESS, "mailbox_set_handler(NULL)");
  expect(mailbox_send(me, buf, MAILBOX_MAX_LEN), MAILBOX_SUCCESS, "mailbox_send of 28 bytes to itself");
  expect(mailbox_recv(&src, buf, &len, 0), MAILBOX_SUCCESS, "mailbox_recv of the mail to itself");
  if (src != me || len != MAILBOX_MAX_LEN) fail("mail to itself came back from %d with %zu bytes", src, len);
}

int RCCE_APP(int argc, char **argv) {
  testprog_name = "mailbox";
  const char *mode = argc > 1 ? argv[1] : "stress";
  int n = argc > 2 ? atoi(argv[2]) : 50;
  if (!strcmp(mode, "errors")) errors_before_init();
  RCCE_init(&argc, &argv);
  me = testprog_ue = RCCE_ue();
  np = RCCE_num_ues();
  if (!strcmp(mode, "errors")) errors_before_init();
  int rc = mailbox_init();
  if (rc != MAILBOX_SUCCESS) fail("mailbox_init: %s", mailbox_error_string(rc));
  next_seq = calloc((size_t)np, sizeof *next_seq);
  if (!strcmp(mode, "stress")) stress(n);
  else if (!strcmp(mode, "handler")) {
    handler_mode = 1;
    mailbox_set_handler(on_mail);
    stress(n);
  } else if (!strcmp(mode, "nonblock")) nonblock();
  else if (!strcmp(mode, "rcce")) rcce_mixed();
  else if (!strcmp(mode, "errors")) errors();
  else fail("unknown mode '%s'", mode);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("mailbox: %s OK (%d UEs)\n", mode, np);
  free(next_seq);
  RCCE_finalize();
  return 0;
}

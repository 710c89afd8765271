/*
 * mailbox_pingpong.c - mail ping-pong between UE 0 and UE 1 over MetalSVM's
 * asynchronous mailboxes (include/scc_mailbox.h), as in [SVM-2012] (docs/references.md) (Lankes et
 * al., MetalSVM) section 7.1, Figs. 6 and 7.
 *
 * UE 0 mails UE 1 a 28-byte mail, UE 1 answers with one; after `warmup`
 * untimed round trips, each of `round_trips` round trips is timed on UE 0
 * and UE 0 prints the half round trip in microseconds -- the mean (the
 * paper's "average latency") and the median -- and the mesh distance of the
 * two UEs' cores (XY hops between their tiles on the SCC's 6x4 mesh, two
 * cores per tile; place them with `rccerun --cores 0,30`).  Every mail
 * carries its sequence number, its kind and a pattern of (sequence, kind,
 * sender), and every receiver checks all 28 bytes.
 *
 * The other UEs are the "active cores" of Fig. 7: by default each waits in
 * a blocking mailbox_recv until UE 0 mails it a stop mail at the end; with
 * --background the pairs (2k, 2k+1), k >= 1, mail each other continuously
 * until then (Fig. 7's third curve; an odd last UE just waits).  Doorbells or
 * polling are rccerun's choice (--mailbox irq|poll), not the program's.
 *
 * usage: mailbox_pingpong [round_trips=2000] [warmup=100] [--background]
 */
#define APP_NAME "mailbox_pingpong"
#include "app_common.h"
#include "scc_mailbox.h"

enum kind { PING = 1, PONG, DATA, LAST, STOP }; /* LAST: a background mail asking to finish */

#define TEMPLATES 64 /* distinct patterns, so a stale or repeated mail is caught */
#define PATTERN_OFF 8

typedef unsigned char mail[MAILBOX_MAX_LEN];

/* Sequence number, kind, then the pattern of (sequence mod TEMPLATES, kind, sender). */
static void compose(unsigned char *m, uint32_t seq, uint32_t kind, int sender) {
  memcpy(m, &seq, 4);
  memcpy(m + 4, &kind, 4);
  app_fill(m + PATTERN_OFF, MAILBOX_MAX_LEN - PATTERN_OFF, app_seed(seq % TEMPLATES, kind, (uint32_t)sender));
}

static void mb_ok(int rc, const char *what) {
  if (rc < 0) {
    app_error("%s returned %d (%s)", what, rc, mailbox_error_string(rc));
    app_die("cannot continue without the mailbox system");
  }
}

/* Takes the next mail (blocking); returns its sender. */
static int take(unsigned char *m, const char *what) {
  int src = -1;
  size_t len = 0;
  mb_ok(mailbox_recv(&src, m, &len, 0), what);
  if (len != MAILBOX_MAX_LEN) app_error("%s: mail from UE %d has %zu bytes, not %d", what, src, len, MAILBOX_MAX_LEN);
  return src;
}

/* Counts an error unless m is the mail (seq, kind) composed by sender. */
static void expect(const unsigned char *m, uint32_t seq, uint32_t kind, int sender) {
  mail want;
  compose(want, seq, kind, sender);
  if (memcmp(m, want, MAILBOX_MAX_LEN) != 0) {
    uint32_t got_seq, got_kind;
    memcpy(&got_seq, m, 4);
    memcpy(&got_kind, m + 4, 4);
    app_error("mail from UE %d: expected sequence %u kind %u, got sequence %u kind %u%s", sender, seq, kind, got_seq,
              got_kind, got_seq == seq && got_kind == kind ? " with a wrong pattern" : "");
  }
}

/* ------------------------------------------------------------ ping-pong */

typedef struct {
  mail mine[TEMPLATES], theirs[TEMPLATES]; /* templates: compose() once, not in the timed loop */
} templates;

static void make_templates(templates *t, uint32_t my_kind, uint32_t their_kind, int me, int partner) {
  for (uint32_t k = 0; k < TEMPLATES; k++) {
    compose(t->mine[k], k, my_kind, me);
    compose(t->theirs[k], k, their_kind, partner);
  }
}

static void send_seq(const templates *t, uint32_t seq, int dest) {
  mail m;
  memcpy(m, t->mine[seq % TEMPLATES], MAILBOX_MAX_LEN);
  memcpy(m, &seq, 4);
  mb_ok(mailbox_send(dest, m, MAILBOX_MAX_LEN), "mailbox_send");
}

static void check_seq(const templates *t, const unsigned char *m, int src, uint32_t seq, int partner) {
  uint32_t got;
  memcpy(&got, m, 4);
  if (src != partner || got != seq || memcmp(m + 4, t->theirs[seq % TEMPLATES] + 4, MAILBOX_MAX_LEN - 4) != 0)
    app_error("round trip %u: wrong mail from UE %d (sequence %u)", seq, src, got);
}

/* UE 0: the timed side; samples[i] = half of round trip i, in seconds. */
static void ping(int total, int warmup, double *samples) {
  static templates t;
  make_templates(&t, PING, PONG, 0, 1);
  mail in;
  for (int i = 0; i < total; i++) {
    double t0 = RCCE_wtime();
    send_seq(&t, (uint32_t)i, 1);
    int src = take(in, "mailbox_recv");
    double t1 = RCCE_wtime();
    check_seq(&t, in, src, (uint32_t)i, 1);
    if (i >= warmup) samples[i - warmup] = (t1 - t0) / 2.0;
  }
}

/* UE 1: answers every mail at once. */
static void pong(int total) {
  static templates t;
  make_templates(&t, PONG, PING, 1, 0);
  mail in;
  for (int i = 0; i < total; i++) {
    int src = take(in, "mailbox_recv");
    check_seq(&t, in, src, (uint32_t)i, 0);
    send_seq(&t, (uint32_t)i, 0);
  }
}

/* ----------------------------------------------------- the other cores */

/* Waits for UE 0's stop mail. */
static void wait_stop(void) {
  mail in;
  int src = take(in, "mailbox_recv");
  if (src != 0) app_error("expected the stop mail from UE 0, got a mail from UE %d", src);
  else expect(in, 0, STOP, 0);
}

/* --background: rounds of one mail each way with the partner until either
   side has seen its stop mail (it then sends LAST, and both end after that
   round, so no mail is left unread).  Returns the rounds done. */
static long background(int partner) {
  int me = RCCE_ue(), stop_seen = 0;
  long rounds = 0;
  for (uint32_t r = 0;; r++) {
    int mine_last = stop_seen, theirs_last = -1;
    mail m;
    compose(m, r, mine_last ? LAST : DATA, me);
    mb_ok(mailbox_send(partner, m, MAILBOX_MAX_LEN), "mailbox_send");
    while (theirs_last < 0) {
      int src = take(m, "mailbox_recv");
      uint32_t kind;
      memcpy(&kind, m + 4, 4);
      if (src == 0) {
        expect(m, 0, STOP, 0);
        stop_seen = 1;
      } else if (src == partner) {
        theirs_last = kind == LAST;
        expect(m, r, theirs_last ? LAST : DATA, partner);
      } else {
        app_error("unexpected mail from UE %d", src);
      }
    }
    rounds++;
    if (mine_last || theirs_last) break;
  }
  if (!stop_seen) wait_stop();
  return rounds;
}

/* ------------------------------------------------------------- results */

static int core_of_me(void) {
  const char *s = getenv("OPENSCC_CORE"); /* set by rccerun (docs/rccerun.md) */
  return s ? atoi(s) : RCCE_ue();
}

/* XY hops between two cores of the SCC's 6x4 mesh (two cores per tile). */
static int scc_hops(int a, int b) {
  int ta = a / 2, tb = b / 2;
  return abs(ta % 6 - tb % 6) + abs(ta / 6 - tb / 6);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int bg = 0, n = 0;
  for (int i = 0; i < argc; i++) /* --background is ours; app_args parses the rest */
    if (i > 0 && strcmp(argv[i], "--background") == 0) bg = 1;
    else argv[n++] = argv[i];
  app_arg args[] = {{"round_trips", 2000, 1, 100000000}, {"warmup", 100, 0, 100000000}};
  int rc = app_args(n, argv, args, 2, NULL);
  if (rc >= 0 || app_alone()) {
    if (rc > 0 && RCCE_ue() == 0) fprintf(stderr, "  --background: the other UEs mail each other in pairs\n");
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int trips = (int)args[0].value, warmup = (int)args[1].value;
  int me = RCCE_ue(), np = RCCE_num_ues();
  mb_ok(mailbox_init(), "mailbox_init");

  int cores[2] = {core_of_me(), -1};
  if (me == 1) app_rc(RCCE_send((char *)&cores[0], sizeof(int), 0), "RCCE_send");
  if (me == 0) app_rc(RCCE_recv((char *)&cores[1], sizeof(int), 1), "RCCE_recv");
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");

  double *samples = NULL;
  long rounds = 0, total_rounds = 0;
  if (me == 0) {
    if (!(samples = malloc((size_t)trips * sizeof *samples))) app_die("out of memory");
    ping(warmup + trips, warmup, samples);
    mail stop;
    compose(stop, 0, STOP, 0);
    for (int ue = 2; ue < np; ue++) mb_ok(mailbox_send(ue, stop, MAILBOX_MAX_LEN), "mailbox_send(stop)");
  } else if (me == 1) {
    pong(warmup + trips);
  } else if (bg && (me ^ 1) < np) {
    rounds = background(me ^ 1);
  } else {
    wait_stop();
  }
  app_rc(RCCE_allreduce((char *)&rounds, (char *)&total_rounds, 1, RCCE_LONG, RCCE_SUM, RCCE_COMM_WORLD),
         "RCCE_allreduce(rounds)");

  if (me == 0) {
    double sum = 0.0;
    for (int i = 0; i < trips; i++) sum += samples[i];
    qsort(samples, (size_t)trips, sizeof *samples, by_value);
    double median = trips % 2 ? samples[trips / 2] : (samples[trips / 2 - 1] + samples[trips / 2]) / 2.0;
    printf("mailbox_pingpong: ues=%d hops=%d cores=%d,%d background=%s round_trips=%d latency_us=%.3f "
           "median_us=%.3f background_mails=%ld\n",
           np, scc_hops(cores[0], cores[1]), cores[0], cores[1], bg ? "on" : "off", trips, sum / trips * 1e6,
           median * 1e6, 2 * total_rounds);
    free(samples);
  }
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/*
 * xfer_driver.h - the measurement loop of the iRCCE benchmarks, shared by the
 * OpenSCC program (ircce_bench.c) and the MPI peer (pingping_mpi.c).
 *
 * The including file fills an xtransport: blocking, in-order ctl_send /
 * ctl_recv for the untimed control messages, and a table of modes (below),
 * then calls xfer_run(&transport, me, np, argc, argv, &opts) after
 * bench_parse.
 *
 * Mode kinds (what one "operation" is, for one size):
 *   XK_PINGPONG  rank 0 sends, rank 1 receives and sends back, rank 0
 *                receives; the value is the half round trip
 *                ("half_rtt_us").
 *   XK_PINGPING  both ranks send to and receive from each other at once;
 *                the value is the time per exchange ("lat_us").
 *   XK_BURST     rank 0 sends `burst` messages (-n, default 16) to rank 1,
 *                which receives them; the value is the time per message
 *                ("lat_us").
 * Extra arguments (bench_parse ignores them):
 *   -x MODE[,MODE...]  modes to run (names from the mode table), in order
 *   -s SIZE[,SIZE...]  message sizes in bytes (default 8)
 *   -n N               messages per burst (default 16, at most 64)
 * Sizes form the outer loop, modes the inner one, so modes compared with
 * each other are measured side by side.
 *
 * Per size and mode, as in common/pingpong_driver.h: rank 0 tells rank 1
 * {mode, n, size} with an untimed control message, both run n operations,
 * rank 1 answers with the number of bad messages it saw (untimed).  A warm-up
 * of 2 operations, calibration batches of 1, 2, 4, ... until one lasts >= 10 %
 * of the time box (-t), then one timed loop sized to the time box (at least
 * -i iterations).  Every message is checked cheaply: its first and last
 * byte carry a tag that changes with the operation and the sender.  Rank 0
 * prints one JSON line per size and mode, e.g.
 *   {"bench":"pingping","impl":"ircce","ues":2,"size":8,"iters":..,"lat_us":..,"valid":true}
 * "valid" is false when a check failed on either rank; the program then
 * exits with status 1 (both ranks).
 */
#ifndef BENCH_IRCCE_XFER_DRIVER_H
#define BENCH_IRCCE_XFER_DRIVER_H

#include "../common/bench_common.h"

enum { XK_PINGPONG, XK_PINGPING, XK_BURST };

#define XFER_MAX_BURST 64
#define XFER_MAX_SIZES 32
#define XFER_MAX_MODES 8

typedef struct {
  const char *name;  /* -x name */
  const char *bench; /* "bench" field of the output line */
  const char *impl;  /* "impl" field */
  int kind;
  /* XK_PINGPONG: blocking send and receive */
  void (*send)(char *buf, long size, int peer);
  void (*recv)(char *buf, long size, int peer);
  /* XK_PINGPING: send sbuf and receive rbuf at once, return when both done */
  void (*exchange)(char *sbuf, char *rbuf, long size, int peer);
  /* XK_BURST: n messages bufs[0..n-1] of `size` bytes each */
  void (*burst_send)(char **bufs, long size, int n, int peer);
  void (*burst_recv)(char **bufs, long size, int n, int peer);
} xmode;

typedef struct {
  void (*ctl_send)(void *buf, long size, int peer);
  void (*ctl_recv)(void *buf, long size, int peer);
  const xmode *modes;
  int nmodes;
} xtransport;

static const xtransport *xf_t;

static char *xf_sbuf[XFER_MAX_BURST], *xf_rbuf[XFER_MAX_BURST];
static int xf_burst = 16;
static long xf_bad; /* bad messages seen by this rank */

/* The tag of operation `op`'s message from `sender` (never 0, never equal
   to the other rank's tag of the same op). */
static inline unsigned char xf_tag(long op, int sender) { return (unsigned char)(1 + ((op * 2 + sender) % 251)); }

static inline void xf_mark(char *buf, long size, long op, int sender) {
  if (size <= 0) return;
  buf[0] = (char)xf_tag(op, sender);
  buf[size - 1] = (char)xf_tag(op, sender);
}

static inline void xf_verify(const xmode *m, const char *buf, long size, long op, int sender) {
  if (size <= 0) return;
  unsigned char t = xf_tag(op, sender);
  if ((unsigned char)buf[0] != t || (unsigned char)buf[size - 1] != t) {
    if (xf_bad++ == 0)
      fprintf(stderr, "xfer %s: %ld-byte message %ld from rank %d has first/last byte %u/%u, expected %u\n", m->name,
              size, op, sender, (unsigned char)buf[0], (unsigned char)buf[size - 1], t);
  }
}

/* n operations of mode m; op numbers continue from *op.  Both ranks. */
static void xf_ops(const xmode *m, int me, long n, long size, long *op) {
  int peer = 1 - me;
  for (long i = 0; i < n; i++, (*op)++) {
    switch (m->kind) {
      case XK_PINGPONG:
        if (me == 0) {
          xf_mark(xf_sbuf[0], size, *op, 0);
          m->send(xf_sbuf[0], size, 1);
          m->recv(xf_rbuf[0], size, 1);
          xf_verify(m, xf_rbuf[0], size, *op, 1);
        } else {
          m->recv(xf_rbuf[0], size, 0);
          xf_verify(m, xf_rbuf[0], size, *op, 0);
          xf_mark(xf_sbuf[0], size, *op, 1);
          m->send(xf_sbuf[0], size, 0);
        }
        break;
      case XK_PINGPING:
        xf_mark(xf_sbuf[0], size, *op, me);
        m->exchange(xf_sbuf[0], xf_rbuf[0], size, peer);
        xf_verify(m, xf_rbuf[0], size, *op, peer);
        break;
      case XK_BURST:
        if (me == 0) {
          for (int k = 0; k < xf_burst; k++) xf_mark(xf_sbuf[k], size, *op * XFER_MAX_BURST + k, 0);
          m->burst_send(xf_sbuf, size, xf_burst, 1);
        } else {
          m->burst_recv(xf_rbuf, size, xf_burst, 0);
          for (int k = 0; k < xf_burst; k++) xf_verify(m, xf_rbuf[k], size, *op * XFER_MAX_BURST + k, 0);
        }
        break;
    }
  }
}

/* Rank 0: one batch of n operations; returns its elapsed time and adds the
   bad count rank 1 reports to *remote_bad. */
static double xf_batch(int mi, long n, long size, long *op, long *remote_bad) {
  int64_t ctl[4] = {mi, n, size, *op};
  xf_t->ctl_send(ctl, (long)sizeof ctl, 1);
  double t0 = bench_now();
  xf_ops(&xf_t->modes[mi], 0, n, size, op);
  double dt = bench_now() - t0;
  int64_t bad = 0;
  xf_t->ctl_recv(&bad, (long)sizeof bad, 1);
  *remote_bad += (long)bad;
  return dt;
}

static void xf_drive(int np, const bench_opts *o, const int *modes, int nmodes, const long *sizes, int nsizes,
                     long *all_bad) {
  long op = 0;
  for (int s = 0; s < nsizes; s++) {
    for (int k = 0; k < nmodes; k++) {
      const xmode *m = &xf_t->modes[modes[k]];
      long size = sizes[s], remote_bad = 0, local_before = xf_bad;
      xf_batch(modes[k], 2, size, &op, &remote_bad); /* warm-up */
      long n = 1;
      double dt = xf_batch(modes[k], n, size, &op, &remote_bad);
      while (!bench_calib_done(o->target_s, n, dt)) {
        n *= 2;
        dt = xf_batch(modes[k], n, size, &op, &remote_bad);
      }
      long iters = bench_iters_for(o->target_s, n, dt, o->min_iters);
      dt = xf_batch(modes[k], iters, size, &op, &remote_bad);
      int valid = remote_bad == 0 && xf_bad == local_before;
      *all_bad += remote_bad;
      double per = dt / (double)iters;
      const char *key = "lat_us";
      if (m->kind == XK_PINGPONG) {
        per /= 2.0;
        key = "half_rtt_us";
      } else if (m->kind == XK_BURST) {
        per /= (double)xf_burst;
      }
      printf("{\"bench\":\"%s\",\"impl\":\"%s\",\"ues\":%d,\"size\":%ld,", m->bench, m->impl, np, size);
      if (m->kind == XK_BURST) printf("\"burst\":%d,", xf_burst);
      printf("\"iters\":%ld,\"%s\":%.4f,\"valid\":%s}\n", iters, key, per * 1e6, valid ? "true" : "false");
      fflush(stdout);
    }
  }
  int64_t done[4] = {-1, 0, 0, 0};
  xf_t->ctl_send(done, (long)sizeof done, 1);
}

static void xf_serve(void) {
  for (;;) {
    int64_t ctl[4];
    xf_t->ctl_recv(ctl, (long)sizeof ctl, 0);
    if (ctl[0] < 0) break;
    long before = xf_bad, op = (long)ctl[3];
    xf_ops(&xf_t->modes[ctl[0]], 1, (long)ctl[1], (long)ctl[2], &op);
    int64_t bad = xf_bad - before;
    xf_t->ctl_send(&bad, (long)sizeof bad, 0);
  }
}

static int xf_parse_list(const char *s, long *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0) return -1;
    out[n++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return n;
}

/* Returns the program's exit status. */
static int xfer_run(const xtransport *t, int me, int np, int argc, char **argv, const bench_opts *o) {
  xf_t = t;
  int modes[XFER_MAX_MODES], nmodes = 0, nsizes = 1;
  long sizes[XFER_MAX_SIZES] = {8};
  for (int i = 1; i + 1 < argc; i++) {
    if (!strcmp(argv[i], "-s")) {
      nsizes = xf_parse_list(argv[++i], sizes, XFER_MAX_SIZES);
    } else if (!strcmp(argv[i], "-n")) {
      xf_burst = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-x")) {
      char names[256];
      snprintf(names, sizeof names, "%s", argv[++i]);
      for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int k = 0; k < xf_t->nmodes; k++)
          if (!strcmp(xf_t->modes[k].name, tok)) found = k;
        if (found < 0 || nmodes == XFER_MAX_MODES) {
          if (me == 0) fprintf(stderr, "xfer: unknown mode '%s'\n", tok);
          return 2;
        }
        modes[nmodes++] = found;
      }
    }
  }
  if (nsizes <= 0 || nmodes == 0 || xf_burst < 1 || xf_burst > XFER_MAX_BURST) {
    if (me == 0) fprintf(stderr, "xfer: need -x MODE[,MODE] and valid -s SIZES / -n 1..%d\n", XFER_MAX_BURST);
    return 2;
  }
  if (np < 2) {
    if (me == 0) fprintf(stderr, "xfer: needs at least 2 ranks (got %d)\n", np);
    return 1;
  }
  long maxsize = 8;
  for (int s = 0; s < nsizes; s++)
    if (sizes[s] > maxsize) maxsize = sizes[s];
  int nbuf = 1;
  for (int k = 0; k < nmodes; k++)
    if (xf_t->modes[modes[k]].kind == XK_BURST) nbuf = xf_burst;
  for (int k = 0; k < nbuf; k++) {
    xf_sbuf[k] = malloc((size_t)maxsize);
    xf_rbuf[k] = malloc((size_t)maxsize);
    if (!xf_sbuf[k] || !xf_rbuf[k]) {
      fprintf(stderr, "xfer: out of memory\n");
      return 1;
    }
    /* touch every page before timing; a recognisable pattern in between */
    memset(xf_sbuf[k], 0x5a, (size_t)maxsize);
    memset(xf_rbuf[k], 0, (size_t)maxsize);
  }
  long all_bad = 0;
  if (me == 0) xf_drive(np, o, modes, nmodes, sizes, nsizes, &all_bad);
  else if (me == 1) xf_serve();
  for (int k = 0; k < nbuf; k++) {
    free(xf_sbuf[k]);
    free(xf_rbuf[k]);
  }
  return (xf_bad != 0 || all_bad != 0) ? 1 : 0;
}

#endif

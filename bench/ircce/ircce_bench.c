/*
 * ircce_bench.c - the OpenSCC side of the iRCCE benchmark group
 * (bench/ircce/xfer_driver.h; run by bench/run_bench.py).  Modes (-x):
 *   pp_rcce        pingpong with blocking RCCE_send / RCCE_recv
 *   pp_ircce       pingpong with iRCCE_ssend / iRCCE_srecv (the pipelined
 *                  synchronous pair, a.k.a. iRCCE_send / iRCCE_recv)
 *   pingping       both UEs post iRCCE_irecv and iRCCE_isend at once, then
 *                  wait for both (a wait list)
 *   burst_isend    UE 0 starts -n iRCCE_isend requests (UE 1 -n iRCCE_irecv),
 *                  then both wait for all of them (iRCCE_wait_all)
 *   burst_send     the same -n messages with blocking RCCE_send / RCCE_recv
 * The protocol variants (--flags tagged, --scheme rplg, --no-single-copy) are
 * rccerun options, so the same program measures all of them.  Control
 * messages use RCCE_send / RCCE_recv.
 */
#include "RCCE.h"
#include "iRCCE.h"
#include "xfer_driver.h"

static int fails; /* non-success return codes */

static void check(int rc, const char *what) {
  if (rc != RCCE_SUCCESS && rc != iRCCE_PENDING && fails++ == 0)
    fprintf(stderr, "ircce_bench: %s returned %d\n", what, rc);
}

static void ctl_snd(void *buf, long size, int peer) { check(RCCE_send(buf, (size_t)size, peer), "RCCE_send(ctl)"); }
static void ctl_rcv(void *buf, long size, int peer) { check(RCCE_recv(buf, (size_t)size, peer), "RCCE_recv(ctl)"); }

static void rcce_snd(char *buf, long size, int peer) { check(RCCE_send(buf, (size_t)size, peer), "RCCE_send"); }
static void rcce_rcv(char *buf, long size, int peer) { check(RCCE_recv(buf, (size_t)size, peer), "RCCE_recv"); }
static void ircce_snd(char *buf, long size, int peer) { check(iRCCE_ssend(buf, (ssize_t)size, peer), "iRCCE_ssend"); }
static void ircce_rcv(char *buf, long size, int peer) { check(iRCCE_srecv(buf, (ssize_t)size, peer), "iRCCE_srecv"); }

static iRCCE_SEND_REQUEST sreq[XFER_MAX_BURST];
static iRCCE_RECV_REQUEST rreq[XFER_MAX_BURST];

static void ircce_exchange(char *sbuf, char *rbuf, long size, int peer) {
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  int rr = iRCCE_irecv(rbuf, (ssize_t)size, peer, &rreq[0]);
  int rs = iRCCE_isend(sbuf, (ssize_t)size, peer, &sreq[0]);
  check(rr, "iRCCE_irecv");
  check(rs, "iRCCE_isend");
  if (rr == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, NULL, &rreq[0]);
  if (rs == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, &sreq[0], NULL);
  if (list.first) check(iRCCE_wait_all(&list), "iRCCE_wait_all");
}

static void burst_isnd(char **bufs, long size, int n, int peer) {
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int k = 0; k < n; k++) {
    int rc = iRCCE_isend(bufs[k], (ssize_t)size, peer, &sreq[k]);
    check(rc, "iRCCE_isend");
    if (rc == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, &sreq[k], NULL);
  }
  if (list.first) check(iRCCE_wait_all(&list), "iRCCE_wait_all");
}

static void burst_ircv(char **bufs, long size, int n, int peer) {
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  for (int k = 0; k < n; k++) {
    int rc = iRCCE_irecv(bufs[k], (ssize_t)size, peer, &rreq[k]);
    check(rc, "iRCCE_irecv");
    if (rc == iRCCE_PENDING) iRCCE_add_to_wait_list(&list, NULL, &rreq[k]);
  }
  if (list.first) check(iRCCE_wait_all(&list), "iRCCE_wait_all");
}

static void burst_snd(char **bufs, long size, int n, int peer) {
  for (int k = 0; k < n; k++) rcce_snd(bufs[k], size, peer);
}

static void burst_rcv(char **bufs, long size, int n, int peer) {
  for (int k = 0; k < n; k++) rcce_rcv(bufs[k], size, peer);
}

static const xmode modes[] = {
    {"pp_rcce", "pingpong", "rcce", XK_PINGPONG, rcce_snd, rcce_rcv, NULL, NULL, NULL},
    {"pp_ircce", "pingpong", "ircce", XK_PINGPONG, ircce_snd, ircce_rcv, NULL, NULL, NULL},
    {"pingping", "pingping", "ircce", XK_PINGPING, NULL, NULL, ircce_exchange, NULL, NULL},
    {"burst_isend", "burst", "ircce", XK_BURST, NULL, NULL, NULL, burst_isnd, burst_ircv},
    {"burst_send", "burst", "rcce", XK_BURST, NULL, NULL, NULL, burst_snd, burst_rcv},
};

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  bench_opts o;
  bench_parse(argc, argv, &o);
  xtransport t = {ctl_snd, ctl_rcv, modes, (int)(sizeof modes / sizeof modes[0])};
  int rc = xfer_run(&t, RCCE_ue(), RCCE_num_ues(), argc, argv, &o);
  if (fails) rc = 1;
  RCCE_finalize();
  return rc;
}

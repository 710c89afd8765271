/*
 * gather_server.c - a server collecting records from every other UE with
 * iRCCE's any-source receives.
 *
 * UE 0 is the server; UEs 1..N-1 are clients.  Each client produces
 * `rounds` fixed-size records {ue, seq, payload} at its own pace: between
 * two records it does some fake work whose length depends on its UE id and
 * the record number, so the clients' messages arrive in an order nobody
 * knows beforehand.  Each record goes out with iRCCE_isend, and the client
 * does its fake work while the send is pending before waiting for it.
 *
 * The server does not know who sends next.  It keeps `window` receives from
 * iRCCE_ANY_SOURCE posted (iRCCE_irecv(buf, size, iRCCE_ANY_SOURCE, &req)),
 * waits for the oldest one, asks iRCCE_get_source() who sent it and posts
 * a new receive in its place.  Any-source receives bind to senders in
 * posting order and each client's messages arrive in the order it sent
 * them, so handling the receives oldest first sees every client's records
 * in sequence.  For every record the server checks that the sender named
 * by iRCCE_get_source() is the one in the record, that the client's seq
 * went up by one, and every payload byte.  At the end it prints one line
 * per client with its record count; every client must have delivered
 * exactly `rounds` records.
 *
 * Mirrors the message pattern of [SCC-2BOARD] (docs/references.md) (Reble et al., "Connecting the
 * Cloud: Transparent and Flexible Communication for a Cluster of Intel
 * SCCs", section V on SCC-MPICH): an MPI progress engine on top of iRCCE
 * must accept messages from whichever core sends, which needs receives
 * from any source rather than RCCE's fixed pairs.
 *
 * usage: gather_server [rounds=20] [payload=120] [window=4]
 *   payload: bytes of payload after the 8-byte {ue, seq} head of a record
 *            (payload=20 makes 28-byte records, which fit a tagged flag)
 *   window:  any-source receives the server keeps posted
 */
#define APP_NAME "gather_server"
#include "app_common.h"
#include "iRCCE.h"

#define MAX_WINDOW 64

typedef struct {
  int32_t ue;
  int32_t seq;
  unsigned char payload[]; /* `payload` bytes, pattern seeded by (ue, seq) */
} record;

static uint32_t payload_seed(int ue, int seq) { return app_seed(0x6a7e5u, (uint32_t)ue, (uint32_t)seq); }

/* Some work between two records; its length varies with UE and record. */
static volatile uint64_t fake_sink;
static void fake_work(int ue, int seq) {
  long n = 200L * ((ue * 37 + seq * 11) % 23);
  uint64_t x = (uint64_t)ue * 2654435761u + (uint64_t)seq;
  for (long i = 0; i < n; i++) x = x * 6364136223846793005u + 1442695040888963407u;
  fake_sink = x;
}

static void client(int rounds, size_t rec_size, size_t payload) {
  int me = RCCE_ue();
  record *rec = malloc(rec_size);
  if (!rec) app_die("out of memory");
  iRCCE_SEND_REQUEST req;
  for (int seq = 0; seq < rounds; seq++) {
    rec->ue = me;
    rec->seq = seq;
    app_fill(rec->payload, payload, payload_seed(me, seq));
    int rc = iRCCE_isend((char *)rec, (ssize_t)rec_size, 0, &req);
    if (rc != iRCCE_SUCCESS && rc != iRCCE_PENDING) {
      app_rc(rc, "iRCCE_isend");
      break;
    }
    fake_work(me, seq); /* overlaps the pending send */
    if (rc == iRCCE_PENDING && app_rc(iRCCE_isend_wait(&req), "iRCCE_isend_wait") != iRCCE_SUCCESS) break;
  }
  free(rec);
}

static void server(int rounds, size_t rec_size, size_t payload, int window) {
  int np = RCCE_num_ues(), nclients = np - 1;
  long total = (long)nclients * rounds, posted = 0, received = 0;
  if (window > total) window = (int)total;
  static iRCCE_RECV_REQUEST req[MAX_WINDOW];
  char *buf = malloc((size_t)(window > 0 ? window : 1) * rec_size);
  int *count = calloc((size_t)np, sizeof *count);
  if (!buf || !count) app_die("out of memory");

  /* Post the first window of receives; slot k is reposted after it is handled,
     so slots are handled round-robin, oldest first. */
  for (int k = 0; k < window; k++, posted++) {
    int rc = iRCCE_irecv(buf + (size_t)k * rec_size, (ssize_t)rec_size, iRCCE_ANY_SOURCE, &req[k]);
    if (rc != iRCCE_SUCCESS && rc != iRCCE_PENDING) app_rc(rc, "iRCCE_irecv(iRCCE_ANY_SOURCE)");
  }
  double t0 = RCCE_wtime();
  for (int k = 0; received < total; k = (k + 1) % window) {
    if (app_rc(iRCCE_irecv_wait(&req[k]), "iRCCE_irecv_wait") != iRCCE_SUCCESS) break;
    received++;
    const record *rec = (const record *)(buf + (size_t)k * rec_size);
    int src = iRCCE_get_source(&req[k]);
    if (src < 1 || src >= np) {
      app_error("record %ld: iRCCE_get_source returned %d", received, src);
    } else if (rec->ue != src) {
      app_error("record from UE %d (iRCCE_get_source) says it is from UE %d", src, (int)rec->ue);
    } else if (rec->seq != count[src]) {
      app_error("record from UE %d has seq %d, expected %d", src, (int)rec->seq, count[src]);
    } else {
      long bad = app_check(rec->payload, payload, payload_seed(src, rec->seq));
      if (bad >= 0) app_error("record %d from UE %d: payload byte %ld is wrong", (int)rec->seq, src, bad);
    }
    if (src >= 1 && src < np) count[src]++;
    if (posted < total) {
      int rc = iRCCE_irecv(buf + (size_t)k * rec_size, (ssize_t)rec_size, iRCCE_ANY_SOURCE, &req[k]);
      if (rc != iRCCE_SUCCESS && rc != iRCCE_PENDING) app_rc(rc, "iRCCE_irecv(iRCCE_ANY_SOURCE)");
      posted++;
    }
  }
  double t = RCCE_wtime() - t0;

  printf("gather_server: %d client(s) x %d records of %zu bytes, %d any-source receives posted\n", nclients, rounds,
         rec_size, window);
  for (int u = 1; u < np; u++) {
    printf("gather_server: UE %d: %d records\n", u, count[u]);
    if (count[u] != rounds) app_error("UE %d delivered %d records, expected %d", u, count[u], rounds);
  }
  printf("gather_server: %ld records in %.6f s\n", received, t);
  fflush(stdout);
  free(buf);
  free(count);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  iRCCE_init();
  app_arg args[] = {{"rounds", 20, 1, 1000000}, {"payload", 120, 0, 1L << 24}, {"window", 4, 1, MAX_WINDOW}};
  int rc = app_args(argc, argv, args, 3, NULL);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  int rounds = (int)args[0].value;
  size_t payload = (size_t)args[1].value;
  int window = (int)args[2].value;
  size_t rec_size = sizeof(record) + payload;

  if (RCCE_ue() == 0) server(rounds, rec_size, payload, window);
  else client(rounds, rec_size, payload);

  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/* The openscc libfabric provider driven directly, without an MPI library:
 * `rccerun --mpi openmpi -nue 2 ./fi_provider SCENARIO` (the rank wrapper
 * attaches each process as UE = rank; FI_PROVIDER_PATH and FI_PROVIDER come
 * from rccerun).  Built against Debian's libfabric 1.17:
 *   cc -O2 fi_provider.c -o fi_provider -lfabric -lpthread
 * Scenarios (docs/mpi-provider.md):
 *   close    fi_close of an endpoint with a message landing in its receive
 *            and with an in-place send under way: neither touches the
 *            caller's buffers afterwards, the send arrives intact
 *   cancel   fi_cancel of a multi-receive buffer while a message lands in
 *            it: the message completes, then FI_ECANCELED; fi_cancel of an
 *            unknown context: -FI_ENOENT
 *   getinfo  returned capabilities follow the hints; hints the provider
 *            cannot meet give -FI_ENODATA; a named AV is refused
 *   threads  a thread idle in fi_cq_read while the main thread works
 *            outside the provider (3 s) is not a deadlock
 *   drain    UE 1 closes its fabric with a packet UE 0 never takes: the
 *            close gives up after 5 s with one line naming UE 0
 *   oom      UE 0 cannot buffer an 800 MiB unexpected message (RLIMIT_DATA):
 *            the UE aborts with "out of memory" instead of losing it
 * Prints `fi_provider SCENARIO: OK` (UE 0); a failure prints
 * `fi_provider: UE u: WHAT` and exits 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define BIG (4u << 20)
#define FI_API FI_VERSION(1, 17)

static int me;

static void die(const char *what, long code) {
  printf("fi_provider: UE %d: %s (%ld)\n", me, what, code);
  fflush(stdout);
  exit(1);
}
#define CHECK(call)              \
  do {                           \
    long r_ = (long)(call);      \
    if (r_ != 0) die(#call, r_); \
  } while (0)

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;

struct ep {
  struct fid_ep *ep;
  struct fid_cq *cq;
};

static struct fi_info *hints_base(void) {
  struct fi_info *h = fi_allocinfo();
  h->caps = FI_MSG | FI_TAGGED | FI_MULTI_RECV;
  h->ep_attr->type = FI_EP_RDM;
  h->fabric_attr->prov_name = strdup("openscc");
  return h;
}

static void open_fabric(void) {
  struct fi_info *h = hints_base();
  CHECK(fi_getinfo(FI_API, NULL, NULL, 0, h, &info));
  fi_freeinfo(h);
  CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
  CHECK(fi_domain(fabric, info, &domain, NULL));
  struct fi_av_attr aa = {.type = FI_AV_TABLE};
  CHECK(fi_av_open(domain, &aa, &av, NULL));
}

static struct ep open_ep(void) {
  struct ep e;
  struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_TAGGED};
  CHECK(fi_cq_open(domain, &ca, &e.cq, NULL));
  CHECK(fi_endpoint(domain, info, &e.ep, NULL));
  CHECK(fi_ep_bind(e.ep, &av->fid, 0));
  CHECK(fi_ep_bind(e.ep, &e.cq->fid, FI_TRANSMIT | FI_RECV));
  CHECK(fi_enable(e.ep));
  return e;
}

static void close_ep(struct ep *e) {
  CHECK(fi_close(&e->ep->fid));
  CHECK(fi_close(&e->cq->fid));
}

static void close_fabric(void) {
  CHECK(fi_close(&av->fid));
  CHECK(fi_close(&domain->fid));
  CHECK(fi_close(&fabric->fid));
  fi_freeinfo(info);
}

/* The fi_addr of endpoint `ep` of UE `ue`: this process's own name with the
 * UE and endpoint changed ("fi_openscc://JOB:UE:EP"). */
static fi_addr_t peer(struct ep *self, int ue, int ep) {
  char name[64] = {0}, addr[48] = {0};
  size_t len = sizeof name;
  int job, u, e;
  CHECK(fi_getname(&self->ep->fid, name, &len));
  if (sscanf(name, "fi_openscc://%d:%d:%d", &job, &u, &e) != 3) die("unexpected address format", 0);
  snprintf(addr, sizeof addr, "fi_openscc://%d:%d:%d", job, ue, ep);
  fi_addr_t a;
  if (fi_av_insert(av, addr, 1, &a, 0, NULL) != 1) die("fi_av_insert", 0);
  return a;
}

/* Read one completion (spinning on -FI_EAGAIN); an error entry is returned
 * in *err with the return value -FI_EAVAIL. */
static ssize_t wait_cq(struct ep *e, struct fi_cq_tagged_entry *c, struct fi_cq_err_entry *err) {
  for (;;) {
    ssize_t r = fi_cq_read(e->cq, c, 1);
    if (r == 1) return 1;
    if (r == -FI_EAVAIL) {
      memset(err, 0, sizeof *err);
      if (fi_cq_readerr(e->cq, err, 0) != 1) die("fi_cq_readerr", 0);
      return r;
    }
    if (r != -FI_EAGAIN) die("fi_cq_read", r);
  }
}

static void wait_ok(struct ep *e, struct fi_cq_tagged_entry *c) {
  struct fi_cq_err_entry err;
  if (wait_cq(e, c, &err) != 1) die("an error completion", err.err);
}

static unsigned char *pattern(size_t n, unsigned seed) {
  unsigned char *b = malloc(n);
  for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(i * 7 + seed) | 1; /* never 0 */
  return b;
}

static void expect_all(const unsigned char *b, size_t n, unsigned char v, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != v) die(what, (long)i);
}

/* Poll e's CQ until the first byte of buf has landed; no completion may
 * come meanwhile (the message is still landing). */
static void poll_until_landing(struct ep *e, const unsigned char *buf) {
  struct fi_cq_tagged_entry c;
  while (__atomic_load_n(&buf[0], __ATOMIC_RELAXED) == 0)
    if (fi_cq_read(e->cq, &c, 1) != -FI_EAGAIN) die("the message completed before it was seen landing", 0);
}

/* ---- close ---- */
static void scenario_close(void) {
  struct ep a = open_ep(), b = open_ep(); /* endpoints 0 and 1 */
  struct fi_cq_tagged_entry c;
  char token = 0;
  if (me == 1) {
    unsigned char *big = pattern(BIG, 1);
    fi_addr_t a0 = peer(&a, 0, 0), b0 = peer(&a, 0, 1);
    CHECK(fi_tsend(a.ep, big, BIG, NULL, a0, 1, NULL));
    wait_ok(&a, &c);
    CHECK(fi_tsend(a.ep, &token, 1, NULL, b0, 2, NULL)); /* after the big one (FIFO per pair) */
    wait_ok(&a, &c);
    /* Now UE 0's in-place send, from a buffer it overwrote after closing its endpoint. */
    unsigned char *in = calloc(1, BIG);
    CHECK(fi_trecv(a.ep, in, BIG, NULL, FI_ADDR_UNSPEC, 3, 0, NULL));
    wait_ok(&a, &c);
    unsigned char *want = pattern(BIG, 2);
    if (c.len != BIG || memcmp(in, want, BIG) != 0) die("the send of a closed endpoint arrived changed", (long)c.len);
    CHECK(fi_tsend(a.ep, &token, 1, NULL, b0, 4, NULL));
    wait_ok(&a, &c);
  } else {
    unsigned char *buf = calloc(1, BIG);
    CHECK(fi_trecv(a.ep, buf, BIG, NULL, FI_ADDR_UNSPEC, 1, 0, NULL));
    poll_until_landing(&a, buf);
    close_ep(&a);
    memset(buf, 0x55, BIG);
    CHECK(fi_trecv(b.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 2, 0, NULL));
    wait_ok(&b, &c); /* the rest of the big message went through meanwhile */
    expect_all(buf, BIG, 0x55, "a message landed in the buffer of a closed endpoint at byte");
    struct ep s = open_ep();
    unsigned char *out = pattern(BIG, 2);
    CHECK(fi_tsend(s.ep, out, BIG, NULL, peer(&s, 1, 0), 3, NULL)); /* in place: it has a CQ */
    close_ep(&s);
    memset(out, 0xEE, BIG);
    CHECK(fi_trecv(b.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 4, 0, NULL));
    wait_ok(&b, &c);
  }
  if (me == 1) close_ep(&a);
  close_ep(&b);
}

/* ---- cancel ---- */
static void scenario_cancel(void) {
  struct ep e = open_ep();
  struct fi_cq_tagged_entry c;
  struct fi_cq_err_entry err;
  if (me == 1) {
    unsigned char *big = pattern(BIG, 3);
    CHECK(fi_send(e.ep, big, BIG, NULL, peer(&e, 0, 0), NULL));
    wait_ok(&e, &c);
    char token;
    CHECK(fi_recv(e.ep, &token, 1, NULL, FI_ADDR_UNSPEC, NULL)); /* UE 0 is done */
    wait_ok(&e, &c);
  } else {
    static int ctx;
    if (fi_cancel(&e.ep->fid, &ctx) != -FI_ENOENT) die("fi_cancel of nothing posted is not -FI_ENOENT", 0);
    size_t size = 2 * (size_t)BIG;
    unsigned char *buf = calloc(1, size);
    struct iovec v = {buf, size};
    struct fi_msg m = {.msg_iov = &v, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &ctx};
    CHECK(fi_recvmsg(e.ep, &m, FI_MULTI_RECV));
    poll_until_landing(&e, buf);
    CHECK(fi_cancel(&e.ep->fid, &ctx));
    if (wait_cq(&e, &c, &err) != 1) die("the cancel was reported before the landing message", err.err);
    if (c.len != BIG || c.buf != buf || (c.flags & FI_MULTI_RECV))
      die("the landing message's completion", (long)c.flags);
    unsigned char *want = pattern(BIG, 3);
    if (memcmp(buf, want, BIG) != 0) die("the landing message's bytes", 0);
    if (wait_cq(&e, &c, &err) != -FI_EAVAIL || err.err != FI_ECANCELED || err.op_context != &ctx)
      die("no FI_ECANCELED after the landing message", err.err);
    char token = 0;
    CHECK(fi_send(e.ep, &token, 1, NULL, peer(&e, 1, 0), NULL));
    wait_ok(&e, &c);
  }
  close_ep(&e);
}

/* ---- getinfo ---- */
static int getinfo_with(void (*adjust)(struct fi_info *h), struct fi_info **out) {
  struct fi_info *h = hints_base();
  adjust(h);
  int r = fi_getinfo(FI_API, NULL, NULL, 0, h, out);
  fi_freeinfo(h);
  return r;
}
static void only_tagged(struct fi_info *h) { h->caps = FI_TAGGED; }
static void no_caps(struct fi_info *h) { h->caps = 0; }
static void auto_progress(struct fi_info *h) { h->domain_attr->data_progress = FI_PROGRESS_AUTO; }
static void raw_order(struct fi_info *h) { h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_RAW; }
static void big_inject(struct fi_info *h) { h->tx_attr->inject_size = 8192; }
static void big_messages(struct fi_info *h) { h->ep_attr->max_msg_size = (size_t)2 << 30; }
static void rma(struct fi_info *h) { h->caps |= FI_RMA; }

static void scenario_getinfo(void) {
  struct fi_info *fi;
  CHECK(getinfo_with(only_tagged, &fi));
  if (!(fi->caps & FI_TAGGED) || (fi->caps & FI_MSG) || !(fi->caps & FI_SOURCE))
    die("caps for FI_TAGGED", (long)fi->caps);
  fi_freeinfo(fi);
  CHECK(getinfo_with(no_caps, &fi));
  if (!(fi->caps & FI_TAGGED) || !(fi->caps & FI_MSG) || !(fi->caps & FI_MULTI_RECV))
    die("default caps", (long)fi->caps);
  fi_freeinfo(fi);
  void (*refused[])(struct fi_info *) = {auto_progress, raw_order, big_inject, big_messages, rma};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (getinfo_with(refused[i], &fi) != -FI_ENODATA) die("hints not refused with -FI_ENODATA, number", (long)i);
  struct fid_av *named;
  struct fi_av_attr aa = {.type = FI_AV_TABLE, .name = "shared"};
  long r = fi_av_open(domain, &aa, &named, NULL);
  if (r != -FI_ENOSYS) die("a named AV is not refused with -FI_ENOSYS", r);
}

/* ---- threads ---- */
static struct ep thread_ep;
static void *wait_for_message(void *unused) {
  (void)unused;
  struct fi_cq_tagged_entry c;
  wait_ok(&thread_ep, &c);
  return NULL;
}

static void scenario_threads(void) {
  thread_ep = open_ep();
  char token = 0;
  struct fi_cq_tagged_entry c;
  if (me == 0) {
    /* A thread idles in fi_cq_read for UE 1's answer while this one works
     * (sleeps: outside the provider all the same) for 3 s, longer than the
     * launcher's 2 s deadlock window, then asks. */
    CHECK(fi_trecv(thread_ep.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 2, 0, NULL));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, wait_for_message, NULL));
    struct timespec work = {3, 0};
    nanosleep(&work, NULL);
    struct ep s = open_ep();
    CHECK(fi_tsend(s.ep, &token, 1, NULL, peer(&s, 1, 0), 1, NULL));
    wait_ok(&s, &c);
    CHECK(pthread_join(t, NULL));
    close_ep(&s);
  } else {
    CHECK(fi_trecv(thread_ep.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 1, 0, NULL));
    wait_ok(&thread_ep, &c);
    CHECK(fi_tsend(thread_ep.ep, &token, 1, NULL, peer(&thread_ep, 0, 0), 2, NULL));
    wait_ok(&thread_ep, &c);
  }
  close_ep(&thread_ep);
}

/* ---- drain ---- */
#define DRAINED "fi_provider.drained"
static void scenario_drain(void) {
  struct ep e = open_ep();
  if (me == 1) {
    unsigned char *big = pattern(BIG, 4);
    CHECK(fi_tsenddata(e.ep, big, BIG, NULL, 0, peer(&e, 0, 0), 2, NULL));
    close_ep(&e);
    close_fabric(); /* gives up after 5 s: UE 0 takes nothing */
    FILE *f = fopen(DRAINED, "w");
    if (f) fclose(f);
    return;
  }
  /* UE 0 stays in the job, never calling the provider, until UE 1 is done. */
  struct stat st;
  for (int i = 0; i < 6000 && stat(DRAINED, &st) != 0; i++) usleep(10000);
  if (stat(DRAINED, &st) != 0) die("UE 1 never finished closing its fabric", 0);
  unlink(DRAINED);
  close_ep(&e);
}

/* ---- oom ---- */
#define HUGE_PART ((size_t)100 << 20)
static void scenario_oom(void) {
  struct ep e = open_ep();
  if (me == 1) {
    /* 8 x 100 MiB, every iov the same untouched mapping (the zero page): no memory needed here. */
    void *zero = mmap(NULL, HUGE_PART, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (zero == MAP_FAILED) die("mmap", 0);
    struct iovec v[8];
    for (int i = 0; i < 8; i++) v[i] = (struct iovec){zero, HUGE_PART};
    CHECK(fi_tsendv(e.ep, v, NULL, 8, peer(&e, 0, 0), 1, NULL));
    struct fi_cq_tagged_entry c;
    wait_ok(&e, &c); /* never: UE 0 aborts */
    die("the 800 MiB message was taken", 0);
  }
  struct rlimit lim = {(rlim_t)256 << 20, (rlim_t)256 << 20};
  CHECK(setrlimit(RLIMIT_DATA, &lim));
  struct fi_cq_tagged_entry c;
  for (;;) fi_cq_read(e.cq, &c, 1); /* the header arrives: no room for its unexpected buffer */
}

int main(int argc, char **argv) {
  const char *ue = getenv("OPENSCC_UE");
  me = ue ? atoi(ue) : -1;
  if (argc != 2) die("usage: fi_provider close|cancel|getinfo|threads|drain|oom", 0);
  open_fabric();
  const char *s = argv[1];
  if (strcmp(s, "close") == 0) scenario_close();
  else if (strcmp(s, "cancel") == 0) scenario_cancel();
  else if (strcmp(s, "getinfo") == 0) scenario_getinfo();
  else if (strcmp(s, "threads") == 0) scenario_threads();
  else if (strcmp(s, "drain") == 0) scenario_drain();
  else if (strcmp(s, "oom") == 0) scenario_oom();
  else die("unknown scenario", 0);
  if (strcmp(s, "drain") != 0 || me == 0) close_fabric();
  if (me == 0) printf("fi_provider %s: OK\n", s);
  return 0;
}

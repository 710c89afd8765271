/* The openscc libfabric provider driven directly, without an MPI library:
 * `rccerun --mpi openmpi -nue 2 ./fi_provider SCENARIO` (the rank wrapper
 * attaches each process as UE = rank; FI_PROVIDER_PATH and FI_PROVIDER come
 * from rccerun).  Built against Debian's libfabric 1.17:
 *   cc -O2 fi_provider.c -o fi_provider -lfabric -lpthread
 * Scenarios (docs/mpi-provider.md):
 *   close    fi_close of an endpoint with a message landing in its receive
 *            and with an in-place send under way: neither touches the
 *            caller's buffers afterwards, the send arrives intact
 *   withdraw fi_close of an endpoint whose 4 MiB single copy the receiver
 *            has not claimed yet (it stays out of the provider until the
 *            close): the copy is withdrawn, the payload follows in rounds
 *            intact although the caller overwrote its buffer
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
 *   rma      fi_write/fi_read of 0 B..1 MiB (read after write, unwaited),
 *            fi_writemsg/fi_readmsg over 3 local and 2 remote pieces,
 *            fi_inject_write with the write counter, to the peer and to the
 *            UE itself; the last completed write is in the target's memory
 *            (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)
 *   atomic   every datatype x operation of fi_atomic, fi_fetch_atomic and
 *            fi_compare_atomic: the valid ones (queries = the documented
 *            table) against a sequential reference, the others refused
 *   owner-finishes, owner-exits  (3 UEs, --mpi-channel sccmpich) UE 1's
 *            64 KiB send to UE 0 is granted UE 0's rendezvous buffer, then
 *            UE 1 closes its fabric (giving up after 5 s: UE 0 takes
 *            nothing meanwhile) or exits without closing it; UE 2's 64 KiB
 *            to UE 0, sent after that, still arrives intact
 *   rma-errors  unknown key, out of range, read-only region: error
 *            completions (FI_EINVAL, FI_EACCES) and counter errors (the
 *            read-only region serves reads and atomic reads); a
 *            refused inject only counted; what is refused at the call
 *            (lengths that wrap around; mr_mode 0: the caller's keys)
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
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#define BIG (4u << 20)
/* A message that lands in several rounds through the MPB whatever the job's
 * options: below the channel's single-copy threshold (32 KiB,
 * docs/mpi-channel.md "Single copy"), whose payload lands whole inside one
 * provider call, and above one round's 4 KiB of gEWS chunks. */
#define LANDING (16u << 10)
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

/* What open_fabric asks for: the one-sided scenarios add FI_RMA | FI_ATOMIC
 * and a registration mode. */
static uint64_t extra_caps, mr_mode;

static struct fi_info *hints_base(void) {
  struct fi_info *h = fi_allocinfo();
  h->caps = FI_MSG | FI_TAGGED | FI_MULTI_RECV | extra_caps;
  h->domain_attr->mr_mode = (int)mr_mode;
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
 * come meanwhile (the message, LANDING bytes, is still landing: each call
 * takes at most one round from a sender). */
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
    unsigned char *landing = pattern(LANDING, 1);
    fi_addr_t a0 = peer(&a, 0, 0), b0 = peer(&a, 0, 1);
    CHECK(fi_tsend(a.ep, landing, LANDING, NULL, a0, 1, NULL));
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
    unsigned char *buf = calloc(1, LANDING);
    CHECK(fi_trecv(a.ep, buf, LANDING, NULL, FI_ADDR_UNSPEC, 1, 0, NULL));
    poll_until_landing(&a, buf);
    close_ep(&a);
    memset(buf, 0x55, LANDING);
    CHECK(fi_trecv(b.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 2, 0, NULL));
    wait_ok(&b, &c); /* the rest of the big message went through meanwhile */
    expect_all(buf, LANDING, 0x55, "a message landed in the buffer of a closed endpoint at byte");
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

/* ---- withdraw ---- */
/* Files in the working directory that order the two UEs without the
 * provider: UE 1 stays out of it from READY until WITHDRAWN, which UE 0
 * creates once its endpoint closed, so UE 1 cannot claim the copy first. */
#define READY_FLAG "fi_provider-ready"
#define WITHDRAWN_FLAG "fi_provider-withdrawn"

static void flag_raise(const char *name) {
  FILE *f = fopen(name, "w");
  if (!f) die("cannot create a flag file in the working directory", 0);
  fclose(f);
}

static void flag_wait(const char *name) {
  while (access(name, F_OK) != 0) usleep(1000);
  unlink(name);
}

static void scenario_withdraw(void) {
  struct ep e = open_ep();
  struct fi_cq_tagged_entry c;
  char token = 0;
  if (me == 1) {
    unlink(WITHDRAWN_FLAG);
    flag_raise(READY_FLAG);    /* no provider call from here ... */
    flag_wait(WITHDRAWN_FLAG); /* ... to here */
    unsigned char *in = calloc(1, BIG), *want = pattern(BIG, 3);
    CHECK(fi_trecv(e.ep, in, BIG, NULL, FI_ADDR_UNSPEC, 2, 0, NULL));
    wait_ok(&e, &c);
    if (c.len != BIG || memcmp(in, want, BIG) != 0) die("the withdrawn send arrived changed", (long)c.len);
    CHECK(fi_tsend(e.ep, &token, 1, NULL, peer(&e, 0, 0), 3, NULL));
    wait_ok(&e, &c);
  } else {
    flag_wait(READY_FLAG);
    /* The rendezvous goes into the MPB at once; closing takes the buffer back
     * before UE 1 can claim it, so the payload follows in rounds. */
    struct ep s = open_ep();
    unsigned char *out = pattern(BIG, 3);
    CHECK(fi_tsend(s.ep, out, BIG, NULL, peer(&s, 1, 0), 2, NULL)); /* in place: it has a CQ */
    close_ep(&s);
    memset(out, 0xEE, BIG);
    flag_raise(WITHDRAWN_FLAG);
    CHECK(fi_trecv(e.ep, &token, 1, NULL, FI_ADDR_UNSPEC, 3, 0, NULL));
    wait_ok(&e, &c); /* UE 1 has the payload */
  }
  close_ep(&e);
}

/* ---- cancel ---- */
static void scenario_cancel(void) {
  struct ep e = open_ep();
  struct fi_cq_tagged_entry c;
  struct fi_cq_err_entry err;
  if (me == 1) {
    unsigned char *landing = pattern(LANDING, 3);
    CHECK(fi_send(e.ep, landing, LANDING, NULL, peer(&e, 0, 0), NULL));
    wait_ok(&e, &c);
    char token;
    CHECK(fi_recv(e.ep, &token, 1, NULL, FI_ADDR_UNSPEC, NULL)); /* UE 0 is done */
    wait_ok(&e, &c);
  } else {
    static int ctx;
    if (fi_cancel(&e.ep->fid, &ctx) != -FI_ENOENT) die("fi_cancel of nothing posted is not -FI_ENOENT", 0);
    size_t size = 2 * (size_t)LANDING;
    unsigned char *buf = calloc(1, size);
    struct iovec v = {buf, size};
    struct fi_msg m = {.msg_iov = &v, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &ctx};
    CHECK(fi_recvmsg(e.ep, &m, FI_MULTI_RECV));
    poll_until_landing(&e, buf);
    CHECK(fi_cancel(&e.ep->fid, &ctx));
    if (wait_cq(&e, &c, &err) != 1) die("the cancel was reported before the landing message", err.err);
    if (c.len != LANDING || c.buf != buf || (c.flags & FI_MULTI_RECV))
      die("the landing message's completion", (long)c.flags);
    unsigned char *want = pattern(LANDING, 3);
    if (memcmp(buf, want, LANDING) != 0) die("the landing message's bytes", 0);
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
static void strict_completions(struct fi_info *h) { h->tx_attr->comp_order = FI_ORDER_STRICT; }
static void big_inject(struct fi_info *h) { h->tx_attr->inject_size = 8192; }
static void big_messages(struct fi_info *h) { h->ep_attr->max_msg_size = (size_t)2 << 30; }
static void rma_events(struct fi_info *h) { h->caps |= FI_RMA | FI_RMA_EVENT; }
static void rma_ordered(struct fi_info *h) {
  h->caps |= FI_RMA | FI_ATOMIC;
  h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_RAW | FI_ORDER_WAR | FI_ORDER_WAW | FI_ORDER_RAR;
  h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_LOCAL;
}

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
  /* FI_RMA and FI_ATOMIC with the orders MPICH asks for; the registration
   * mode the hints allow, less FI_MR_LOCAL (not needed). */
  CHECK(getinfo_with(rma_ordered, &fi));
  if ((fi->caps & (FI_RMA | FI_ATOMIC)) != (FI_RMA | FI_ATOMIC)) die("caps for FI_RMA | FI_ATOMIC", (long)fi->caps);
  if (fi->domain_attr->mr_mode != (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED) ||
      fi->tx_attr->rma_iov_limit != 8)
    die("mr_mode for FI_RMA", fi->domain_attr->mr_mode);
  fi_freeinfo(fi);
  void (*refused[])(struct fi_info *) = {auto_progress, strict_completions, big_inject, big_messages, rma_events};
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

/* ---- one-sided: shared ---- */
#define REGION (2u << 20)
#define DONE_TAG 99

/* An endpoint for one-sided operations: its CQ and write and read counters. */
struct rma_ep {
  struct ep e;
  struct fid_cntr *wc, *rc;
};

static struct rma_ep open_rma_ep(void) {
  struct rma_ep r = {.e = open_ep()};
  struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
  CHECK(fi_cntr_open(domain, &ca, &r.wc, NULL));
  CHECK(fi_cntr_open(domain, &ca, &r.rc, NULL));
  CHECK(fi_ep_bind(r.e.ep, &r.wc->fid, FI_WRITE));
  CHECK(fi_ep_bind(r.e.ep, &r.rc->fid, FI_READ));
  return r;
}

static void close_rma_ep(struct rma_ep *r) {
  close_ep(&r->e);
  CHECK(fi_close(&r->wc->fid));
  CHECK(fi_close(&r->rc->fid));
}

static struct fid_mr *register_region(void *buf, size_t len, uint64_t access, uint64_t key) {
  struct fid_mr *mr;
  CHECK(fi_mr_reg(domain, buf, len, access, 0, key, 0, &mr, NULL));
  return mr;
}

/* One tagged token each way: the sender's 16 bytes (a key and an address) to the other UE. */
static void token_send(struct ep *e, fi_addr_t to, uint64_t tag, uint64_t a, uint64_t b) {
  uint64_t v[2] = {a, b};
  struct fi_cq_tagged_entry c;
  CHECK(fi_tsend(e->ep, v, sizeof v, NULL, to, tag, NULL));
  wait_ok(e, &c);
}
static void token_recv(struct ep *e, uint64_t tag, uint64_t *a, uint64_t *b) {
  uint64_t v[2];
  struct fi_cq_tagged_entry c;
  CHECK(fi_trecv(e->ep, v, sizeof v, NULL, FI_ADDR_UNSPEC, tag, 0, NULL));
  wait_ok(e, &c); /* the target's progress serves the peer's operations meanwhile */
  if (a) *a = v[0];
  if (b) *b = v[1];
}

/* Wait for the operation with context ctx; it must complete with these flags. */
static void rma_wait_ok(struct ep *e, void *ctx, uint64_t flags, const char *what) {
  struct fi_cq_tagged_entry c;
  struct fi_cq_err_entry err;
  if (wait_cq(e, &c, &err) != 1) die(what, err.err);
  if (c.op_context != ctx || c.flags != flags) die(what, (long)c.flags);
}

/* Wait for the error completion of the operation with context ctx. */
static void rma_wait_error(struct ep *e, void *ctx, uint64_t flags, int want, const char *what) {
  struct fi_cq_tagged_entry c;
  struct fi_cq_err_entry err;
  if (wait_cq(e, &c, &err) != -FI_EAVAIL) die(what, 0);
  if (err.err != want || err.prov_errno != want || err.op_context != ctx || err.flags != flags) die(what, err.err);
}

/* ---- rma: reads and writes of 0 B..1 MiB, iovs, inject, order, to the peer and to itself ---- */
static void rma_round_trip(struct rma_ep *r, fi_addr_t to, uint64_t addr, uint64_t key, size_t n) {
  unsigned char *out = pattern(n, (unsigned)n), *in = calloc(1, n + 1);
  int wctx, rctx;
  CHECK(fi_write(r->e.ep, out, n, NULL, to, addr, key, &wctx));
  CHECK(fi_read(r->e.ep, in, n, NULL, to, addr, key, &rctx)); /* read after write: in order (FI_ORDER_RAW) */
  rma_wait_ok(&r->e, &wctx, FI_RMA | FI_WRITE, "fi_write completion");
  rma_wait_ok(&r->e, &rctx, FI_RMA | FI_READ, "fi_read completion");
  if (memcmp(in, out, n) != 0) die("fi_read got other bytes than fi_write wrote, size", (long)n);
  free(out);
  free(in);
}

static void rma_vectors(struct rma_ep *r, fi_addr_t to, uint64_t base, uint64_t key) {
  /* 3 local pieces (100 + 5000 + 1 bytes) to 2 remote ones (4000 at 0, 1101 at 10000), and back into 2 pieces. */
  unsigned char *out = pattern(5101, 11), *in = calloc(1, 5101);
  struct iovec wv[3] = {{out, 100}, {out + 100, 5000}, {out + 5100, 1}}, rv[2] = {{in, 2000}, {in + 2000, 3101}};
  struct fi_rma_iov remote[2] = {{base, 4000, key}, {base + 10000, 1101, key}};
  int wctx, rctx;
  struct fi_msg_rma w = {
      .msg_iov = wv, .iov_count = 3, .addr = to, .rma_iov = remote, .rma_iov_count = 2, .context = &wctx};
  struct fi_msg_rma rd = {
      .msg_iov = rv, .iov_count = 2, .addr = to, .rma_iov = remote, .rma_iov_count = 2, .context = &rctx};
  CHECK(fi_writemsg(r->e.ep, &w, FI_COMPLETION));
  rma_wait_ok(&r->e, &wctx, FI_RMA | FI_WRITE, "fi_writemsg completion");
  CHECK(fi_readmsg(r->e.ep, &rd, FI_COMPLETION));
  rma_wait_ok(&r->e, &rctx, FI_RMA | FI_READ, "fi_readmsg completion");
  if (memcmp(in, out, 5101) != 0) die("fi_readmsg of 2 remote pieces differs", 0);
  /* fi_inject_write: no CQ entry, the write counter counts it. */
  uint64_t before = fi_cntr_read(r->wc);
  CHECK(fi_inject_write(r->e.ep, out, 64, to, base + 20000, key));
  CHECK(fi_cntr_wait(r->wc, before + 1, -1));
  CHECK(fi_read(r->e.ep, in, 64, NULL, to, base + 20000, key, &rctx));
  rma_wait_ok(&r->e, &rctx, FI_RMA | FI_READ, "fi_read after fi_inject_write");
  if (memcmp(in, out, 64) != 0) die("fi_inject_write's bytes", 0);
  free(out);
  free(in);
}

static void scenario_rma(void) {
  struct rma_ep r = open_rma_ep();
  unsigned char *mem = calloc(1, REGION);
  struct fid_mr *mr = register_region(mem, REGION, FI_REMOTE_READ | FI_REMOTE_WRITE, 0);
  /* FI_MR_VIRT_ADDR | FI_MR_PROV_KEY: the provider's key, addressed by virtual address. */
  fi_addr_t other = peer(&r.e, 1 - me, 0), self = peer(&r.e, me, 0);
  token_send(&r.e, other, 1, fi_mr_key(mr), (uint64_t)(uintptr_t)mem);
  uint64_t key, base;
  token_recv(&r.e, 1, &key, &base);
  if (me == 0) {
    static const size_t sizes[] = {0, 1, 7, 64, 4095, 4096, 4097, 65536, 1u << 20};
    size_t nsizes = sizeof sizes / sizeof *sizes;
    for (size_t i = 0; i < nsizes; i++) rma_round_trip(&r, other, base + 3, key, sizes[i]);
    if (fi_cntr_read(r.wc) != nsizes || fi_cntr_read(r.rc) != nsizes || fi_cntr_readerr(r.wc) || fi_cntr_readerr(r.rc))
      die("the write and read counters", (long)fi_cntr_read(r.wc));
    rma_vectors(&r, other, base, key);
    /* To itself: the same operations, without the MPB. */
    rma_round_trip(&r, self, (uint64_t)(uintptr_t)mem + 5, fi_mr_key(mr), 4096);
    unsigned char *want = pattern(4096, 4096);
    if (memcmp(mem + 5, want, 4096) != 0) die("a write to the UE itself did not land", 0);
    /* Last: 1 MiB at the start of UE 1's region, which UE 1 then checks in its own memory. */
    unsigned char *last = pattern(1u << 20, 9);
    int ctx;
    CHECK(fi_write(r.e.ep, last, 1u << 20, NULL, other, base, key, &ctx));
    rma_wait_ok(&r.e, &ctx, FI_RMA | FI_WRITE, "the last fi_write");
    token_send(&r.e, other, DONE_TAG, 0, 0); /* delivery complete: the bytes are in UE 1's memory */
    token_recv(&r.e, DONE_TAG, NULL, NULL);
  } else {
    token_recv(&r.e, DONE_TAG, NULL, NULL);
    unsigned char *want = pattern(1u << 20, 9);
    if (memcmp(mem, want, 1u << 20) != 0) die("UE 0's completed fi_write is not in the target's memory", 0);
    token_send(&r.e, other, DONE_TAG, 0, 0);
  }
  CHECK(fi_close(&mr->fid));
  close_rma_ep(&r);
}

/* ---- atomic: every datatype x operation x class against a sequential reference ---- */
#define N_ELEM 4
enum { PLAIN, FETCH, COMPARE };
static const char *const class_name[] = {"fi_atomic", "fi_fetch_atomic", "fi_compare_atomic"};

/* The documented table (docs/mpi-provider.md): which operations each kind
 * of datatype offers, in every class. */
static int type_takes(enum fi_datatype dt, enum fi_op op) {
  int integer = dt <= FI_UINT64,
      complex_ = dt == FI_FLOAT_COMPLEX || dt == FI_DOUBLE_COMPLEX || dt == FI_LONG_DOUBLE_COMPLEX;
  int bits = (op >= FI_LOR && op <= FI_BXOR) || op == FI_MSWAP;
  int ordered = op == FI_MIN || op == FI_MAX || (op >= FI_CSWAP_LE && op <= FI_CSWAP_GT);
  if (integer) return 1;
  if (complex_) return !bits && !ordered;
  return !bits;
}

/* Per datatype: its size, element k's initial value, operand, compare value (as in
 * docs: the compare values are equal to, below, equal to and above the old ones),
 * and the reference result of one operation on one element. */
/* One type per line; clang-format 14 reflows this list differently on every pass. */
// clang-format off
#define REF_TYPES(X)                                     \
  X(FI_INT8, int8_t, INT)                                \
  X(FI_UINT8, uint8_t, INT)                              \
  X(FI_INT16, int16_t, INT)                              \
  X(FI_UINT16, uint16_t, INT)                            \
  X(FI_INT32, int32_t, INT)                              \
  X(FI_UINT32, uint32_t, INT)                            \
  X(FI_INT64, int64_t, INT)                              \
  X(FI_UINT64, uint64_t, INT)                            \
  X(FI_FLOAT, float, REAL)                               \
  X(FI_DOUBLE, double, REAL)                             \
  X(FI_LONG_DOUBLE, long double, REAL)                   \
  X(FI_FLOAT_COMPLEX, float _Complex, CPLX)              \
  X(FI_DOUBLE_COMPLEX, double _Complex, CPLX)            \
  X(FI_LONG_DOUBLE_COMPLEX, long double _Complex, CPLX)
// clang-format on
#define VALUE_INT(T, v) ((T)(v))
#define VALUE_REAL(T, v) ((T)(v))
#define VALUE_CPLX(T, v) ((T)(v) + (T)1.0i)
#define REF_BITS_INT                         \
  case FI_LOR: return (o != 0) || (v != 0);  \
  case FI_LAND: return (o != 0) && (v != 0); \
  case FI_LXOR: return (o != 0) != (v != 0); \
  case FI_BOR: return o | v;                 \
  case FI_BAND: return o & v;                \
  case FI_BXOR: return o ^ v;                \
  case FI_MSWAP:                             \
    return (v & c) | (o & ~c);
#define REF_BITS_REAL
#define REF_BITS_CPLX
#define REF_ORDER_INT                      \
  case FI_MIN: return o < v ? o : v;       \
  case FI_MAX: return o > v ? o : v;       \
  case FI_CSWAP_LE: return c <= o ? v : o; \
  case FI_CSWAP_LT: return c < o ? v : o;  \
  case FI_CSWAP_GE: return c >= o ? v : o; \
  case FI_CSWAP_GT:                        \
    return c > o ? v : o;
#define REF_ORDER_REAL REF_ORDER_INT
#define REF_ORDER_CPLX
#define DEFINE_REF(dt, T, kind)                                                                           \
  static T ref_##dt(enum fi_op op, T o, T v, T c) {                                                       \
    switch (op) {                                                                                         \
      case FI_SUM: return o + v;                                                                          \
      case FI_PROD: return o * v;                                                                         \
      case FI_ATOMIC_READ: return o;                                                                      \
      case FI_ATOMIC_WRITE: return v;                                                                     \
      case FI_CSWAP: return c == o ? v : o;                                                               \
      case FI_CSWAP_NE:                                                                                   \
        return c != o ? v : o;                                                                            \
        REF_ORDER_##kind REF_BITS_##kind default : die("no reference for operation", op);                 \
    }                                                                                                     \
    return o;                                                                                             \
  }                                                                                                       \
  static void fill_##dt(unsigned char *init, unsigned char *operand, unsigned char *compare) {            \
    static const int compares[N_ELEM] = {1, 1, 3, 5};                                                     \
    for (int k = 0; k < N_ELEM; k++) {                                                                    \
      T i = VALUE_##kind(T, k + 1), v = VALUE_##kind(T, 2), c = VALUE_##kind(T, compares[k]);             \
      memcpy(init + k * sizeof(T), &i, sizeof(T));                                                        \
      memcpy(operand + k * sizeof(T), &v, sizeof(T));                                                     \
      memcpy(compare + k * sizeof(T), &c, sizeof(T));                                                     \
    }                                                                                                     \
  }                                                                                                       \
  /* Whether got (after) and fetched hold the reference results of op. */                                 \
  static int check_##dt(enum fi_op op, int cls, const unsigned char *got, const unsigned char *fetched) { \
    unsigned char init[N_ELEM * sizeof(T)], operand[sizeof init], compare[sizeof init];                   \
    fill_##dt(init, operand, compare);                                                                    \
    for (int k = 0; k < N_ELEM; k++) {                                                                    \
      T o, v, c, g, f;                                                                                    \
      memcpy(&o, init + k * sizeof(T), sizeof(T));                                                        \
      memcpy(&v, operand + k * sizeof(T), sizeof(T));                                                     \
      memcpy(&c, compare + k * sizeof(T), sizeof(T));                                                     \
      memcpy(&g, got + k * sizeof(T), sizeof(T));                                                         \
      memcpy(&f, fetched + k * sizeof(T), sizeof(T));                                                     \
      if (cls != COMPARE) c = 0; /* no compare values: the compare-and-swaps compare with zero */         \
      if (g != ref_##dt(op, o, v, c) || (cls != PLAIN && f != o)) return 0;                               \
    }                                                                                                     \
    return 1;                                                                                             \
  }
REF_TYPES(DEFINE_REF)

static size_t type_size(enum fi_datatype dt) {
#define SIZE_OF(dt_, T, kind) \
  case dt_: return sizeof(T);
  switch (dt) { REF_TYPES(SIZE_OF) default : return 0; }
}
static void type_fill(enum fi_datatype dt, unsigned char *i, unsigned char *v, unsigned char *c) {
#define FILL(dt_, T, kind) \
  case dt_: fill_##dt_(i, v, c); break;
  switch (dt) { REF_TYPES(FILL) default : break; }
}
static int type_check(enum fi_datatype dt, enum fi_op op, int cls, const unsigned char *got, const unsigned char *f) {
#define CHECK_REF(dt_, T, kind) \
  case dt_: return check_##dt_(op, cls, got, f);
  switch (dt) { REF_TYPES(CHECK_REF) default : return 0; }
}

static int atomic_valid(struct ep *e, int cls, enum fi_datatype dt, enum fi_op op, size_t *count) {
  if (cls == PLAIN) return fi_atomicvalid(e->ep, dt, op, count);
  if (cls == FETCH) return fi_fetch_atomicvalid(e->ep, dt, op, count);
  return fi_compare_atomicvalid(e->ep, dt, op, count);
}

static long atomic_call(struct ep *e, int cls, enum fi_datatype dt, enum fi_op op, const unsigned char *operand,
                        const unsigned char *compare, unsigned char *result, fi_addr_t to, uint64_t key, void *ctx) {
  if (cls == PLAIN) return fi_atomic(e->ep, operand, N_ELEM, NULL, to, 0, key, dt, op, ctx);
  if (cls == FETCH) return fi_fetch_atomic(e->ep, operand, N_ELEM, NULL, result, NULL, to, 0, key, dt, op, ctx);
  return fi_compare_atomic(e->ep, operand, N_ELEM, NULL, compare, NULL, result, NULL, to, 0, key, dt, op, ctx);
}

/* One valid combination: set the target, apply, read back, compare. */
static void atomic_one(struct rma_ep *r, int cls, enum fi_datatype dt, enum fi_op op, fi_addr_t to, uint64_t key) {
  size_t size = type_size(dt);
  unsigned char init[N_ELEM * 32], operand[N_ELEM * 32], compare[N_ELEM * 32], fetched[N_ELEM * 32], got[N_ELEM * 32];
  type_fill(dt, init, operand, compare);
  memset(fetched, 0, sizeof fetched);
  int ctx;
  CHECK(fi_write(r->e.ep, init, N_ELEM * size, NULL, to, 0, key, &ctx));
  rma_wait_ok(&r->e, &ctx, FI_RMA | FI_WRITE, "setting an atomic's target");
  CHECK(atomic_call(&r->e, cls, dt, op, operand, compare, fetched, to, key, &ctx));
  rma_wait_ok(&r->e, &ctx, FI_ATOMIC | (cls == PLAIN ? FI_WRITE : FI_READ), "an atomic's completion");
  CHECK(fi_read(r->e.ep, got, N_ELEM * size, NULL, to, 0, key, &ctx));
  rma_wait_ok(&r->e, &ctx, FI_RMA | FI_READ, "reading an atomic's target");
  if (!type_check(dt, op, cls, got, fetched)) {
    printf("fi_provider: UE 0: %s of datatype %d, operation %d: not the reference result\n", class_name[cls], dt, op);
    exit(1);
  }
}

static void scenario_atomic(void) {
  struct rma_ep r = open_rma_ep();
  unsigned char mem[N_ELEM * 32];
  /* mr_mode 0: the caller's key, addressed from the region's start. */
  struct fid_mr *mr = register_region(mem, sizeof mem, FI_REMOTE_READ | FI_REMOTE_WRITE, 7);
  fi_addr_t other = peer(&r.e, 1 - me, 0);
  token_send(&r.e, other, 1, 0, 0); /* registered */
  token_recv(&r.e, 1, NULL, NULL);
  if (me == 0) {
    int checked = 0;
    for (int cls = PLAIN; cls <= COMPARE; cls++)
      for (enum fi_datatype dt = FI_INT8; dt <= FI_LONG_DOUBLE_COMPLEX; dt++)
        for (enum fi_op op = FI_MIN; op <= FI_MSWAP; op++) {
          size_t count = 0;
          int valid = atomic_valid(&r.e, cls, dt, op, &count) == 0;
          struct fi_atomic_attr attr = {0};
          uint64_t qflags = cls == FETCH ? FI_FETCH_ATOMIC : cls == COMPARE ? FI_COMPARE_ATOMIC : 0;
          int queried = fi_query_atomic(domain, dt, op, &attr, qflags) == 0;
          if (valid != type_takes(dt, op) || queried != valid ||
              (valid && (count < N_ELEM || attr.size != type_size(dt)))) {
            printf("fi_provider: UE 0: %s of datatype %d, operation %d: valid %d, queried %d, documented %d\n",
                   class_name[cls], dt, op, valid, queried, type_takes(dt, op));
            exit(1);
          }
          if (!valid) {
            unsigned char buf[N_ELEM * 32] = {0};
            if (atomic_call(&r.e, cls, dt, op, buf, buf, buf, other, 7, NULL) != -FI_EOPNOTSUPP)
              die("an operation the queries refuse was not refused with -FI_EOPNOTSUPP", op);
            continue;
          }
          atomic_one(&r, cls, dt, op, other, 7);
          checked++;
        }
    printf("fi_provider atomic: %d combinations checked\n", checked);
    token_send(&r.e, other, DONE_TAG, 0, 0);
  } else {
    token_recv(&r.e, DONE_TAG, NULL, NULL);
  }
  CHECK(fi_close(&mr->fid));
  close_rma_ep(&r);
}

/* ---- rma-errors: what the target refuses comes back as an error completion ---- */
static void scenario_rma_errors(void) {
  struct rma_ep r = open_rma_ep();
  unsigned char mem[4096];
  /* The read-only region is a page the process itself may only read: a
   * store of the target's progress there (an atomic read that wrote the
   * value back) would crash it. */
  unsigned char *readonly = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (readonly == MAP_FAILED) die("mmap", 0);
  memset(readonly, 0x5A, 64);
  if (mprotect(readonly, 4096, PROT_READ) != 0) die("mprotect", 0);
  /* mr_mode 0: keys 100 (read-write) and 200 (read only). */
  struct fid_mr *mr = register_region(mem, sizeof mem, FI_REMOTE_READ | FI_REMOTE_WRITE, 100);
  struct fid_mr *ro = register_region(readonly, 64, FI_REMOTE_READ, 200);
  struct fid_mr *dup;
  if (fi_mr_reg(domain, mem, 16, FI_REMOTE_READ, 0, 100, 0, &dup, NULL) != -FI_ENOKEY)
    die("a second registration with key 100 was not refused with -FI_ENOKEY", 0);
  struct iovec two[2] = {{mem, 16}, {mem + 32, 16}};
  if (fi_mr_regv(domain, two, 2, FI_REMOTE_READ, 0, 300, 0, &dup, NULL) != -FI_EINVAL)
    die("a registration of 2 iovs was not refused with -FI_EINVAL", 0);
  fi_addr_t other = peer(&r.e, 1 - me, 0);
  token_send(&r.e, other, 1, 0, 0);
  token_recv(&r.e, 1, NULL, NULL);
  if (me == 0) {
    unsigned char buf[8192] = {0};
    int ctx;
    CHECK(fi_write(r.e.ep, buf, 16, NULL, other, 0, 999, &ctx));
    rma_wait_error(&r.e, &ctx, FI_RMA | FI_WRITE, FI_EINVAL, "fi_write with an unknown key: no FI_EINVAL");
    CHECK(fi_write(r.e.ep, buf, 16, NULL, other, 4090, 100, &ctx));
    rma_wait_error(&r.e, &ctx, FI_RMA | FI_WRITE, FI_EACCES, "fi_write across the region's end: no FI_EACCES");
    CHECK(fi_read(r.e.ep, buf, 1, NULL, other, 5000, 100, &ctx));
    rma_wait_error(&r.e, &ctx, FI_RMA | FI_READ, FI_EACCES, "fi_read beyond the region: no FI_EACCES");
    CHECK(fi_write(r.e.ep, buf, 8, NULL, other, 0, 200, &ctx));
    rma_wait_error(&r.e, &ctx, FI_RMA | FI_WRITE, FI_EACCES, "fi_write to a read-only region: no FI_EACCES");
    uint64_t one = 1, old;
    CHECK(fi_fetch_atomic(r.e.ep, &one, 1, NULL, &old, NULL, other, 0, 999, FI_UINT64, FI_SUM, &ctx));
    rma_wait_error(&r.e, &ctx, FI_ATOMIC | FI_READ, FI_EINVAL, "fi_fetch_atomic with an unknown key: no FI_EINVAL");
    if (fi_cntr_readerr(r.wc) != 3 || fi_cntr_readerr(r.rc) != 2 || fi_cntr_read(r.wc) || fi_cntr_read(r.rc))
      die("the counters' errors", (long)fi_cntr_readerr(r.wc));
    /* Refused at the call. */
    float f = 1;
    if (fi_atomic(r.e.ep, &f, 1, NULL, other, 0, 100, FI_FLOAT, FI_BOR, &ctx) != -FI_EOPNOTSUPP)
      die("FI_BOR on FI_FLOAT was not refused with -FI_EOPNOTSUPP", 0);
    if (fi_inject_write(r.e.ep, buf, 8192, other, 0, 100) != -FI_EMSGSIZE)
      die("an 8 KiB fi_inject_write was not refused with -FI_EMSGSIZE", 0);
    struct iovec v = {buf, 10};
    struct fi_rma_iov rv = {0, 20, 100};
    struct fi_msg_rma m = {.msg_iov = &v, .iov_count = 1, .addr = other, .rma_iov = &rv, .rma_iov_count = 1};
    if (fi_readmsg(r.e.ep, &m, 0) != -FI_EINVAL)
      die("fi_readmsg of 10 bytes from 20 was not refused with -FI_EINVAL", 0);
    struct fi_rma_iov wrapping[2] = {{0, UINT64_MAX - 15, 100}, {0, 16, 100}}; /* lengths summing to 0 */
    struct fi_msg_rma w = {.addr = other, .rma_iov = wrapping, .rma_iov_count = 2};
    if (fi_writemsg(r.e.ep, &w, 0) != -FI_EMSGSIZE)
      die("fi_writemsg of remote lengths that wrap around was not refused with -FI_EMSGSIZE", 0);
    if (fi_writedata(r.e.ep, buf, 8, NULL, 1, other, 0, 100, &ctx) != -FI_EOPNOTSUPP)
      die("fi_writedata was not refused with -FI_EOPNOTSUPP", 0);
    /* The read-only region reads, and the endpoint still works. */
    CHECK(fi_read(r.e.ep, buf, 64, NULL, other, 0, 200, &ctx));
    rma_wait_ok(&r.e, &ctx, FI_RMA | FI_READ, "fi_read of the read-only region");
    expect_all(buf, 64, 0x5A, "the read-only region's byte");
    /* Atomic reads need FI_REMOTE_READ only (fi_atomic(3)), and store nothing. */
    uint64_t fetched = 0;
    CHECK(fi_fetch_atomic(r.e.ep, NULL, 1, NULL, &fetched, NULL, other, 8, 200, FI_UINT64, FI_ATOMIC_READ, &ctx));
    rma_wait_ok(&r.e, &ctx, FI_ATOMIC | FI_READ, "fi_fetch_atomic FI_ATOMIC_READ of the read-only region");
    if (fetched != 0x5A5A5A5A5A5A5A5Aull) die("the read-only region's atomic read", (long)fetched);
    CHECK(fi_atomic(r.e.ep, NULL, 1, NULL, other, 16, 200, FI_UINT64, FI_ATOMIC_READ, &ctx));
    rma_wait_ok(&r.e, &ctx, FI_ATOMIC | FI_WRITE, "fi_atomic FI_ATOMIC_READ of the read-only region");
    /* A refused inject call is counted, never reported in the CQ (it has no context, fi_msg(3)). */
    CHECK(fi_inject_write(r.e.ep, buf, 8, other, 0, 999));
    while (fi_cntr_readerr(r.wc) != 4) {
      struct fi_cq_tagged_entry c;
      ssize_t n = fi_cq_read(r.e.cq, &c, 1);
      if (n != -FI_EAGAIN) die("a refused fi_inject_write wrote a completion", (long)n);
    }
    token_send(&r.e, other, DONE_TAG, 0, 0);
  } else {
    token_recv(&r.e, DONE_TAG, NULL, NULL);
  }
  if (fi_close(&domain->fid) != -FI_EBUSY) die("the domain closed under its registrations and endpoint", 0);
  CHECK(fi_close(&ro->fid));
  CHECK(fi_close(&mr->fid));
  munmap(readonly, 4096);
  close_rma_ep(&r);
}

/* ---- owner-finishes, owner-exits ---- */
#define OWNER_GONE "fi_provider.owner-gone"
#define RNDV (64u << 10) /* a rendezvous on the sccmpich channel (3 UEs: beyond a 1372-byte eager round) */
enum { OWNER_TAG = 1, WAITER_TAG = 2, GRANTED_TAG = 3 };

/* Whether a tagged message with `tag` has arrived (its header at least): FI_PEEK. */
static int peek_tag(struct ep *e, uint64_t tag) {
  struct fi_msg_tagged m = {.addr = FI_ADDR_UNSPEC, .tag = tag};
  struct fi_cq_tagged_entry c;
  struct fi_cq_err_entry err;
  CHECK(fi_trecvmsg(e->ep, &m, FI_PEEK));
  if (wait_cq(e, &c, &err) == 1) return 1;
  if (err.err != FI_ENOMSG) die("FI_PEEK", err.err);
  return 0;
}

static void scenario_owner_gone(int finishes) {
  struct ep e = open_ep();
  struct fi_cq_tagged_entry c;
  struct stat st;
  if (me == 1) {
    CHECK(fi_tsend(e.ep, pattern(RNDV, 5), RNDV, NULL, peer(&e, 0, 0), OWNER_TAG, NULL));
    if (finishes) {
      close_ep(&e);
      close_fabric(); /* gives up after 5 s: UE 0 takes nothing meanwhile */
    }
    FILE *f = fopen(OWNER_GONE, "w");
    if (f) fclose(f);
    _exit(0); /* owner-exits: without closing anything */
  }
  if (me == 0) {
    for (int i = 0; i < 6000 && stat(OWNER_GONE, &st) != 0; i++) usleep(10000);
    if (stat(OWNER_GONE, &st) != 0) die("UE 1 never left", 0);
    unlink(OWNER_GONE);
    /* UE 1's request-to-send carries its header (tagged flags): once it is
     * here, UE 1 was granted the buffer, in the same pass. */
    while (!peek_tag(&e, OWNER_TAG)) continue;
    token_send(&e, peer(&e, 2, 0), GRANTED_TAG, 0, 0);
    unsigned char *in = calloc(1, RNDV), *want = pattern(RNDV, 6);
    CHECK(fi_trecv(e.ep, in, RNDV, NULL, peer(&e, 2, 0), WAITER_TAG, 0, NULL));
    wait_ok(&e, &c);
    if (c.len != RNDV || memcmp(in, want, RNDV) != 0) die("UE 2's message arrived changed", (long)c.len);
  } else {
    token_recv(&e, GRANTED_TAG, NULL, NULL);
    CHECK(fi_tsend(e.ep, pattern(RNDV, 6), RNDV, NULL, peer(&e, 0, 0), WAITER_TAG, NULL));
    wait_ok(&e, &c); /* its request waits behind UE 1's grant */
  }
  close_ep(&e);
}

int main(int argc, char **argv) {
  const char *ue = getenv("OPENSCC_UE");
  me = ue ? atoi(ue) : -1;
  if (argc != 2)
    die("usage: fi_provider "
        "close|withdraw|cancel|getinfo|threads|drain|oom|rma|atomic|rma-errors|owner-finishes|owner-exits",
        0);
  const char *s = argv[1];
  if (strcmp(s, "rma") == 0 || strcmp(s, "atomic") == 0 || strcmp(s, "rma-errors") == 0) {
    extra_caps = FI_RMA | FI_ATOMIC;
    mr_mode = strcmp(s, "rma") == 0 ? FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED : 0;
  }
  open_fabric();
  if (strcmp(s, "close") == 0) scenario_close();
  else if (strcmp(s, "cancel") == 0) scenario_cancel();
  else if (strcmp(s, "withdraw") == 0) scenario_withdraw();
  else if (strcmp(s, "getinfo") == 0) scenario_getinfo();
  else if (strcmp(s, "threads") == 0) scenario_threads();
  else if (strcmp(s, "drain") == 0) scenario_drain();
  else if (strcmp(s, "oom") == 0) scenario_oom();
  else if (strcmp(s, "rma") == 0) scenario_rma();
  else if (strcmp(s, "atomic") == 0) scenario_atomic();
  else if (strcmp(s, "rma-errors") == 0) scenario_rma_errors();
  else if (strcmp(s, "owner-finishes") == 0) scenario_owner_gone(1);
  else if (strcmp(s, "owner-exits") == 0) scenario_owner_gone(0);
  else die("unknown scenario", 0);
  if (strcmp(s, "drain") != 0 || me == 0) close_fabric();
  if (me == 0) printf("fi_provider %s: OK\n", s);
  return 0;
}

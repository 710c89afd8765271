/* One-sided operations, the initiator's side (fi_rma(3); fi_atomic(3) calls
 * come through prov_atomic.c).  The SCC had no RDMA: RCKMPI carried MPI's
 * one-sided operations as packets through the MPB, handled by the target's
 * progress engine ([RCKMPI-2011]).  So does the provider: each remote iov
 * entry of a call is one packet (a WRITE with its data, a READ, an ATOMIC
 * with its operands) to the target UE, whose progress applies it to the
 * registered memory (prov_rma_target.c) and answers with a REPLY (status,
 * read data, old values).  The call completes when every REPLY is in: the
 * data is then visible at the target (FI_DELIVERY_COMPLETE, whatever the
 * flags ask).  Payloads are copied at the call, so the caller's buffers are
 * free at once and an endpoint may close with operations under way (their
 * replies are then dropped). */
#include <stdlib.h>
#include <string.h>

#include "prov_rma.h"

#define EP(e) ((struct prov_ep *)(e))

/* One call: complete when every part has its REPLY. */
struct rma_op {
  int ep_index;
  uint64_t ep_serial;
  void *ctx;
  uint64_t cq_flags;
  int read; /* counted by the read counter */
  int report;
  unsigned parts_left;
  int err; /* the first failed part's status */
};

/* One packet of a call, found again by its REPLY through its slot. */
struct rma_part {
  struct mpi_out_packet pkt; /* first: done() gets it back */
  struct rma_op *op;
  uint32_t slot;
  int sent, replied;
  struct iovec result[PROV_IOV_LIMIT]; /* where the REPLY's data lands */
  size_t result_count;
  struct iovec iov; /* the payload, a copy */
  unsigned char payload[];
};

/* Parts waiting for their REPLY, by slot (the header's request field). */
static struct {
  struct rma_part **part;
  uint32_t *free_slots;
  uint32_t cap, nfree;
} slots;

static int slot_take(struct rma_part *p) {
  if (slots.nfree == 0) {
    uint32_t ncap = slots.cap ? slots.cap * 2 : 64;
    struct rma_part **np = realloc(slots.part, ncap * sizeof *np);
    if (!np) return -FI_ENOMEM;
    slots.part = np;
    uint32_t *nf = realloc(slots.free_slots, ncap * sizeof *nf);
    if (!nf) return -FI_ENOMEM;
    slots.free_slots = nf;
    for (uint32_t i = ncap; i > slots.cap; i--) slots.free_slots[slots.nfree++] = i - 1;
    slots.cap = ncap;
  }
  p->slot = slots.free_slots[--slots.nfree];
  slots.part[p->slot] = p;
  return 0;
}

static void slot_give_back(struct rma_part *p) {
  slots.part[p->slot] = NULL;
  slots.free_slots[slots.nfree++] = p->slot;
}

/* ---- iov helpers ---- */
static uint64_t iov_total(const struct iovec *iov, size_t count) {
  uint64_t n = 0;
  for (size_t i = 0; i < count; i++) n += iov[i].iov_len;
  return n;
}

/* The bytes [off, off + len) of an iov as iov entries (out has room for
 * PROV_IOV_LIMIT, as the iov itself). */
static size_t iov_slice(const struct iovec *iov, size_t count, uint64_t off, uint64_t len, struct iovec *out) {
  size_t n = 0;
  for (size_t i = 0; i < count && len > 0; i++) {
    if (off >= iov[i].iov_len) {
      off -= iov[i].iov_len;
      continue;
    }
    uint64_t take = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
    out[n++] = (struct iovec){(unsigned char *)iov[i].iov_base + off, take};
    len -= take;
    off = 0;
  }
  return n;
}

/* Copy the bytes [off, off + len) of an iov to dst. */
static void iov_gather(const struct iovec *iov, size_t count, uint64_t off, uint64_t len, unsigned char *dst) {
  struct iovec s[PROV_IOV_LIMIT];
  size_t n = iov_slice(iov, count, off, len, s);
  for (size_t i = 0; i < n; i++) {
    memcpy(dst, s[i].iov_base, s[i].iov_len);
    dst += s[i].iov_len;
  }
}

/* ---- packets ---- */
/* A packet for this process's own UE: straight to the sink's one-sided
 * side, as the channel would deliver it (excess bytes discarded). */
static void deliver_locally(struct mpi_out_packet *p) {
  struct mpi_in_target t = {0};
  prov_rma_arrived(prov_g.ue, p->header, p->payload_bytes, &t);
  uint64_t off = 0;
  for (size_t i = 0; i < p->iov_count; i++)
    off += prov_iov_copy_in(t.iov, t.iov_count, off, p->iov[i].iov_base, p->iov[i].iov_len);
  prov_rma_complete(prov_g.ue, &t);
  p->done(p);
}

void prov_rma_packet_post(struct mpi_out_packet *p) {
  prov_g.pending_to[p->dest]++; /* closing the fabric waits for it (prov_job.c) */
  if (p->dest == prov_g.ue) deliver_locally(p);
  else mpi_channel_post(p);
}

struct mpi_ue_shared *prov_rma_stats(void) {
  return mpi_ue_shared_of(&prov_g.job, prov_g.ue);
}

/* ---- completion ---- */
static void part_free(struct rma_part *p) {
  struct rma_op *op = p->op;
  slot_give_back(p);
  free(p);
  if (--op->parts_left) return;
  struct prov_ep *ep = prov_ep_find(op->ep_index, op->ep_serial);
  if (ep) {
    struct fi_cq_err_entry e = {.op_context = op->ctx, .flags = op->cq_flags, .err = op->err, .prov_errno = op->err};
    prov_complete_rma(ep, op->read, op->report, &e);
  }
  free(op);
}

/* The packet is in the MPB (or delivered locally). */
static void part_sent(struct mpi_out_packet *pkt) {
  struct rma_part *p = (struct rma_part *)pkt;
  prov_g.pending_to[pkt->dest]--;
  p->sent = 1;
  if (p->replied) part_free(p);
}

static struct rma_part *part_of_reply(const struct prov_rma_hdr *h) {
  return h->request < slots.cap ? slots.part[h->request] : NULL;
}

void prov_rma_reply_target(const struct prov_rma_hdr *h, struct iovec *iov, size_t *iov_count) {
  struct rma_part *p = part_of_reply(h);
  *iov_count = 0;
  if (!p || h->key != 0 || !prov_ep_find(p->op->ep_index, p->op->ep_serial)) return; /* nothing to land */
  memcpy(iov, p->result, p->result_count * sizeof *iov);
  *iov_count = p->result_count;
}

int prov_rma_reply_is_for(const struct prov_rma_hdr *h, const struct prov_ep *ep) {
  const struct rma_part *p = part_of_reply(h);
  return p && p->op->ep_index == ep->index && p->op->ep_serial == ep->serial;
}

void prov_rma_reply_done(const struct prov_rma_hdr *h) {
  struct rma_part *p = part_of_reply(h);
  if (!p) return;
  if (h->key && !p->op->err) p->op->err = (int)h->key;
  p->replied = 1;
  if (p->sent) part_free(p);
}

/* ---- posting ---- */
/* Whether the call's completion is a CQ entry (fi_cq(3) selective
 * completion; prov_complete's report): never for an inject call, whose
 * failures only the counters see (it has no context to report against). */
static int reports(const struct prov_ep *ep, const struct prov_rma_request *r) {
  if (r->inject_call) return -1;
  if (!ep->tx_cq) return 0;
  return !ep->tx_selective || (r->flags & FI_COMPLETION);
}

static uint64_t cq_flags_of(const struct prov_rma_request *r) {
  if (r->op == PROV_OP_WRITE) return FI_RMA | FI_WRITE;
  if (r->op == PROV_OP_READ) return FI_RMA | FI_READ;
  return FI_ATOMIC | (r->kind == PROV_ATOMIC_PLAIN ? FI_WRITE : FI_READ);
}

/* The bytes the remote entries name, or UINT64_MAX when an entry alone is
 * over the largest message (so the sum cannot wrap around). */
static uint64_t remote_total(const struct prov_rma_request *r) {
  uint64_t remote = 0;
  for (size_t i = 0; i < r->remote_count && i < PROV_IOV_LIMIT; i++) {
    if (r->remote[i].len > PROV_MAX_MSG_SIZE) return UINT64_MAX;
    remote += r->remote[i].len;
  }
  return remote;
}

/* The call's byte counts agree: the local (and compare, result) iovs hold
 * as many bytes as the remote entries name.  0 or -FI_EINVAL/-FI_EMSGSIZE. */
static int check_sizes(const struct prov_rma_request *r, uint64_t remote) {
  if (r->local_count > PROV_IOV_LIMIT || r->compare_count > PROV_IOV_LIMIT || r->result_count > PROV_IOV_LIMIT ||
      r->remote_count > PROV_IOV_LIMIT || r->remote_count == 0)
    return -FI_EINVAL;
  if (remote > PROV_MAX_MSG_SIZE || ((r->flags & FI_INJECT) && remote > PROV_INJECT_SIZE)) return -FI_EMSGSIZE;
  int sends_operands = r->op == PROV_OP_WRITE || (r->op == PROV_OP_ATOMIC && r->atomic_op != FI_ATOMIC_READ);
  int fetches = r->op == PROV_OP_READ || (r->op == PROV_OP_ATOMIC && r->kind != PROV_ATOMIC_PLAIN);
  if (sends_operands && iov_total(r->local, r->local_count) != remote) return -FI_EINVAL;
  if (fetches && iov_total(r->result, r->result_count) != remote) return -FI_EINVAL;
  if (r->kind == PROV_ATOMIC_COMPARE && iov_total(r->compare, r->compare_count) != remote) return -FI_EINVAL;
  return 0;
}

/* The packet for remote entry i, covering the call's bytes [off, off + len). */
static struct rma_part *part_new(const struct prov_ep *ep, const struct prov_peer *peer,
                                 const struct prov_rma_request *r, size_t i, uint64_t off) {
  const struct fi_rma_iov *rv = &r->remote[i];
  int sends_operands = r->op == PROV_OP_WRITE || (r->op == PROV_OP_ATOMIC && r->atomic_op != FI_ATOMIC_READ);
  uint64_t payload = (sends_operands ? rv->len : 0) + (r->kind == PROV_ATOMIC_COMPARE ? rv->len : 0);
  struct rma_part *p = calloc(1, sizeof *p + payload);
  if (!p) return NULL;
  if (sends_operands) iov_gather(r->local, r->local_count, off, rv->len, p->payload);
  if (r->kind == PROV_ATOMIC_COMPARE)
    iov_gather(r->compare, r->compare_count, off, rv->len, p->payload + (sends_operands ? rv->len : 0));
  if (r->op == PROV_OP_READ || r->kind != PROV_ATOMIC_PLAIN)
    p->result_count = iov_slice(r->result, r->result_count, off, rv->len, p->result);
  size_t elem = r->op == PROV_OP_ATOMIC ? prov_atomic_size(r->datatype) : 1;
  struct prov_rma_hdr h = {.op = (uint8_t)r->op,
                           .atomic_kind = (uint8_t)r->kind,
                           .src_ep = (uint16_t)ep->index,
                           .dst_ep = (uint16_t)peer->ep,
                           .atomic_op = (uint8_t)r->atomic_op,
                           .datatype = (uint8_t)r->datatype,
                           .key = rv->key,
                           .addr = rv->addr,
                           .count = (uint32_t)(rv->len / elem)};
  memcpy(p->pkt.header, &h, sizeof h);
  p->iov = (struct iovec){p->payload, payload};
  p->pkt.iov = &p->iov;
  p->pkt.iov_count = 1;
  p->pkt.payload_bytes = payload;
  p->pkt.dest = peer->ue;
  p->pkt.done = part_sent;
  return p;
}

static void parts_free(struct rma_part **parts, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (parts[i]->slot != UINT32_MAX) slot_give_back(parts[i]);
    free(parts[i]);
  }
}

/* Every packet is made (memory, slots) before the first is posted, so a
 * call fails whole or not at all. */
static int parts_make(const struct prov_ep *ep, const struct prov_peer *peer, const struct prov_rma_request *r,
                      struct rma_op *op, struct rma_part **parts) {
  uint64_t off = 0;
  for (size_t i = 0; i < r->remote_count; i++) {
    parts[i] = part_new(ep, peer, r, i, off);
    if (!parts[i]) {
      parts_free(parts, i);
      return -FI_ENOMEM;
    }
    parts[i]->op = op;
    parts[i]->slot = UINT32_MAX;
    if (slot_take(parts[i]) != 0) {
      parts_free(parts, i + 1);
      return -FI_ENOMEM;
    }
    struct prov_rma_hdr *h = (struct prov_rma_hdr *)parts[i]->pkt.header;
    h->request = parts[i]->slot;
    off += r->remote[i].len;
  }
  return 0;
}

ssize_t prov_rma_post(struct prov_ep *ep, const struct prov_rma_request *r) {
  PROV_TIMING_SCOPE();
  if (!ep->enabled) return -FI_EOPBADSTATE;
  const struct prov_peer *peer = prov_av_peer(ep->av, r->dest);
  if (!peer) return -FI_EINVAL;
  int bad = check_sizes(r, remote_total(r));
  if (bad) return bad;
  struct rma_op *op = calloc(1, sizeof *op);
  if (!op) return -FI_ENOMEM;
  *op = (struct rma_op){.ep_index = ep->index,
                        .ep_serial = ep->serial,
                        .ctx = r->ctx,
                        .cq_flags = cq_flags_of(r),
                        .read = r->op == PROV_OP_READ || r->kind != PROV_ATOMIC_PLAIN,
                        .report = reports(ep, r),
                        .parts_left = (unsigned)r->remote_count};
  struct rma_part *parts[PROV_IOV_LIMIT];
  if (parts_make(ep, peer, r, op, parts) != 0) {
    free(op);
    return -FI_ENOMEM;
  }
  prov_rma_stats()->rma_requests += r->remote_count;
  for (size_t i = 0; i < r->remote_count; i++) prov_rma_packet_post(&parts[i]->pkt);
  prov_progress();
  prov_wake_napper(); /* it moves the rest, and reads the replies */
  return 0;
}

/* ---- fi_rma calls: thin translations (flags: the endpoint's, fi_endpoint(3)) ---- */
#define ONE_IOV(buf, len) (&(struct iovec){(void *)(buf), (len)})
#define ONE_RMA(addr, len, key) (&(struct fi_rma_iov){(addr), (len), (key)})

static ssize_t rma_read(struct fid_ep *e, void *buf, size_t len, void *desc, fi_addr_t src, uint64_t addr, uint64_t key,
                        void *ctx) {
  struct prov_rma_request r = {.op = PROV_OP_READ,
                               .result = ONE_IOV(buf, len),
                               .result_count = 1,
                               .remote = ONE_RMA(addr, len, key),
                               .remote_count = 1,
                               .dest = src,
                               .ctx = ctx,
                               .flags = EP(e)->tx_op_flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_readv(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t src,
                         uint64_t addr, uint64_t key, void *ctx) {
  if (count > PROV_IOV_LIMIT) return -FI_EINVAL;
  struct prov_rma_request r = {.op = PROV_OP_READ,
                               .result = iov,
                               .result_count = count,
                               .remote = ONE_RMA(addr, iov_total(iov, count), key),
                               .remote_count = 1,
                               .dest = src,
                               .ctx = ctx,
                               .flags = EP(e)->tx_op_flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_readmsg(struct fid_ep *e, const struct fi_msg_rma *m, uint64_t flags) {
  struct prov_rma_request r = {.op = PROV_OP_READ,
                               .result = m->msg_iov,
                               .result_count = m->iov_count,
                               .remote = m->rma_iov,
                               .remote_count = m->rma_iov_count,
                               .dest = m->addr,
                               .ctx = m->context,
                               .flags = flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_write(struct fid_ep *e, const void *buf, size_t len, void *desc, fi_addr_t dest, uint64_t addr,
                         uint64_t key, void *ctx) {
  struct prov_rma_request r = {.op = PROV_OP_WRITE,
                               .local = ONE_IOV(buf, len),
                               .local_count = 1,
                               .remote = ONE_RMA(addr, len, key),
                               .remote_count = 1,
                               .dest = dest,
                               .ctx = ctx,
                               .flags = EP(e)->tx_op_flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_writev(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t dest,
                          uint64_t addr, uint64_t key, void *ctx) {
  if (count > PROV_IOV_LIMIT) return -FI_EINVAL;
  struct prov_rma_request r = {.op = PROV_OP_WRITE,
                               .local = iov,
                               .local_count = count,
                               .remote = ONE_RMA(addr, iov_total(iov, count), key),
                               .remote_count = 1,
                               .dest = dest,
                               .ctx = ctx,
                               .flags = EP(e)->tx_op_flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_writemsg(struct fid_ep *e, const struct fi_msg_rma *m, uint64_t flags) {
  /* FI_REMOTE_CQ_DATA needs fi_writedata, which the provider does not offer. */
  if (flags & FI_REMOTE_CQ_DATA) return -FI_EOPNOTSUPP;
  struct prov_rma_request r = {.op = PROV_OP_WRITE,
                               .local = m->msg_iov,
                               .local_count = m->iov_count,
                               .remote = m->rma_iov,
                               .remote_count = m->rma_iov_count,
                               .dest = m->addr,
                               .ctx = m->context,
                               .flags = flags};
  return prov_rma_post(EP(e), &r);
}
static ssize_t rma_inject(struct fid_ep *e, const void *buf, size_t len, fi_addr_t dest, uint64_t addr, uint64_t key) {
  struct prov_rma_request r = {.op = PROV_OP_WRITE,
                               .local = ONE_IOV(buf, len),
                               .local_count = 1,
                               .remote = ONE_RMA(addr, len, key),
                               .remote_count = 1,
                               .dest = dest,
                               .flags = FI_INJECT,
                               .inject_call = 1};
  return prov_rma_post(EP(e), &r);
}
/* Remote CQ data on RMA writes (FI_RMA_EVENT's kin) is not offered. */
static ssize_t rma_writedata(struct fid_ep *e, const void *buf, size_t len, void *desc, uint64_t data, fi_addr_t dest,
                             uint64_t addr, uint64_t key, void *ctx) {
  return -FI_EOPNOTSUPP;
}
static ssize_t rma_injectdata(struct fid_ep *e, const void *buf, size_t len, uint64_t data, fi_addr_t dest,
                              uint64_t addr, uint64_t key) {
  return -FI_EOPNOTSUPP;
}

struct fi_ops_rma prov_rma_ops = {.size = sizeof(struct fi_ops_rma),
                                  .read = rma_read,
                                  .readv = rma_readv,
                                  .readmsg = rma_readmsg,
                                  .write = rma_write,
                                  .writev = rma_writev,
                                  .writemsg = rma_writemsg,
                                  .inject = rma_inject,
                                  .writedata = rma_writedata,
                                  .injectdata = rma_injectdata};

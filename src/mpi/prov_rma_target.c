/* One-sided operations, the target's side: the channel's sink hands the
 * one-sided packets here (prov_arrive.c).  The target's progress applies
 * them to its registered memory (prov_mr.c) in arrival order -- in order
 * per initiator, as the channel is FIFO between each pair of UEs -- and
 * answers each with a REPLY.  Atomics are applied whole, one packet at a
 * time under the provider lock, so they are atomic with respect to each
 * other, whoever sent them: as on RCKMPI, where the target's progress
 * engine handled every one-sided packet ([RCKMPI-2011]).  The REPLY
 * (status, read data, old values) goes back through the channel; its
 * arrival at the initiator completes the operation (prov_rma.c). */
#include <stdlib.h>
#include <string.h>

#include "prov_rma.h"

/* A one-sided packet between its header and its last byte. */
struct rma_arrival {
  struct rma_arrival *prev, *next; /* first: a prov_list item */
  struct prov_rma_hdr h;
  int src;
  int status;             /* WRITE, READ: the access check (0 or an fi_errno) */
  unsigned char *scratch; /* ATOMIC: operands and compare values */
  struct iovec iov[PROV_IOV_LIMIT];
  size_t iov_count;
  unsigned char *where; /* READ: the registered bytes */
};

/* Packets between arrived and complete: complete() tells its own targets
 * from the receive path's by this list (usually empty or one long). */
static struct prov_list arriving;

/* A REPLY to the packet h from UE src: status, and len bytes of data (copied). */
static void reply(int src, const struct prov_rma_hdr *h, int status, const void *data, uint64_t len);

/* The domain whose registrations the packet names: its endpoint's. */
static const struct prov_domain *domain_of(const struct prov_rma_hdr *h) {
  const struct prov_ep *ep = prov_ep_at(h->dst_ep);
  return ep ? ep->domain : NULL;
}

static int access_check(const struct prov_rma_hdr *h, uint64_t len, uint64_t access, unsigned char **where) {
  const struct prov_domain *d = domain_of(h);
  return d ? prov_mr_access(d, h->key, h->addr, len, access, where) : FI_EINVAL;
}

/* Where the packet's payload lands. */
static void land(struct rma_arrival *a, uint64_t payload_bytes) {
  unsigned char *where = NULL;
  switch (a->h.op) {
    case PROV_OP_REPLY: prov_rma_reply_target(&a->h, a->iov, &a->iov_count); return;
    case PROV_OP_WRITE:
      /* The data lands in the registered memory directly (or is discarded). */
      a->status = access_check(&a->h, payload_bytes, FI_REMOTE_WRITE, &where);
      if (a->status == 0) {
        a->iov[0] = (struct iovec){where, payload_bytes};
        a->iov_count = 1;
      }
      return;
    case PROV_OP_READ: a->status = access_check(&a->h, a->h.count, FI_REMOTE_READ, &a->where); return;
    default: /* ATOMIC: applied whole when every operand is here */
      a->scratch = malloc(payload_bytes ? payload_bytes : 1);
      if (!a->scratch) prov_out_of_memory("for the operands of an atomic from UE %d", a->src);
      a->iov[0] = (struct iovec){a->scratch, payload_bytes};
      a->iov_count = 1;
  }
}

int prov_rma_arrived(int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes,
                     struct mpi_in_target *t) {
  uint8_t op = header[0];
  if (op != PROV_OP_WRITE && op != PROV_OP_READ && op != PROV_OP_ATOMIC && op != PROV_OP_REPLY) return 0;
  struct rma_arrival *a = calloc(1, sizeof *a);
  if (!a) prov_out_of_memory("for a one-sided packet from UE %d", src);
  memcpy(&a->h, header, sizeof a->h);
  a->src = src;
  land(a, payload_bytes);
  prov_list_append(&arriving, a);
  t->iov = a->iov;
  t->iov_count = a->iov_count;
  t->cookie = a;
  return 1;
}

/* Apply an atomic whose operands are all here; its REPLY carries the old
 * values of fetch and compare atomics. */
static void apply_atomic(const struct rma_arrival *a, uint64_t payload_bytes) {
  const struct prov_rma_hdr *h = &a->h;
  size_t size = prov_atomic_size(h->datatype);
  uint64_t bytes = (uint64_t)h->count * size;
  int operands = h->atomic_op != FI_ATOMIC_READ, compares = h->atomic_kind == PROV_ATOMIC_COMPARE;
  if (!prov_atomic_valid(h->atomic_op, h->datatype) || payload_bytes != bytes * (uint64_t)(operands + compares)) {
    reply(a->src, h, FI_EINVAL, NULL, 0);
    return;
  }
  /* FI_ATOMIC_READ only reads the target (fi_atomic(3)): a region
   * registered with FI_REMOTE_READ alone serves it. */
  uint64_t access = h->atomic_op == FI_ATOMIC_READ
                        ? FI_REMOTE_READ
                        : FI_REMOTE_WRITE | (h->atomic_kind != PROV_ATOMIC_PLAIN ? FI_REMOTE_READ : 0);
  unsigned char *target;
  int status = access_check(h, bytes, access, &target);
  if (status != 0) {
    reply(a->src, h, status, NULL, 0);
    return;
  }
  unsigned char *old = h->atomic_kind != PROV_ATOMIC_PLAIN ? malloc(bytes ? bytes : 1) : NULL;
  if (h->atomic_kind != PROV_ATOMIC_PLAIN && !old) prov_out_of_memory("for the reply to an atomic");
  prov_atomic_apply(h->atomic_op, h->datatype, target, operands ? a->scratch : NULL,
                    compares ? a->scratch + (operands ? bytes : 0) : NULL, old, h->count);
  reply(a->src, h, 0, old, old ? bytes : 0);
  free(old);
}

int prov_rma_complete(int src, struct mpi_in_target *t) {
  struct rma_arrival *a = arriving.head;
  while (a && a != t->cookie) a = a->next;
  if (!a) return 0;
  prov_list_remove(&arriving, a);
  uint64_t payload_bytes = a->iov_count ? a->iov[0].iov_len : 0;
  if (a->h.op != PROV_OP_REPLY) prov_rma_stats()->rma_served++;
  switch (a->h.op) {
    case PROV_OP_REPLY: prov_rma_reply_done(&a->h); break;
    case PROV_OP_WRITE: reply(src, &a->h, a->status, NULL, 0); break;
    case PROV_OP_READ: reply(src, &a->h, a->status, a->where, a->status ? 0 : a->h.count); break;
    default: apply_atomic(a, payload_bytes);
  }
  free(a->scratch);
  free(a);
  return 1;
}

/* The rest of the arrival's data is discarded (the channel re-reads the
 * target's lengths, channel.h). */
static void discard_rest(struct rma_arrival *a) {
  for (size_t i = 0; i < a->iov_count; i++) a->iov[i].iov_len = 0;
}

void prov_rma_abandon_replies(const struct prov_ep *ep) {
  for (struct rma_arrival *a = arriving.head; a; a = a->next)
    if (a->h.op == PROV_OP_REPLY && prov_rma_reply_is_for(&a->h, ep)) discard_rest(a);
}

void prov_rma_abandon_writes(const unsigned char *base, uint64_t len) {
  for (struct rma_arrival *a = arriving.head; a; a = a->next) {
    const unsigned char *at = a->iov_count ? a->iov[0].iov_base : NULL;
    if (a->h.op == PROV_OP_WRITE && at && at >= base && at < base + len) {
      discard_rest(a);
      a->status = FI_EACCES; /* the initiator learns that its data did not land */
    }
  }
}

/* ---- replies ---- */
struct rma_reply {
  struct mpi_out_packet pkt; /* first: done() gets it back */
  struct iovec iov;
  unsigned char data[];
};

static void reply_sent(struct mpi_out_packet *p) {
  prov_g.pending_to[p->dest]--;
  free(p);
}

static void reply(int src, const struct prov_rma_hdr *h, int status, const void *data, uint64_t len) {
  /* The data is copied now: later packets (a write after this read) must
   * not change what this one answers (the order of one initiator's
   * operations, fi_getinfo's msg_order). */
  struct rma_reply *r = malloc(sizeof *r + len);
  if (!r) prov_out_of_memory("for a one-sided reply of %llu bytes to UE %d", (unsigned long long)len, src);
  memset(&r->pkt, 0, sizeof r->pkt);
  if (len) memcpy(r->data, data, len);
  struct prov_rma_hdr rh = {.op = PROV_OP_REPLY,
                            .src_ep = h->dst_ep,
                            .dst_ep = h->src_ep,
                            .key = (uint64_t)status,
                            .request = h->request,
                            .count = (uint32_t)len};
  memcpy(r->pkt.header, &rh, sizeof rh);
  r->iov = (struct iovec){r->data, len};
  r->pkt.iov = &r->iov;
  r->pkt.iov_count = 1;
  r->pkt.payload_bytes = len;
  r->pkt.dest = src;
  r->pkt.done = reply_sent;
  prov_rma_packet_post(&r->pkt);
}

/* Sends, untagged and tagged: one packet per operation, queued behind the
 * packets already queued for its destination UE (FI_RM_ENABLED: a busy
 * receiver never makes a send fail -- returning -FI_EAGAIN hung Open MPI
 * about one run in three).  The caller's buffers are used in place when the
 * operation reports its completion (CQ entry or counter), else copied
 * (inject, or no completion to wait for).  The completion is written when the
 * channel has written the last byte into the MPB. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "prov_pool.h"
#include "provider.h"

struct prov_tx {
  struct prov_tx *prev, *next; /* first: on its endpoint's list of sends (a prov_list item) */
  struct mpi_out_packet pkt;   /* done() gets it back */
  int ep_index;
  uint64_t ep_serial;
  void *ctx;
  uint64_t cq_flags, len;
  int report; /* write a CQ entry */
  struct iovec iov[PROV_IOV_LIMIT];
  unsigned char *payload_copy; /* the provider's copy of the payload (copy, or detach()'s), else NULL: in place */
  int pooled;                  /* from tx_pool (room for TX_POOLED_COPY bytes of copy), else malloc'ed */
  unsigned char copy[];        /* the payload, when copied at the send */
};

/* Sends whose copy fits TX_POOLED_COPY bytes (an MPI library's small
 * injected messages, and every send in place) come from here and go back
 * here (prov_pool.h). */
#define TX_POOLED_COPY 256
static struct prov_pool tx_pool = PROV_POOL(sizeof(struct prov_tx) + TX_POOLED_COPY);

static uint64_t iov_bytes(const struct iovec *iov, size_t count) {
  uint64_t n = 0;
  for (size_t i = 0; i < count; i++) n += iov[i].iov_len;
  return n;
}

static struct prov_tx *tx_of(struct mpi_out_packet *p) {
  return (struct prov_tx *)((char *)p - offsetof(struct prov_tx, pkt));
}

/* The packet has left (every byte in the MPB, or delivered locally). */
static void tx_done(struct mpi_out_packet *p) {
  struct prov_tx *tx = tx_of(p);
  prov_g.pending_to[p->dest]--;
  struct prov_ep *ep = prov_ep_find(tx->ep_index, tx->ep_serial);
  if (ep) {
    prov_list_remove(&ep->sends, tx);
    struct fi_cq_err_entry e = {.op_context = tx->ctx, .flags = tx->cq_flags};
    prov_complete(ep, 1, tx->report, &e, FI_ADDR_NOTAVAIL);
  }
  if (tx->payload_copy != tx->copy) free(tx->payload_copy);
  if (tx->pooled) prov_pool_put(&tx_pool, tx);
  else free(tx);
}

/* A send of a closing endpoint that still reads the caller's buffers (in
 * place) gets its own copy: the same iov lengths over provider memory, so
 * the channel's position in the iov stays valid.  (Draining instead could
 * wait forever for a receiver that does not read.) */
static void detach(struct prov_tx *tx) {
  if (tx->payload_copy || tx->len == 0) return;
  unsigned char *copy = malloc(tx->len);
  if (!copy) prov_out_of_memory("copying a %llu-byte send of a closing endpoint", (unsigned long long)tx->len);
  size_t off = 0;
  for (size_t i = 0; i < tx->pkt.iov_count; i++) {
    memcpy(copy + off, tx->iov[i].iov_base, tx->iov[i].iov_len);
    tx->iov[i].iov_base = copy + off;
    off += tx->iov[i].iov_len;
  }
  tx->payload_copy = copy;
}

/* Whether a receiver is copying one of ep's sends from the caller's
 * buffers: asking withdraws each single copy not claimed yet, whose
 * payload then follows in rounds (from detach()'s copy).  Sends from the
 * provider's own copy (inject, copied, detached) are not asked: those
 * buffers live until tx_done, and their single copy goes on. */
static int single_copy_claimed(const struct prov_ep *ep) {
  int claimed = 0;
  for (const struct prov_tx *tx = ep->sends.head; tx; tx = tx->next)
    if (!tx->payload_copy) claimed |= mpi_channel_copying(&tx->pkt);
  return claimed;
}

void prov_sends_detach(struct prov_ep *ep) {
  /* A receiver that claimed a single copy reads the caller's buffers right
   * now (it claims and copies within one progress call): a new copy of the
   * payload would come too late for it.  Its status ends the wait (the
   * send is done, tx_done, or its payload follows in rounds), or the
   * channel's report that the receiver is gone (finished or exited between
   * its claim and its status: the send is never delivered). */
  while (single_copy_claimed(ep))
    if (prov_progress() == 0) prov_idle();
  struct prov_tx *tx;
  while ((tx = ep->sends.head) != NULL) {
    prov_list_remove(&ep->sends, tx);
    detach(tx);
  }
}

/* Whether the operation reports a CQ entry (selective completion, fi_cq(3)). */
static int reports(const struct prov_ep *ep, const struct prov_send_args *a) {
  if (!ep->tx_cq || a->inject_call) return 0;
  return !ep->tx_selective || (a->flags & FI_COMPLETION);
}

/* A send to this process's own UE never enters the MPB: it goes straight
 * to the sink, as if it had arrived. */
static void deliver_locally(struct prov_tx *tx) {
  struct mpi_in_target t = {0};
  prov_sink.arrived(prov_sink.arg, prov_g.ue, tx->pkt.header, tx->len, &t);
  /* The target's excess is discarded, as the channel does. */
  uint64_t off = 0;
  for (size_t i = 0; i < tx->pkt.iov_count; i++)
    off += prov_iov_copy_in(t.iov, t.iov_count, off, tx->pkt.iov[i].iov_base, tx->pkt.iov[i].iov_len);
  prov_sink.complete(prov_sink.arg, prov_g.ue, &t);
  tx_done(&tx->pkt);
}

ssize_t prov_send(struct prov_ep *ep, const struct prov_send_args *a) {
  PROV_TIMING_SCOPE();
  timing_message_call(); /* the MPI library's work of a message call, as RCCE's (docs/mpi.md "Model mode") */
  if (!ep->enabled) return -FI_EOPBADSTATE;
  if (a->count > PROV_IOV_LIMIT) return -FI_EINVAL;
  const struct prov_peer *peer = prov_av_peer(ep->av, a->dest);
  if (!peer) return -FI_EINVAL;
  uint64_t len = iov_bytes(a->iov, a->count);
  if (len > PROV_MAX_MSG_SIZE || ((a->flags & FI_INJECT) && len > PROV_INJECT_SIZE)) return -FI_EMSGSIZE;
  int report = reports(ep, a);
  int copy = (a->flags & FI_INJECT) || (!report && !ep->send_cntr);
  uint64_t copy_bytes = copy ? len : 0;
  int pooled = copy_bytes <= TX_POOLED_COPY;
  struct prov_tx *tx = pooled ? prov_pool_get(&tx_pool) : malloc(sizeof *tx + copy_bytes);
  if (!tx) return -FI_ENOMEM;
  memset(tx, 0, sizeof *tx);
  tx->pooled = pooled;
  struct prov_hdr h = {.op = a->tagged ? PROV_OP_TAGGED : PROV_OP_MSG,
                       .flags = (a->flags & FI_REMOTE_CQ_DATA) ? PROV_HDR_CQ_DATA : 0,
                       .src_ep = (uint16_t)ep->index,
                       .dst_ep = (uint16_t)peer->ep,
                       .tag = a->tag,
                       .data = a->data,
                       .len = len};
  memcpy(tx->pkt.header, &h, sizeof h);
  if (copy) {
    size_t off = 0;
    for (size_t i = 0; i < a->count; i++) {
      memcpy(tx->copy + off, a->iov[i].iov_base, a->iov[i].iov_len);
      off += a->iov[i].iov_len;
    }
    tx->iov[0] = (struct iovec){tx->copy, len};
    tx->pkt.iov_count = 1;
    tx->payload_copy = tx->copy;
  } else {
    if (a->count) memcpy(tx->iov, a->iov, a->count * sizeof *a->iov); /* a zero-byte fi_sendmsg may pass none */
    tx->pkt.iov_count = a->count;
  }
  tx->pkt.iov = tx->iov;
  tx->pkt.dest = peer->ue;
  tx->pkt.payload_bytes = len;
  tx->pkt.done = tx_done;
  tx->ep_index = ep->index;
  tx->ep_serial = ep->serial;
  tx->ctx = a->ctx;
  tx->cq_flags = FI_SEND | (a->tagged ? FI_TAGGED : FI_MSG);
  tx->len = len;
  tx->report = report;
  prov_g.pending_to[peer->ue]++;
  prov_list_append(&ep->sends, tx);
  if (peer->ue == prov_g.ue) deliver_locally(tx);
  else {
    mpi_channel_post(&tx->pkt);
    prov_progress_sent();
  }
  prov_wake_napper(); /* it moves the rest, and completes the send */
  return 0;
}

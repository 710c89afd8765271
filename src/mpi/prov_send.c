/* Sends, untagged and tagged: one packet per operation, queued behind the
 * packets already queued for its destination UE (FI_RM_ENABLED: a busy
 * receiver never makes a send fail -- returning -FI_EAGAIN hung Open MPI
 * about one run in three).  The caller's buffers are used in place when the
 * operation reports its completion (CQ entry or counter), else copied
 * (inject, or no completion to wait for).  The completion is written when the
 * channel has written the last byte into the MPB. */
#include <stdlib.h>
#include <string.h>

#include "provider.h"

struct prov_tx {
  struct mpi_out_packet pkt; /* first: done() gets it back */
  int ep_index;
  uint64_t ep_serial;
  void *ctx;
  uint64_t cq_flags, len;
  int report; /* write a CQ entry */
  struct iovec iov[PROV_IOV_LIMIT];
  unsigned char copy[]; /* the payload, when copied */
};

static uint64_t iov_bytes(const struct iovec *iov, size_t count) {
  uint64_t n = 0;
  for (size_t i = 0; i < count; i++) n += iov[i].iov_len;
  return n;
}

/* The packet has left (every byte in the MPB, or delivered locally). */
static void tx_done(struct mpi_out_packet *p) {
  struct prov_tx *tx = (struct prov_tx *)p;
  prov_g.pending_to[p->dest]--;
  struct prov_ep *ep = prov_ep_find(tx->ep_index, tx->ep_serial);
  if (ep) {
    struct fi_cq_err_entry e = {.op_context = tx->ctx, .flags = tx->cq_flags};
    prov_complete(ep, 1, tx->report, &e, FI_ADDR_NOTAVAIL);
  }
  free(tx);
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
  if (!ep->enabled) return -FI_EOPBADSTATE;
  if (a->count > PROV_IOV_LIMIT) return -FI_EINVAL;
  const struct prov_peer *peer = prov_av_peer(ep->av, a->dest);
  if (!peer) return -FI_EINVAL;
  uint64_t len = iov_bytes(a->iov, a->count);
  if (len > PROV_MAX_MSG_SIZE || ((a->flags & FI_INJECT) && len > PROV_INJECT_SIZE)) return -FI_EMSGSIZE;
  int report = reports(ep, a);
  int copy = (a->flags & FI_INJECT) || (!report && !ep->send_cntr);
  struct prov_tx *tx = malloc(sizeof *tx + (copy ? len : 0));
  if (!tx) return -FI_ENOMEM;
  memset(tx, 0, sizeof *tx);
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
  if (peer->ue == prov_g.ue) deliver_locally(tx);
  else {
    mpi_channel_post(&tx->pkt);
    prov_progress();
  }
  return 0;
}

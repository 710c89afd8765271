/* The RDM endpoint object: binding to an AV, CQs and counters, enabling,
 * its name (address), options, operation flags and fi_cancel.  Its index in
 * prov_g.eps travels in packet headers, so several endpoints per process
 * demultiplex (prov_arrive.c). */
#include <stdlib.h>
#include <string.h>

#include "../hw/wait.h"
#include "prov_stubs.h"
#include "provider.h"

#define EP(f) ((struct prov_ep *)(f))

static int bind_cq(struct prov_ep *ep, struct prov_cq *cq, uint64_t flags) {
  if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) return -FI_EBADFLAGS;
  if (flags & FI_TRANSMIT) {
    ep->tx_cq = cq;
    ep->tx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
  }
  if (flags & FI_RECV) {
    ep->rx_cq = cq;
    ep->rx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
  }
  return 0;
}

static int bind_cntr(struct prov_ep *ep, struct prov_cntr *c, uint64_t flags) {
  /* Remote events (FI_REMOTE_READ, FI_REMOTE_WRITE) need FI_RMA_EVENT, which
   * the provider does not offer: accepted, never counted (docs/mpi-provider.md). */
  if (flags & FI_SEND) ep->send_cntr = c;
  if (flags & FI_RECV) ep->recv_cntr = c;
  if (flags & FI_WRITE) ep->write_cntr = c;
  if (flags & FI_READ) ep->read_cntr = c;
  return 0;
}

static int ep_bind(struct fid *f, struct fid *b, uint64_t flags) {
  PROV_LOCK_SCOPE();
  struct prov_ep *ep = EP(f);
  switch (b->fclass) {
    case FI_CLASS_AV: ep->av = (struct prov_av *)b; return 0;
    case FI_CLASS_CQ: return bind_cq(ep, (struct prov_cq *)b, flags);
    case FI_CLASS_CNTR: return bind_cntr(ep, (struct prov_cntr *)b, flags);
    case FI_CLASS_EQ: return -FI_ENOSYS;
    default: return -FI_EINVAL;
  }
}

static int ep_control(struct fid *f, int cmd, void *arg) {
  PROV_LOCK_SCOPE();
  struct prov_ep *ep = EP(f);
  switch (cmd) {
    case FI_ENABLE:
      if (!ep->av) return -FI_ENOAV;
      ep->enabled = 1;
      return 0;
    case FI_GETOPSFLAG: {
      uint64_t *flags = arg;
      *flags = (*flags & FI_TRANSMIT) ? ep->tx_op_flags : ep->rx_op_flags;
      return 0;
    }
    case FI_SETOPSFLAG: {
      uint64_t *flags = arg;
      if (*flags & FI_TRANSMIT) ep->tx_op_flags = *flags & ~(uint64_t)FI_TRANSMIT;
      else ep->rx_op_flags = *flags & ~(uint64_t)FI_RECV;
      return 0;
    }
    default: return -FI_ENOSYS;
  }
}

/* After fi_close the provider touches none of the caller's buffers: the
 * posted receives go, messages still landing discard the rest, and sends
 * still under way carry on from the provider's own copy. */
static int ep_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  struct prov_ep *ep = EP(f);
  prov_recv_cleanup(ep);
  prov_arrivals_abandon(ep);
  prov_rma_abandon_replies(ep);
  prov_sends_detach(ep);
  prov_g.eps[ep->index] = NULL;
  ep->domain->users--;
  free(ep);
  return 0;
}

static struct fi_ops ep_fid_ops = {.size = sizeof(struct fi_ops),
                                   .close = ep_close,
                                   .bind = ep_bind,
                                   .control = ep_control,
                                   .ops_open = prov_no_ops_open,
                                   .tostr = prov_no_tostr,
                                   .ops_set = prov_no_ops_set};

static int ep_getname(fid_t f, void *addr, size_t *len) {
  size_t room = *len;
  *len = PROV_ADDR_LEN;
  if (room < PROV_ADDR_LEN) return -FI_ETOOSMALL;
  prov_addr_format(addr, prov_g.ue, EP(f)->index);
  return 0;
}

static struct fi_ops_cm ep_cm_ops = {.size = sizeof(struct fi_ops_cm),
                                     .setname = prov_no_setname,
                                     .getname = ep_getname,
                                     .getpeer = prov_no_getpeer,
                                     .connect = prov_no_connect,
                                     .listen = prov_no_listen,
                                     .accept = prov_no_accept,
                                     .reject = prov_no_reject,
                                     .shutdown = prov_no_shutdown,
                                     .join = prov_no_join};

static int ep_setopt(fid_t f, int level, int opt, const void *val, size_t len) {
  PROV_LOCK_SCOPE();
  if (level != FI_OPT_ENDPOINT) return -FI_ENOPROTOOPT;
  if (opt == FI_OPT_MIN_MULTI_RECV && len == sizeof(size_t)) {
    EP(f)->min_multi_recv = *(const size_t *)val;
    return 0;
  }
  return -FI_ENOPROTOOPT;
}

static int ep_getopt(fid_t f, int level, int opt, void *val, size_t *len) {
  PROV_LOCK_SCOPE();
  if (level != FI_OPT_ENDPOINT || opt != FI_OPT_MIN_MULTI_RECV || *len < sizeof(size_t)) return -FI_ENOPROTOOPT;
  *(size_t *)val = EP(f)->min_multi_recv;
  *len = sizeof(size_t);
  return 0;
}

/* fi_cancel: a posted receive leaves its queue with an FI_ECANCELED error
 * completion; sends already belong to the channel (nothing to cancel). */
static ssize_t ep_cancel(fid_t f, void *ctx) {
  PROV_LOCK_SCOPE();
  return prov_recv_cancel(EP(f), ctx);
}

static struct fi_ops_ep ep_ops = {.size = sizeof(struct fi_ops_ep),
                                  .cancel = ep_cancel,
                                  .getopt = ep_getopt,
                                  .setopt = ep_setopt,
                                  .tx_ctx = prov_no_tx_ctx,
                                  .rx_ctx = prov_no_rx_ctx,
                                  .rx_size_left = prov_no_size_left,
                                  .tx_size_left = prov_no_size_left};

struct prov_ep *prov_ep_at(int index) {
  return index >= 0 && index < PROV_MAX_EP ? prov_g.eps[index] : NULL;
}

struct prov_ep *prov_ep_find(int index, uint64_t serial) {
  struct prov_ep *ep = prov_ep_at(index);
  return ep && ep->serial == serial ? ep : NULL;
}

static int free_index(void) {
  for (int i = 0; i < PROV_MAX_EP; i++)
    if (!prov_g.eps[i]) return i;
  return -1;
}

int prov_ep_open(struct fid_domain *d, struct fi_info *info, struct fid_ep **out, void *ctx) {
  PROV_LOCK_SCOPE();
  if (info && info->ep_attr && info->ep_attr->type != FI_EP_RDM && info->ep_attr->type != FI_EP_UNSPEC)
    return -FI_EINVAL;
  int index = free_index();
  if (index < 0) return -FI_ENOSPC;
  struct prov_ep *ep = calloc(1, sizeof *ep);
  if (!ep) return -FI_ENOMEM;
  static uint64_t serials;
  ep->index = index;
  ep->serial = ++serials;
  ep->caps = info && info->caps ? info->caps : FI_MSG | FI_TAGGED;
  if (info && info->tx_attr) ep->tx_op_flags = info->tx_attr->op_flags;
  if (info && info->rx_attr) ep->rx_op_flags = info->rx_attr->op_flags;
  ep->min_multi_recv = 64; /* fi_endpoint(3)'s suggested default */
  ep->ep.fid.fclass = FI_CLASS_EP;
  ep->ep.fid.context = ctx;
  ep->ep.fid.ops = &ep_fid_ops;
  ep->ep.ops = &ep_ops;
  ep->ep.cm = &ep_cm_ops;
  ep->ep.msg = &prov_msg_ops;
  ep->ep.tagged = &prov_tagged_ops;
  ep->ep.rma = &prov_rma_ops;
  ep->ep.atomic = &prov_atomic_ops;
  ep->domain = (struct prov_domain *)d;
  ep->domain->users++;
  prov_g.eps[index] = ep;
  *out = &ep->ep;
  return 0;
}

/* A completion into cq (if any; errors unless report < 0, fi_cq(3)
 * selective completion) and counter c (if any). */
static void complete_into(struct prov_cq *cq, struct prov_cntr *c, int report, const struct fi_cq_err_entry *e,
                          fi_addr_t src) {
  if (cq && report >= 0 && (report || e->err) && prov_cq_push(cq, e, src) != 0)
    prov_out_of_memory("for a completion queue entry"); /* a lost completion would hang the library */
  if (c) {
    if (e->err) c->errors++;
    else c->value++;
  }
}

void prov_complete(struct prov_ep *ep, int tx, int report, const struct fi_cq_err_entry *e, fi_addr_t src) {
  /* An operation ended: the MPI library has work, even when the channel
   * moved nothing (a receive served from an unexpected message, a send to
   * this UE).  Its next fruitless polls start a new idle stretch: without
   * this, a rank working through queued unexpected messages napped after
   * each and looked asleep to the deadlock check (docs/mpi-provider.md).
   * A peek that found nothing (FI_ENOMSG) is a fruitless poll. */
  if (e->err != FI_ENOMSG) {
    hw_poll_fruitful();
    prov_wake_napper(); /* another thread may nap waiting for it */
  }
  complete_into(tx ? ep->tx_cq : ep->rx_cq, tx ? ep->send_cntr : ep->recv_cntr, report, e, src);
}

void prov_complete_rma(struct prov_ep *ep, int read, int report, const struct fi_cq_err_entry *e) {
  hw_poll_fruitful(); /* as prov_complete: the library has work */
  prov_wake_napper();
  complete_into(ep->tx_cq, read ? ep->read_cntr : ep->write_cntr, report, e, FI_ADDR_NOTAVAIL);
}

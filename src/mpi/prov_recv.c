/* Receives and matching (fi_msg(3), fi_tagged(3)).  A posted receive is
 * first matched against the unexpected messages, in arrival order; only
 * when none matches does it join the posted queue, which arriving messages
 * search in posting order (prov_arrive.c).  Both orders together keep MPI's
 * non-overtaking rule: the channel is FIFO between each pair of UEs.
 * Untagged and tagged receives have separate queues.  Tagged receives also
 * peek (FI_PEEK), claim (FI_CLAIM) and discard (FI_DISCARD) unexpected
 * messages. */
#include <stdlib.h>
#include <string.h>

#include "prov_pool.h"
#include "provider.h"

/* Posted receives come from here and go back here (prov_pool.h). */
static struct prov_pool rx_pool = PROV_POOL(sizeof(struct prov_rx));

static void rx_free(struct prov_rx *rx) { prov_pool_put(&rx_pool, rx); }

struct link {
  struct link *prev, *next;
};

void prov_list_append(struct prov_list *l, void *item) {
  struct link *it = item;
  it->next = NULL;
  it->prev = l->tail;
  if (l->tail) ((struct link *)l->tail)->next = it;
  else l->head = it;
  l->tail = it;
}

void prov_list_remove(struct prov_list *l, void *item) {
  struct link *it = item;
  if (it->prev) it->prev->next = it->next;
  else l->head = it->next;
  if (it->next) it->next->prev = it->prev;
  else l->tail = it->prev;
  it->prev = it->next = NULL;
}

uint64_t prov_iov_copy_in(const struct iovec *iov, size_t count, uint64_t offset, const void *src, uint64_t len) {
  const unsigned char *s = src;
  uint64_t done = 0;
  for (size_t i = 0; i < count && done < len; i++) {
    if (offset >= iov[i].iov_len) {
      offset -= iov[i].iov_len;
      continue;
    }
    uint64_t room = iov[i].iov_len - offset, n = len - done < room ? len - done : room;
    memcpy((unsigned char *)iov[i].iov_base + offset, s + done, n);
    done += n;
    offset = 0;
  }
  return done;
}

/* ---- matching ---- */
static int source_matches(int32_t want_ue, int32_t want_ep, int src_ue, int src_ep) {
  return want_ue < 0 || (want_ue == src_ue && want_ep == src_ep);
}

static int rx_matches(const struct prov_rx *rx, const struct prov_hdr *h, int src_ue) {
  if (!source_matches(rx->src_ue, rx->src_ep, src_ue, h->src_ep)) return 0;
  return !rx->tagged || ((rx->tag ^ h->tag) & ~rx->ignore) == 0;
}

static uint64_t multi_left(const struct prov_rx *rx) { return rx->bytes - rx->used; }

/* Whether rx has room for the message (a multi-receive buffer may have too little left). */
static int has_room(const struct prov_rx *rx, const struct prov_hdr *h) {
  return !(rx->flags & FI_MULTI_RECV) || h->len <= multi_left(rx);
}

/* A multi-receive buffer leaves the posted queue; its last completion (now,
 * when no message is landing in it) carries FI_MULTI_RECV. */
static void multi_release(struct prov_ep *ep, struct prov_rx *rx) {
  prov_list_remove(&ep->posted[0], rx);
  rx->released = 1;
  if (rx->inflight) return;
  struct fi_cq_err_entry e = {.op_context = rx->ctx, .flags = FI_MULTI_RECV, .buf = rx->iov[0].iov_base};
  prov_complete(ep, 0, 1, &e, FI_ADDR_NOTAVAIL);
  rx_free(rx);
}

struct prov_rx *prov_match_posted(struct prov_ep *ep, const struct prov_hdr *h, int src_ue) {
  int tagged = h->op == PROV_OP_TAGGED;
  struct prov_rx *next;
  for (struct prov_rx *rx = ep->posted[tagged].head; rx; rx = next) {
    next = rx->next;
    if (!rx_matches(rx, h, src_ue)) continue;
    if (has_room(rx, h)) return rx;
    multi_release(ep, rx); /* too little left for this message: on to the next buffer */
  }
  return NULL;
}

int prov_posted_wants(const struct prov_ep *ep, const struct prov_hdr *h, int src_ue) {
  for (const struct prov_rx *rx = ep->posted[h->op == PROV_OP_TAGGED].head; rx; rx = rx->next)
    if (rx_matches(rx, h, src_ue) && has_room(rx, h)) return 1;
  return 0;
}

void prov_delivery_for(struct prov_ep *ep, struct prov_rx *rx, uint64_t len, struct prov_delivery *d) {
  d->rx = rx;
  if (!(rx->flags & FI_MULTI_RECV)) {
    memcpy(d->iov, rx->iov, rx->iov_count * sizeof *rx->iov);
    d->iov_count = rx->iov_count;
    d->buf = NULL;
    if (rx->prev || rx->next || ep->posted[rx->tagged].head == rx) prov_list_remove(&ep->posted[rx->tagged], rx);
    return;
  }
  d->buf = (unsigned char *)rx->iov[0].iov_base + rx->used;
  d->iov[0] = (struct iovec){d->buf, len};
  d->iov_count = 1;
  rx->used += len;
  rx->inflight++;
  if (multi_left(rx) < ep->min_multi_recv) multi_release(ep, rx);
}

/* The completion of a message received into rx (an error when truncated). */
static struct fi_cq_err_entry received_entry(const struct prov_delivery *d, const struct prov_hdr *h) {
  const struct prov_rx *rx = d->rx;
  uint64_t room = (rx->flags & FI_MULTI_RECV) ? h->len : rx->bytes;
  struct fi_cq_err_entry e = {.op_context = rx->ctx,
                              .flags = FI_RECV | (h->op == PROV_OP_TAGGED ? FI_TAGGED : FI_MSG),
                              .len = h->len < room ? h->len : room,
                              .buf = d->buf,
                              .tag = h->tag};
  if (h->flags & PROV_HDR_CQ_DATA) {
    e.flags |= FI_REMOTE_CQ_DATA;
    e.data = h->data;
  }
  if (h->len > room) {
    e.err = FI_ETRUNC;
    e.prov_errno = FI_ETRUNC;
    e.olen = h->len - room;
  }
  return e;
}

static void report_cancelled(struct prov_ep *ep, const struct prov_rx *rx);

void prov_delivery_done(struct prov_ep *ep, struct prov_delivery *d, const struct prov_hdr *h, int src_ue) {
  struct prov_rx *rx = d->rx;
  int last = 1;
  if (rx->flags & FI_MULTI_RECV) last = --rx->inflight == 0 && rx->released;
  if (ep) {
    struct fi_cq_err_entry e = received_entry(d, h);
    /* The buffer's last completion says it is released -- unless it was
     * cancelled: then the FI_ECANCELED completion after it says so. */
    if (last && (rx->flags & FI_MULTI_RECV) && !rx->cancelled) e.flags |= FI_MULTI_RECV;
    int report = !ep->rx_selective || (rx->flags & FI_COMPLETION);
    prov_complete(ep, 0, report, &e, prov_av_reverse(ep->av, src_ue, h->src_ep));
    if (last && rx->cancelled) report_cancelled(ep, rx);
  }
  if (last) rx_free(rx);
}

/* ---- unexpected messages ---- */
static struct prov_unexp *find_unexpected(struct prov_ep *ep, const struct prov_rx *rx) {
  for (struct prov_unexp *u = ep->unexp[rx->tagged].head; u; u = u->next)
    if (!u->claimed && rx_matches(rx, &u->hdr, u->src_ue)) return u;
  return NULL;
}

static struct prov_unexp *find_claimed(struct prov_ep *ep, void *ctx) {
  for (struct prov_unexp *u = ep->unexp[1].head; u; u = u->next)
    if (u->claimed && u->claim_ctx == ctx) return u;
  return NULL;
}

/* The unexpected message u leaves its queue; free it now, or mark it for
 * the arrival to free when its last byte is in. */
static void unexpected_drop(struct prov_ep *ep, struct prov_unexp *u) {
  prov_list_remove(&ep->unexp[u->hdr.op == PROV_OP_TAGGED], u);
  if (!u->complete) {
    u->abandoned = 1;
    return;
  }
  free(u->payload);
  free(u);
}

/* Receive rx takes the unexpected message u: now if it is all here, else
 * when its last byte arrives (prov_arrive.c).  Out of memory here (rx
 * half posted, u half taken) aborts the UE: prov_out_of_memory. */
static void take_unexpected(struct prov_ep *ep, struct prov_rx *rx, struct prov_unexp *u) {
  struct prov_delivery *d = malloc(sizeof *d);
  if (!d) prov_out_of_memory("for a receive of a %llu-byte unexpected message", (unsigned long long)u->hdr.len);
  prov_delivery_for(ep, rx, u->hdr.len, d);
  prov_list_remove(&ep->unexp[u->hdr.op == PROV_OP_TAGGED], u);
  if (!u->complete) {
    u->waiting = d;
    return;
  }
  prov_iov_copy_in(d->iov, d->iov_count, 0, u->payload, u->hdr.len);
  prov_delivery_done(ep, d, &u->hdr, u->src_ue);
  free(d);
  free(u->payload);
  free(u);
}

/* ---- posting ---- */
static void report_peek(struct prov_ep *ep, const struct prov_rx *rx, const struct prov_unexp *u) {
  struct fi_cq_err_entry e = {.op_context = rx->ctx, .flags = FI_RECV | FI_TAGGED};
  if (!u) {
    e.err = FI_ENOMSG;
    e.prov_errno = FI_ENOMSG;
    prov_complete(ep, 0, 1, &e, FI_ADDR_NOTAVAIL);
    return;
  }
  e.len = u->hdr.len;
  e.tag = u->hdr.tag;
  if (u->hdr.flags & PROV_HDR_CQ_DATA) {
    e.flags |= FI_REMOTE_CQ_DATA;
    e.data = u->hdr.data;
  }
  prov_complete(ep, 0, 1, &e, prov_av_reverse(ep->av, u->src_ue, u->hdr.src_ep));
}

/* FI_PEEK (with FI_CLAIM or FI_DISCARD): look at the unexpected messages only. */
static void peek(struct prov_ep *ep, struct prov_rx *rx) {
  struct prov_unexp *u = find_unexpected(ep, rx);
  if (!u) mpi_channel_take_waiting(); /* a single copy kept waiting has arrived too: the next peek sees it */
  report_peek(ep, rx, u);
  if (u && (rx->flags & FI_DISCARD)) unexpected_drop(ep, u);
  else if (u && (rx->flags & FI_CLAIM)) {
    u->claimed = 1;
    u->claim_ctx = rx->ctx;
  }
  rx_free(rx);
}

/* FI_CLAIM: receive (or with FI_DISCARD, drop) the message an earlier peek
 * claimed with the same context. */
static int claim(struct prov_ep *ep, struct prov_rx *rx) {
  struct prov_unexp *u = find_claimed(ep, rx->ctx);
  if (!u) {
    rx_free(rx);
    return -FI_EINVAL;
  }
  if (!(rx->flags & FI_DISCARD)) {
    take_unexpected(ep, rx, u);
    return 0;
  }
  struct fi_cq_err_entry e = {.op_context = rx->ctx, .flags = FI_RECV | FI_TAGGED, .tag = u->hdr.tag};
  prov_complete(ep, 0, !ep->rx_selective || (rx->flags & FI_COMPLETION), &e, FI_ADDR_NOTAVAIL);
  unexpected_drop(ep, u);
  rx_free(rx);
  return 0;
}

/* A multi-receive buffer takes the unexpected messages that fit, then is posted. */
static int post_multi(struct prov_ep *ep, struct prov_rx *rx) {
  prov_list_append(&ep->posted[0], rx);
  struct prov_unexp *u;
  while ((u = find_unexpected(ep, rx)) != NULL) {
    if (u->hdr.len > multi_left(rx)) {
      multi_release(ep, rx);
      return 0;
    }
    /* Decided before: once released, the buffer may be freed by the take. */
    int releases = multi_left(rx) - u->hdr.len < ep->min_multi_recv;
    take_unexpected(ep, rx, u);
    if (releases) return 0;
  }
  return 0;
}

static int post(struct prov_ep *ep, struct prov_rx *rx) {
  if (rx->flags & FI_PEEK) {
    peek(ep, rx);
    return 0;
  }
  if (rx->flags & FI_CLAIM) return claim(ep, rx);
  if (rx->flags & FI_MULTI_RECV) return post_multi(ep, rx);
  struct prov_unexp *u = find_unexpected(ep, rx);
  if (u) take_unexpected(ep, rx, u);
  else prov_list_append(&ep->posted[rx->tagged], rx);
  return 0;
}

ssize_t prov_recv(struct prov_ep *ep, const struct prov_recv_args *a) {
  PROV_TIMING_SCOPE();
  timing_message_call(); /* the MPI library's work of a message call, as RCCE's (docs/mpi.md "Model mode") */
  if (!ep->enabled) return -FI_EOPBADSTATE;
  if (a->count > PROV_IOV_LIMIT || ((a->flags & FI_MULTI_RECV) && (a->tagged || a->count != 1))) return -FI_EINVAL;
  /* A pooled object and an initializer, not calloc (prov_arrive.c's arrived()). */
  struct prov_rx *rx = prov_pool_get(&rx_pool);
  if (!rx) return -FI_ENOMEM;
  *rx = (struct prov_rx){.ctx = a->ctx,
                         .flags = a->flags,
                         .tagged = a->tagged,
                         .tag = a->tag,
                         .ignore = a->ignore,
                         .src_ue = -1,
                         .src_ep = -1};
  /* Directed receives name their source only when the endpoint has FI_DIRECTED_RECV. */
  if ((ep->caps & FI_DIRECTED_RECV) && a->src != FI_ADDR_UNSPEC) {
    const struct prov_peer *p = prov_av_peer(ep->av, a->src);
    if (!p) {
      rx_free(rx);
      return -FI_EINVAL;
    }
    rx->src_ue = p->ue;
    rx->src_ep = p->ep;
  }
  if (a->count) memcpy(rx->iov, a->iov, a->count * sizeof *a->iov); /* a peek may pass no iov */
  rx->iov_count = a->count;
  for (size_t i = 0; i < a->count; i++) rx->bytes += a->iov[i].iov_len;
  int r = post(ep, rx);
  prov_progress();
  return r;
}

/* The FI_ECANCELED completion of a cancelled receive (for a multi-receive
 * buffer with FI_MULTI_RECV: the buffer is released). */
static void report_cancelled(struct prov_ep *ep, const struct prov_rx *rx) {
  struct fi_cq_err_entry e = {.op_context = rx->ctx,
                              .flags = FI_RECV | (rx->tagged ? FI_TAGGED : FI_MSG) | (rx->flags & FI_MULTI_RECV),
                              .err = FI_ECANCELED,
                              .prov_errno = FI_ECANCELED};
  prov_complete(ep, 0, 1, &e, FI_ADDR_NOTAVAIL);
}

int prov_recv_cancel(struct prov_ep *ep, void *ctx) {
  for (int tagged = 0; tagged < 2; tagged++)
    for (struct prov_rx *rx = ep->posted[tagged].head; rx; rx = rx->next) {
      if (rx->ctx != ctx) continue;
      prov_list_remove(&ep->posted[tagged], rx);
      rx->released = 1;
      if (rx->inflight) {
        /* Messages are still landing in the buffer: they complete first,
         * then the last one reports the cancel (prov_delivery_done). */
        rx->cancelled = 1;
        return 0;
      }
      report_cancelled(ep, rx);
      rx_free(rx);
      return 0;
    }
  return -FI_ENOENT;
}

void prov_recv_cleanup(struct prov_ep *ep) {
  for (int tagged = 0; tagged < 2; tagged++) {
    struct prov_rx *rx;
    while ((rx = ep->posted[tagged].head) != NULL) {
      prov_list_remove(&ep->posted[tagged], rx);
      if (rx->inflight) rx->released = 1;
      else rx_free(rx);
    }
    struct prov_unexp *u;
    while ((u = ep->unexp[tagged].head) != NULL) unexpected_drop(ep, u);
  }
}

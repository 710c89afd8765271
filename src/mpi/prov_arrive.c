/* The channel's sink: a packet's header arrives (arrived) -- it is matched
 * now, in arrival order, against the destination endpoint's posted receives,
 * else buffered as an unexpected message -- and later its last byte
 * (complete) -- the receive is reported.  The endpoint index in the header
 * picks the endpoint; packets for a closed endpoint are discarded. */
#include <stdlib.h>
#include <string.h>

#include "prov_pool.h"
#include "provider.h"

/* One packet between its header and its last byte; while its endpoint is
 * open, on the endpoint's list of arrivals. */
struct arrival {
  struct arrival *prev, *next; /* first: a prov_list item */
  struct prov_hdr h;
  int ep_index;
  uint64_t ep_serial;
  struct prov_unexp *unexp; /* buffered, or */
  struct prov_delivery d;   /* landing in a posted receive (d.rx), or discarded (neither) */
};

/* Arrivals come from here and go back here (prov_pool.h). */
static struct prov_pool arrival_pool = PROV_POOL(sizeof(struct arrival));

static struct prov_unexp *buffer_unexpected(struct prov_ep *ep, const struct prov_hdr *h, int src) {
  struct prov_unexp *u = malloc(sizeof *u); /* not calloc: see arrived() */
  unsigned char *payload = u ? malloc(h->len ? h->len : 1) : NULL;
  if (!payload) prov_out_of_memory("for an unexpected message of %llu bytes", (unsigned long long)h->len);
  *u = (struct prov_unexp){.hdr = *h, .src_ue = src, .payload = payload, .landing = {payload, h->len}};
  prov_list_append(&ep->unexp[h->op == PROV_OP_TAGGED], u);
  return u;
}

static void arrived(void *arg, int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes,
                    struct mpi_in_target *t) {
  if (prov_rma_arrived(src, header, payload_bytes, t)) return; /* one-sided: prov_rma_target.c */
  /* A pooled object and an initializer, not calloc: glibc 2.36's calloc
   * skips the thread cache and costs several malloc calls (every message
   * arrives here). */
  struct arrival *a = prov_pool_get(&arrival_pool);
  if (!a) prov_out_of_memory("for an arriving packet from UE %d", src);
  *a = (struct arrival){0};
  t->iov = NULL;
  t->iov_count = 0;
  t->cookie = a;
  memcpy(&a->h, header, sizeof a->h);
  a->h.len = payload_bytes;
  struct prov_ep *ep = prov_ep_at(a->h.dst_ep);
  if (!ep) return; /* no such endpoint (closed): discarded */
  a->ep_index = ep->index;
  a->ep_serial = ep->serial;
  prov_list_append(&ep->arrivals, a);
  struct prov_rx *rx = prov_match_posted(ep, &a->h, src);
  if (rx) {
    prov_delivery_for(ep, rx, payload_bytes, &a->d);
    t->iov = a->d.iov;
    t->iov_count = a->d.iov_count;
    return;
  }
  a->unexp = buffer_unexpected(ep, &a->h, src);
  t->iov = &a->unexp->landing;
  t->iov_count = 1;
}

/* The buffered message is all here: to the receive that took it meanwhile,
 * or left for a later receive, or freed. */
static void unexpected_complete(struct prov_ep *ep, struct prov_unexp *u) {
  u->complete = 1;
  if (u->waiting) {
    struct prov_delivery *d = u->waiting;
    prov_iov_copy_in(d->iov, d->iov_count, 0, u->payload, u->hdr.len);
    prov_delivery_done(ep, d, &u->hdr, u->src_ue);
    free(d);
  } else if (ep && !u->abandoned) {
    return;
  }
  free(u->payload);
  free(u);
}

static void complete(void *arg, int src, struct mpi_in_target *t) {
  if (prov_rma_complete(src, t)) return;
  struct arrival *a = t->cookie;
  struct prov_ep *ep = prov_ep_find(a->ep_index, a->ep_serial);
  if (ep) prov_list_remove(&ep->arrivals, a);
  if (a->unexp) unexpected_complete(ep, a->unexp);
  else if (a->d.rx) prov_delivery_done(ep, &a->d, &a->h, src);
  prov_pool_put(&arrival_pool, a);
}

/* The rest of a message landing in a receive of the closing endpoint is
 * discarded: the channel re-reads the target's lengths (channel.h), now 0.
 * A receive waiting for a buffered message lets go of it (the buffer is the
 * provider's and is freed when complete).  The receives are released (no
 * completion) as their messages complete, or now. */
void prov_arrivals_abandon(struct prov_ep *ep) {
  struct arrival *a;
  while ((a = ep->arrivals.head) != NULL) {
    prov_list_remove(&ep->arrivals, a);
    for (size_t i = 0; i < a->d.iov_count; i++) a->d.iov[i].iov_len = 0;
    struct prov_unexp *u = a->unexp;
    if (u && u->waiting) {
      prov_delivery_done(NULL, u->waiting, &u->hdr, u->src_ue);
      free(u->waiting);
      u->waiting = NULL;
    }
    if (u) u->abandoned = 1;
  }
}

/* A message a posted receive would take now, or a packet that needs none
 * (one-sided; for an endpoint gone): the channel keeps a single copy nobody
 * wants yet waiting a while (channel.h). */
static int wanted(void *arg, int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes) {
  (void)arg;
  struct prov_hdr h;
  memcpy(&h, header, sizeof h);
  if (h.op != PROV_OP_MSG && h.op != PROV_OP_TAGGED) return 1;
  h.len = payload_bytes;
  const struct prov_ep *ep = prov_ep_at(h.dst_ep);
  return !ep || prov_posted_wants(ep, &h, src);
}

const struct mpi_channel_sink prov_sink = {.arrived = arrived, .complete = complete, .wanted = wanted, .arg = NULL};

/* ircce layer: iRCCE's request API on the rcce layer's transfer queues. */
#ifndef OPENSCC_IRCCE_INTERNAL_H
#define OPENSCC_IRCCE_INTERNAL_H

#include "../rcce/rcce_iface.h"
#include "iRCCE.h"

/* What OpenSCC keeps in a request's _openscc_engine words. */
struct ircce_engine {
  uint32_t magic;                /* IRCCE_STARTED once the request was started */
  int bound;                     /* receives from iRCCE_ANY_SOURCE: 0 until a sender is chosen */
  struct rcce_xfer_storage xfer; /* the engine's transfer (rcce_xfer_in) */
};

#define IRCCE_STARTED 0x69524343u /* "iRCC" */

_Static_assert(sizeof(struct ircce_engine) <= sizeof(long long) * OPENSCC_IRCCE_ENGINE_WORDS,
               "iRCCE request too small for the transfer state");

static inline struct rcce_xfer *ircce_xfer(struct ircce_engine *e) { return rcce_xfer_in(&e->xfer); }

static inline struct ircce_engine *ircce_send_engine(iRCCE_SEND_REQUEST *r) {
  return (struct ircce_engine *)r->_openscc_engine;
}
static inline struct ircce_engine *ircce_recv_engine(iRCCE_RECV_REQUEST *r) {
  return (struct ircce_engine *)r->_openscc_engine;
}

/* Any-source receives (any_source.c). */
void ircce_any_source_post(iRCCE_RECV_REQUEST *r);
int ircce_any_source_cancel(iRCCE_RECV_REQUEST *r);
int ircce_any_source_posted(const iRCCE_RECV_REQUEST *r); /* 1 while it waits unbound */
/* Bind the receive to src and queue it; 1 when already complete. */
int ircce_recv_bind(iRCCE_RECV_REQUEST *r, int src);

/* 1 when the request is finished (updates its public `finished` field);
 * -1, reported, when it was never started. */
int ircce_send_finished(iRCCE_SEND_REQUEST *r, const char *where);
int ircce_recv_finished(iRCCE_RECV_REQUEST *r, const char *where);

#endif

/* iRCCE non-blocking requests (docs/ircce.md).  A request wraps one resumable
 * transfer of the rcce layer (rcce/xfer.c), so requests and blocking RCCE
 * calls share the sequence numbers and queues of every pair: messages stay in
 * order whichever API sent them, and a blocking call made while requests are
 * pending queues behind them. */
#include <limits.h>

#include "ircce_internal.h"

const int iRCCE_ANY_LENGTH = INT_MIN;

int iRCCE_init(void) { return iRCCE_SUCCESS; }

/* A receive may take iRCCE_ANY_LENGTH (big flags: the size travels in the
 * sent flag's line, rcce/link.h). */
/* The buffer is checked as RCCE_send/RCCE_recv check theirs: NULL with
 * bytes to move gives RCCE_ERROR_SOURCE (send) or RCCE_ERROR_TARGET
 * (receive; an any-length receive may bring bytes whatever its size). */
static int check_start(const char *buf, int peer, ssize_t size, int receiving, const char *where) {
  int rc =
      peer == iRCCE_ANY_SOURCE && receiving && rcce_ue_count() > 1 ? RCCE_SUCCESS : rcce_check_basic_peer(peer, where);
  if (rc == RCCE_SUCCESS)
    rc = rcce_check_buffer(buf, size == iRCCE_ANY_LENGTH ? 1 : (size > 0 ? (size_t)size : 0),
                           receiving ? RCCE_ERROR_TARGET : RCCE_ERROR_SOURCE, where, "buffer");
  if (rc != RCCE_SUCCESS || size >= 0) return rc;
  if (size != iRCCE_ANY_LENGTH || !receiving)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where, "size %zd", size);
  if (!rcce_big_flags())
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where,
                      "iRCCE_ANY_LENGTH needs big flags (the program is built with -DSINGLEBITFLAGS)");
  return RCCE_SUCCESS;
}

static size_t internal_size(ssize_t size) { return size == iRCCE_ANY_LENGTH ? RCCE_ANY_LENGTH_INTERNAL : (size_t)size; }

/* A request may be started again once it finished or was cancelled, not
 * while it still waits in a queue (that would corrupt the queue). */
static int check_reusable(struct ircce_engine *e, int pending_unbound, const char *where) {
  /* Programs start requests in uninitialised memory, so only the queues
   * themselves can say whether this one is in them. */
  int pending = pending_unbound || rcce_xfer_is_queued(ircce_xfer(e));
  return pending ? rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "the request is still pending") : RCCE_SUCCESS;
}

int iRCCE_isend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request) {
  TIMING_SCOPE();
  int rc = check_start(privbuf, dest, size, 0, "iRCCE_isend");
  if (rc == RCCE_SUCCESS && request) rc = check_reusable(ircce_send_engine(request), 0, "iRCCE_isend");
  if (rc != RCCE_SUCCESS) return rc;
  if (!request) return RCCE_send(privbuf, (size_t)size, dest); /* no handle: complete it now */
  request->privbuf = privbuf;
  request->combuf = RCCE_buff_ptr;
  request->chunk = RCCE_chunk;
  request->size = (size_t)size;
  request->dest = dest;
  request->sync = 1;
  request->next = NULL;
  struct ircce_engine *e = ircce_send_engine(request);
  e->magic = IRCCE_STARTED;
  e->bound = 1;
  if (timing_enabled) timing_message_call();
  rcce_xfer_start_basic(ircce_xfer(e), privbuf, (size_t)size, dest, 1);
  request->finished = rcce_xfer_submit(ircce_xfer(e));
  return request->finished ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int ircce_recv_bind(iRCCE_RECV_REQUEST *request, int source) {
  struct ircce_engine *e = ircce_recv_engine(request);
  request->source = source;
  request->combuf = rcce_basic_buffer_of(source);
  request->started = 1;
  e->bound = 1;
  rcce_xfer_start_basic(ircce_xfer(e), request->privbuf, request->size, source, 0);
  rcce_xfer_submit(ircce_xfer(e));
  return ircce_recv_finished(request, "iRCCE_irecv") == 1;
}

int iRCCE_irecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request) {
  TIMING_SCOPE();
  int any = source == iRCCE_ANY_SOURCE;
  int rc = check_start(privbuf, source, size, 1, "iRCCE_irecv");
  if (rc == RCCE_SUCCESS && request)
    rc = check_reusable(ircce_recv_engine(request), ircce_any_source_posted(request), "iRCCE_irecv");
  if (rc != RCCE_SUCCESS) return rc;
  iRCCE_RECV_REQUEST local;
  iRCCE_RECV_REQUEST *r = request ? request : &local; /* no handle: complete it now */
  r->privbuf = privbuf;
  r->chunk = RCCE_chunk;
  r->size = internal_size(size);
  r->sync = 1;
  r->started = 0;
  r->finished = 0;
  r->next = NULL;
  struct ircce_engine *e = ircce_recv_engine(r);
  e->magic = IRCCE_STARTED;
  e->bound = 0;
  if (timing_enabled) timing_message_call();
  if (any) {
    r->source = iRCCE_ANY_SOURCE;
    r->combuf = NULL;
    ircce_any_source_post(r);
  } else {
    ircce_recv_bind(r, source);
  }
  if (!request) return iRCCE_irecv_wait(r);
  int error = r->finished ? rcce_xfer_error(ircce_xfer(e)) : RCCE_SUCCESS;
  if (error) return error;
  return r->finished ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_issend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request) {
  TIMING_SCOPE();
  return iRCCE_isend(privbuf, size, dest, request); /* iRCCE sends are synchronous already */
}

int iRCCE_isrecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request) {
  TIMING_SCOPE();
  return iRCCE_irecv(privbuf, size, source, request);
}

static int finished(struct ircce_engine *e, int *public_finished, const char *where) {
  if (e->magic != IRCCE_STARTED)
    return rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "the request was never started (or was cancelled)"), -1;
  *public_finished = e->bound && rcce_xfer_done(ircce_xfer(e));
  return *public_finished;
}

int ircce_send_finished(iRCCE_SEND_REQUEST *r, const char *where) {
  return finished(ircce_send_engine(r), &r->finished, where);
}

int ircce_recv_finished(iRCCE_RECV_REQUEST *r, const char *where) {
  int f = finished(ircce_recv_engine(r), &r->finished, where);
  if (f == 1) r->size = rcce_xfer_size(ircce_xfer(ircce_recv_engine(r))); /* an iRCCE_ANY_LENGTH receive learnt it */
  return f;
}

/* Push and test are polling calls (rcce_xfer_poll_start/end): a tight loop
 * of them yields and naps like a blocking wait. */
int iRCCE_isend_push(void) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int done = !rcce_xfer_sends_queued();
  rcce_xfer_poll_end(p, done, NULL);
  return done ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_irecv_push(void) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int done = !rcce_xfer_recvs_pending();
  rcce_xfer_poll_end(p, done, NULL);
  return done ? iRCCE_SUCCESS : iRCCE_PENDING;
}

/* test: without a request, whether every request of that direction is done. */
int iRCCE_isend_test(iRCCE_SEND_REQUEST *request, int *test) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int f = request ? ircce_send_finished(request, "iRCCE_isend_test") : !rcce_xfer_sends_queued();
  if (f < 0) return iRCCE_ERROR;
  rcce_xfer_poll_end(p, f, NULL);
  if (test) *test = f;
  return f ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_irecv_test(iRCCE_RECV_REQUEST *request, int *test) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int f = request ? ircce_recv_finished(request, "iRCCE_irecv_test") : !rcce_xfer_recvs_pending();
  if (f < 0) return iRCCE_ERROR;
  rcce_xfer_poll_end(p, f, NULL);
  if (test) *test = f;
  int error = f && request ? rcce_xfer_error(ircce_xfer(ircce_recv_engine(request))) : RCCE_SUCCESS;
  if (error) return error;
  return f ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_isend_wait(iRCCE_SEND_REQUEST *request) {
  TIMING_SCOPE();
  if (!request) {
    rcce_xfer_drain_sends();
    return iRCCE_SUCCESS;
  }
  if (ircce_send_finished(request, "iRCCE_isend_wait") < 0) return iRCCE_ERROR;
  rcce_xfer_wait(ircce_xfer(ircce_send_engine(request)));
  request->finished = 1;
  return iRCCE_SUCCESS;
}

int iRCCE_irecv_wait(iRCCE_RECV_REQUEST *request) {
  TIMING_SCOPE();
  if (!request) {
    rcce_xfer_drain_all_recvs();
    return iRCCE_SUCCESS;
  }
  if (ircce_recv_finished(request, "iRCCE_irecv_wait") < 0) return iRCCE_ERROR;
  struct ircce_engine *e = ircce_recv_engine(request);
  while (!e->bound) rcce_xfer_idle(); /* an any-source receive waits for a sender first */
  rcce_xfer_wait(ircce_xfer(e));
  ircce_recv_finished(request, "iRCCE_irecv_wait");
  return rcce_xfer_error(ircce_xfer(e));
}

/* Cancel: only a request still waiting behind others can go (the head of a
 * queue may already have announced data).  Finished, cancelled or never
 * started requests are not enqueued. */
static int cancel(struct ircce_engine *e, int *test, const char *where) {
  if (test) *test = 0;
  if (e->magic != IRCCE_STARTED || rcce_xfer_done(ircce_xfer(e))) {
    rcce_error(RCCE_DEBUG_COMM, iRCCE_NOT_ENQUEUED, where, "the request is not queued");
    return iRCCE_NOT_ENQUEUED;
  }
  if (!rcce_xfer_cancel(ircce_xfer(e))) return iRCCE_PENDING;
  e->magic = 0;
  if (test) *test = 1;
  return iRCCE_SUCCESS;
}

int iRCCE_isend_cancel(iRCCE_SEND_REQUEST *request, int *test) {
  TIMING_SCOPE();
  if (!request) return iRCCE_NOT_ENQUEUED;
  return cancel(ircce_send_engine(request), test, "iRCCE_isend_cancel");
}

int iRCCE_irecv_cancel(iRCCE_RECV_REQUEST *request, int *test) {
  TIMING_SCOPE();
  if (!request) return iRCCE_NOT_ENQUEUED;
  struct ircce_engine *e = ircce_recv_engine(request);
  if (e->magic == IRCCE_STARTED && !e->bound && ircce_any_source_cancel(request)) {
    e->magic = 0;
    if (test) *test = 1;
    return iRCCE_SUCCESS;
  }
  return cancel(e, test, "iRCCE_irecv_cancel");
}

/* The blocking pair: the sender asks for the pipelined protocol (iRCCE's
 * two sub-chunks); the receiver follows what the first step says. */
int iRCCE_ssend(char *privbuf, ssize_t size, int dest) {
  TIMING_SCOPE();
  int rc = check_start(privbuf, dest, size, 0, "iRCCE_ssend");
  if (rc != RCCE_SUCCESS) return rc;
  return rcce_basic_send(privbuf, (size_t)size, dest, 1);
}

static int srecv(char *privbuf, ssize_t size, int source, int *test, const char *where) {
  TIMING_SCOPE();
  int rc = check_start(privbuf, source, size, 1, where);
  if (rc != RCCE_SUCCESS) return rc;
  if (source == iRCCE_ANY_SOURCE)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "use iRCCE_irecv for iRCCE_ANY_SOURCE");
  return rcce_basic_recv(privbuf, internal_size(size), source, test);
}

int iRCCE_srecv(char *privbuf, ssize_t size, int source) { return srecv(privbuf, size, source, NULL, "iRCCE_srecv"); }

int iRCCE_srecv_test(char *privbuf, ssize_t size, int source, int *test) {
  if (!test) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "iRCCE_srecv_test", "NULL test pointer");
  return srecv(privbuf, size, source, test, "iRCCE_srecv_test");
}

int iRCCE_get_dest(iRCCE_SEND_REQUEST *request) { return request ? request->dest : iRCCE_ERROR; }
int iRCCE_get_source(iRCCE_RECV_REQUEST *request) { return request ? request->source : iRCCE_ERROR; }

int iRCCE_get_size(iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq) {
  if (sreq) return (int)sreq->size;
  if (rreq) return (int)rreq->size;
  return iRCCE_ERROR;
}

int iRCCE_get_length(void) { return (int)rcce_last_recv_size(); }

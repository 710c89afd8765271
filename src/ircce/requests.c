/* iRCCE non-blocking requests (docs/ircce.md).  A request wraps one resumable
 * transfer of the rcce layer (rcce/xfer.c), so requests and blocking RCCE
 * calls share the sequence numbers and queues of every pair: messages stay in
 * order whichever API sent them, and a blocking call made while requests are
 * pending queues behind them. */
#include "ircce_internal.h"

static size_t last_recv_length;

int iRCCE_init(void) { return iRCCE_SUCCESS; }

static int check_start(int peer, ssize_t size, const char *where) {
  int rc = peer == iRCCE_ANY_SOURCE && rcce_g.nue > 1 ? RCCE_SUCCESS : rcce_check_basic_peer(peer, where);
  if (rc == RCCE_SUCCESS && size < 0)
    rc = rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where, "size %zd (iRCCE_ANY_LENGTH is not supported yet)",
                    size);
  return rc;
}

/* A request may be started again once it finished or was cancelled, not
 * while it still waits in a queue (that would corrupt the queue). */
static int check_reusable(struct ircce_engine *e, const char *where) {
  int pending = e->magic == IRCCE_STARTED && (!e->bound || e->xfer.queued);
  return pending ? rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "the request is still pending") : RCCE_SUCCESS;
}

int iRCCE_isend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request) {
  int rc = check_start(dest, size, "iRCCE_isend");
  if (rc == RCCE_SUCCESS && request) rc = check_reusable(ircce_send_engine(request), "iRCCE_isend");
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
  struct rcce_link l = rcce_basic_send_link(dest);
  e->magic = IRCCE_STARTED;
  e->bound = 1;
  rcce_xfer_start(&e->xfer, privbuf, (size_t)size, (unsigned char *)RCCE_buff_ptr, RCCE_chunk, &l, dest, 1);
  request->finished = rcce_xfer_submit(&e->xfer);
  return request->finished ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int ircce_recv_bind(iRCCE_RECV_REQUEST *request, int source) {
  struct ircce_engine *e = ircce_recv_engine(request);
  struct rcce_link l = rcce_basic_recv_link(source);
  request->source = source;
  request->combuf = RCCE_comm_buffer[source] + rcce_basic_buff_off();
  request->started = 1;
  e->bound = 1;
  rcce_xfer_start(&e->xfer, request->privbuf, request->size, (unsigned char *)request->combuf, RCCE_chunk, &l,
                  source, 0);
  request->finished = rcce_xfer_submit(&e->xfer);
  if (request->finished) last_recv_length = request->size;
  return request->finished;
}

int iRCCE_irecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request) {
  int any = source == iRCCE_ANY_SOURCE;
  int rc = check_start(source, size, "iRCCE_irecv");
  if (rc == RCCE_SUCCESS && request) rc = check_reusable(ircce_recv_engine(request), "iRCCE_irecv");
  if (rc != RCCE_SUCCESS) return rc;
  iRCCE_RECV_REQUEST local;
  iRCCE_RECV_REQUEST *r = request ? request : &local; /* no handle: complete it now */
  r->privbuf = privbuf;
  r->chunk = RCCE_chunk;
  r->size = (size_t)size;
  r->sync = 1;
  r->started = 0;
  r->finished = 0;
  r->next = NULL;
  struct ircce_engine *e = ircce_recv_engine(r);
  e->magic = IRCCE_STARTED;
  e->bound = 0;
  if (any) {
    r->source = iRCCE_ANY_SOURCE;
    r->combuf = NULL;
    ircce_any_source_post(r);
  } else {
    ircce_recv_bind(r, source);
  }
  if (!request) return iRCCE_irecv_wait(r);
  return r->finished ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_issend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request) {
  return iRCCE_isend(privbuf, size, dest, request); /* iRCCE sends are synchronous already */
}

int iRCCE_isrecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request) {
  return iRCCE_irecv(privbuf, size, source, request);
}

static int finished(struct ircce_engine *e, int *public_finished, const char *where) {
  if (e->magic != IRCCE_STARTED)
    return rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "the request was never started (or was cancelled)"), -1;
  *public_finished = e->bound && rcce_xfer_done(&e->xfer);
  return *public_finished;
}

int ircce_send_finished(iRCCE_SEND_REQUEST *r, const char *where) {
  return finished(ircce_send_engine(r), &r->finished, where);
}

int ircce_recv_finished(iRCCE_RECV_REQUEST *r, const char *where) {
  int f = finished(ircce_recv_engine(r), &r->finished, where);
  if (f == 1) last_recv_length = r->size;
  return f;
}

static int any_recv_queued(void) {
  if (rcce_g.extra_waiting) return 1;
  for (int src = 0; src < rcce_g.nue; src++)
    if (rcce_g.recv_queue[src]) return 1;
  return 0;
}

int iRCCE_isend_push(void) {
  rcce_xfer_progress();
  return rcce_g.send_queue ? iRCCE_PENDING : iRCCE_SUCCESS;
}

int iRCCE_irecv_push(void) {
  rcce_xfer_progress();
  return any_recv_queued() ? iRCCE_PENDING : iRCCE_SUCCESS;
}

/* test: without a request, whether every request of that direction is done. */
int iRCCE_isend_test(iRCCE_SEND_REQUEST *request, int *test) {
  rcce_xfer_progress();
  int f = request ? ircce_send_finished(request, "iRCCE_isend_test") : !rcce_g.send_queue;
  if (f < 0) return iRCCE_ERROR;
  if (test) *test = f;
  return f ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_irecv_test(iRCCE_RECV_REQUEST *request, int *test) {
  rcce_xfer_progress();
  int f = request ? ircce_recv_finished(request, "iRCCE_irecv_test") : !any_recv_queued();
  if (f < 0) return iRCCE_ERROR;
  if (test) *test = f;
  return f ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_isend_wait(iRCCE_SEND_REQUEST *request) {
  if (!request) {
    rcce_xfer_drain_sends();
    return iRCCE_SUCCESS;
  }
  if (ircce_send_finished(request, "iRCCE_isend_wait") < 0) return iRCCE_ERROR;
  rcce_xfer_wait(&ircce_send_engine(request)->xfer);
  request->finished = 1;
  return iRCCE_SUCCESS;
}

int iRCCE_irecv_wait(iRCCE_RECV_REQUEST *request) {
  if (!request) {
    while (rcce_g.extra_waiting) rcce_xfer_idle();
    for (int src = 0; src < rcce_g.nue; src++) rcce_xfer_drain_recvs(src);
    return iRCCE_SUCCESS;
  }
  if (ircce_recv_finished(request, "iRCCE_irecv_wait") < 0) return iRCCE_ERROR;
  struct ircce_engine *e = ircce_recv_engine(request);
  while (!e->bound) rcce_xfer_idle(); /* an any-source receive waits for a sender first */
  rcce_xfer_wait(&e->xfer);
  request->finished = 1;
  last_recv_length = request->size;
  return iRCCE_SUCCESS;
}

/* Cancel: only a request still waiting behind others can go (the head of a
 * queue may already have announced data).  Finished, cancelled or never
 * started requests are not enqueued. */
static int cancel(struct ircce_engine *e, int *test, const char *where) {
  if (test) *test = 0;
  if (e->magic != IRCCE_STARTED || rcce_xfer_done(&e->xfer)) {
    rcce_error(RCCE_DEBUG_COMM, iRCCE_NOT_ENQUEUED, where, "the request is not queued");
    return iRCCE_NOT_ENQUEUED;
  }
  if (!rcce_xfer_cancel(&e->xfer)) return iRCCE_PENDING;
  e->magic = 0;
  if (test) *test = 1;
  return iRCCE_SUCCESS;
}

int iRCCE_isend_cancel(iRCCE_SEND_REQUEST *request, int *test) {
  if (!request) return iRCCE_NOT_ENQUEUED;
  return cancel(ircce_send_engine(request), test, "iRCCE_isend_cancel");
}

int iRCCE_irecv_cancel(iRCCE_RECV_REQUEST *request, int *test) {
  if (!request) return iRCCE_NOT_ENQUEUED;
  struct ircce_engine *e = ircce_recv_engine(request);
  if (e->magic == IRCCE_STARTED && !e->bound && ircce_any_source_cancel(request)) {
    e->magic = 0;
    if (test) *test = 1;
    return iRCCE_SUCCESS;
  }
  return cancel(e, test, "iRCCE_irecv_cancel");
}

int iRCCE_ssend(char *privbuf, ssize_t size, int dest) {
  int rc = check_start(dest, size, "iRCCE_ssend");
  return rc != RCCE_SUCCESS ? rc : RCCE_send(privbuf, (size_t)size, dest);
}

int iRCCE_srecv(char *privbuf, ssize_t size, int source) {
  int rc = check_start(source, size, "iRCCE_srecv");
  if (rc != RCCE_SUCCESS) return rc;
  rc = RCCE_recv(privbuf, (size_t)size, source);
  last_recv_length = (size_t)size;
  return rc;
}

int iRCCE_srecv_test(char *privbuf, ssize_t size, int source, int *test) {
  int rc = check_start(source, size, "iRCCE_srecv_test");
  return rc != RCCE_SUCCESS ? rc : RCCE_recv_test(privbuf, (size_t)size, source, test);
}

int iRCCE_get_dest(iRCCE_SEND_REQUEST *request) { return request ? request->dest : iRCCE_ERROR; }
int iRCCE_get_source(iRCCE_RECV_REQUEST *request) { return request ? request->source : iRCCE_ERROR; }

int iRCCE_get_size(iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq) {
  if (sreq) return (int)sreq->size;
  if (rreq) return (int)rreq->size;
  return iRCCE_ERROR;
}

int iRCCE_get_length(void) { return (int)last_recv_length; }

/* RCCE 2.0's non-blocking messages (RCCE.h; docs/rcce.md "RCCE 2.0's
 * extensions"): RCCE_isend / RCCE_irecv with their test, wait and push
 * calls, added to Intel's RCCE 2.0 at RWTH Aachen.  As iRCCE's requests
 * (ircce/requests.c), a request wraps one resumable transfer of the engine
 * (xfer.c), so it shares the sequence numbers and queues of every pair with
 * the blocking calls and iRCCE: one send queue, one receive queue per
 * source, only heads move.  RCCE's codes: RCCE_SUCCESS once finished,
 * RCCE_PENDING while a request heads its queue, RCCE_RESERVED while it
 * waits behind others. */
#include "rcce_internal.h"

struct rcce_request_engine {
  uint32_t magic; /* REQUEST_STARTED once started */
  struct rcce_xfer_storage xfer;
};

#define REQUEST_STARTED 0x52434532u /* "RCE2" */

_Static_assert(sizeof(struct rcce_request_engine) <= sizeof(long long) * OPENSCC_RCCE_ENGINE_WORDS,
               "RCCE request too small for the transfer state");

static struct rcce_request_engine *engine_of(long long *words) { return (struct rcce_request_engine *)words; }
static struct rcce_xfer *xfer_of(long long *words) { return rcce_xfer_in(&engine_of(words)->xfer); }

/* A request may be started again once finished, not while it is queued. */
static int start_checks(const char *buf, size_t size, int peer, int receiving, long long *words, const char *where) {
  int rc = rcce_check_basic_peer(peer, where);
  if (rc == RCCE_SUCCESS)
    rc = rcce_check_buffer(buf, size, receiving ? RCCE_ERROR_TARGET : RCCE_ERROR_SOURCE, where, "buffer");
  if (rc == RCCE_SUCCESS && words && rcce_xfer_is_queued(xfer_of(words)))
    rc = rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "the request is still pending");
  return rc;
}

/* Start x; `ahead`: requests were queued in front of it. */
static int start(struct rcce_xfer *x, int ahead, int *finished) {
  if (timing_enabled) timing_message_call();
  *finished = rcce_xfer_submit(x);
  if (*finished) return rcce_xfer_error(x);
  return ahead ? RCCE_RESERVED : RCCE_PENDING;
}

/* The state of a started request, for test: RCCE_SUCCESS (or the receive's
 * error) once finished, else RCCE_PENDING / RCCE_RESERVED.  A polling call:
 * a tight loop of tests yields and naps like a blocking wait. */
static int test_state(long long *words, int *finished, int *test, const char *where) {
  if (engine_of(words)->magic != REQUEST_STARTED)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "the request was never started");
  struct rcce_xfer *x = xfer_of(words);
  unsigned long p = rcce_xfer_poll_start();
  *finished = rcce_xfer_done(x);
  rcce_xfer_poll_end(p, *finished, NULL);
  if (test) *test = *finished;
  if (*finished) return rcce_xfer_error(x);
  return rcce_xfer_is_head(x) ? RCCE_PENDING : RCCE_RESERVED;
}

static int wait_for(long long *words, int *finished, const char *where) {
  if (engine_of(words)->magic != REQUEST_STARTED)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "the request was never started");
  rcce_xfer_wait(xfer_of(words));
  *finished = 1;
  return rcce_xfer_error(xfer_of(words));
}

int RCCE_isend(char *privbuf, size_t size, int dest, RCCE_SEND_REQUEST *request) {
  TIMING_SCOPE();
  int rc = start_checks(privbuf, size, dest, 0, request ? request->_openscc_engine : NULL, "RCCE_isend");
  if (rc != RCCE_SUCCESS) return rc;
  if (!request) return RCCE_send(privbuf, size, dest); /* no handle: complete it now */
  *request = (RCCE_SEND_REQUEST){
      .privbuf = privbuf, .combuf = RCCE_buff_ptr, .chunk = RCCE_chunk, .size = size, .dest = dest, .copy = 1};
  engine_of(request->_openscc_engine)->magic = REQUEST_STARTED;
  struct rcce_xfer *x = xfer_of(request->_openscc_engine);
  rcce_xfer_start_basic(x, privbuf, size, dest, 1);
  return start(x, rcce_xfer_sends_queued(), &request->finished);
}

int RCCE_irecv(char *privbuf, size_t size, int source, RCCE_RECV_REQUEST *request) {
  TIMING_SCOPE();
  int rc = start_checks(privbuf, size, source, 1, request ? request->_openscc_engine : NULL, "RCCE_irecv");
  if (rc != RCCE_SUCCESS) return rc;
  if (!request) return RCCE_recv(privbuf, size, source);
  *request = (RCCE_RECV_REQUEST){.privbuf = privbuf,
                                 .combuf = rcce_basic_buffer_of(source),
                                 .chunk = RCCE_chunk,
                                 .size = size,
                                 .source = source,
                                 .copy = 1};
  engine_of(request->_openscc_engine)->magic = REQUEST_STARTED;
  struct rcce_xfer *x = xfer_of(request->_openscc_engine);
  rcce_xfer_start_basic(x, privbuf, size, source, 0);
  return start(x, rcce_xfer_recvs_queued_from(source), &request->finished);
}

int RCCE_isend_test(RCCE_SEND_REQUEST *request, int *test) {
  TIMING_SCOPE();
  if (!request || !test) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_isend_test", "NULL argument");
  return test_state(request->_openscc_engine, &request->finished, test, "RCCE_isend_test");
}

int RCCE_irecv_test(RCCE_RECV_REQUEST *request, int *test) {
  TIMING_SCOPE();
  if (!request || !test) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_irecv_test", "NULL argument");
  return test_state(request->_openscc_engine, &request->finished, test, "RCCE_irecv_test");
}

int RCCE_isend_wait(RCCE_SEND_REQUEST *request) {
  TIMING_SCOPE();
  if (!request) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_isend_wait", "NULL request");
  return wait_for(request->_openscc_engine, &request->finished, "RCCE_isend_wait");
}

int RCCE_irecv_wait(RCCE_RECV_REQUEST *request) {
  TIMING_SCOPE();
  if (!request) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_irecv_wait", "NULL request");
  return wait_for(request->_openscc_engine, &request->finished, "RCCE_irecv_wait");
}

/* Push: move the queues; RCCE_SUCCESS when nothing is left to send (RCCE
 * has one send queue under local-put/remote-get, so dest does not matter),
 * or nothing left to receive from source (any UE's: source < 0). */
int RCCE_isend_push(int dest) {
  TIMING_SCOPE();
  (void)dest;
  unsigned long p = rcce_xfer_poll_start();
  int done = !rcce_xfer_sends_queued();
  rcce_xfer_poll_end(p, done, NULL);
  return done ? RCCE_SUCCESS : RCCE_PENDING;
}

int RCCE_irecv_push(int source) {
  TIMING_SCOPE();
  if (source >= rcce_ue_count()) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_irecv_push", "UE %d", source);
  unsigned long p = rcce_xfer_poll_start();
  int done = source < 0 ? !rcce_xfer_recvs_pending() : !rcce_xfer_recvs_queued_from(source);
  rcce_xfer_poll_end(p, done, NULL);
  return done ? RCCE_SUCCESS : RCCE_PENDING;
}

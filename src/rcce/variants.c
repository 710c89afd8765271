/* RCCE 2.0's variants of the basic interface (RCCE.h; docs/rcce.md "RCCE
 * 2.0's extensions"), on the same engine as RCCE_send / RCCE_recv:
 *   - _pipe: the pipelined protocol (two half-buffer chunks in flight, as
 *     iRCCE_ssend); the receiver follows what the first step says;
 *   - _mcast: RCCE 2.0 put the message once into the sender's MPB for every
 *     other UE of RCCE_COMM_WORLD; here it is RCCE_bcast over that world;
 *   - _tagged: RCCE 2.0 without tagged flags sends the tag (len bytes) as a
 *     message of its own before the data; both ends here do so;
 *   - _cancel: receive the next message from a source and drop it;
 *   - _probe: whether a message from a source waits (RCCE_peek's test). */
#include <stdlib.h>

#include "rcce_internal.h"

int RCCE_send_pipe(char *privbuf, size_t size, int dest) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(dest, "RCCE_send_pipe");
  if (rc == RCCE_SUCCESS) rc = rcce_check_buffer(privbuf, size, RCCE_ERROR_SOURCE, "RCCE_send_pipe", "buffer");
  return rc == RCCE_SUCCESS ? rcce_basic_send(privbuf, size, dest, 1) : rc;
}

int RCCE_recv_pipe(char *privbuf, size_t size, int source) { return RCCE_recv(privbuf, size, source); }

int RCCE_send_mcast(char *privbuf, size_t size) {
  TIMING_SCOPE();
  return RCCE_bcast(privbuf, size, RCCE_COMM_WORLD.my_rank, RCCE_COMM_WORLD);
}

int RCCE_recv_mcast(char *privbuf, size_t size, int source) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_recv_mcast");
  return rc == RCCE_SUCCESS ? RCCE_bcast(privbuf, size, source, RCCE_COMM_WORLD) : rc;
}

static int check_tag(const void *tag, int len, const char *where) {
  if (len < 0 || (len > 0 && !tag))
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where, "tag %p of %d bytes", tag, len);
  return RCCE_SUCCESS;
}

int RCCE_send_tagged(char *privbuf, size_t size, int dest, void *tag, int len) {
  TIMING_SCOPE();
  int rc = check_tag(tag, len, "RCCE_send_tagged");
  if (rc == RCCE_SUCCESS) rc = RCCE_send(tag, (size_t)len, dest);
  return rc == RCCE_SUCCESS ? RCCE_send(privbuf, size, dest) : rc;
}

int RCCE_recv_tagged(char *privbuf, size_t size, int source, void *tag, int len) {
  TIMING_SCOPE();
  int rc = check_tag(tag, len, "RCCE_recv_tagged");
  if (rc == RCCE_SUCCESS) rc = RCCE_recv(tag, (size_t)len, source);
  return rc == RCCE_SUCCESS ? RCCE_recv(privbuf, size, source) : rc;
}

int RCCE_recv_cancel(size_t size, int source) {
  TIMING_SCOPE();
  char *scratch = malloc(size ? size : 1);
  if (!scratch) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_recv_cancel", "%zu bytes", size);
  int rc = RCCE_recv(scratch, size, source);
  free(scratch);
  return rc;
}

/* One look: 1 when a message from source waits that no queued receive takes
 * (a polling call, as RCCE_recv_test: a loop of them yields and naps). */
static int message_waiting(int source) {
  struct rcce_link l = rcce_basic_recv_link(source);
  unsigned long p = rcce_xfer_poll_start();
  int waiting = rcce_xfer_unclaimed(&l, source);
  rcce_xfer_poll_end(p, waiting, &l);
  return waiting;
}

int RCCE_recv_probe(int source, int *test, t_vcharp *combuf) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_recv_probe");
  if (rc != RCCE_SUCCESS) return rc;
  int waiting = message_waiting(source);
  while (!test && !waiting) waiting = message_waiting(source);
  if (test) *test = waiting;
  /* Local put / remote get: the first chunk lies in the sender's buffer. */
  if (combuf && waiting) *combuf = rcce_basic_buffer_of(source);
  return RCCE_SUCCESS;
}

/* The tag is the first of the two messages RCCE_send_tagged sends: once one
 * waits, it is received into tag, and the probe waits for the data's. */
int RCCE_recv_probe_tagged(int source, int *test, t_vcharp *combuf, void *tag, int len) {
  TIMING_SCOPE();
  int rc = check_tag(tag, len, "RCCE_recv_probe_tagged");
  int waiting = 0;
  if (rc == RCCE_SUCCESS) rc = RCCE_recv_probe(source, &waiting, NULL);
  if (rc == RCCE_SUCCESS && !test && !waiting) rc = RCCE_recv_probe(source, NULL, NULL), waiting = 1;
  if (test) *test = waiting;
  if (rc != RCCE_SUCCESS || !waiting) return rc;
  rc = RCCE_recv(tag, (size_t)len, source);
  return rc == RCCE_SUCCESS ? RCCE_recv_probe(source, NULL, combuf) : rc;
}

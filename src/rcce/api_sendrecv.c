/* Public RCCE_send / RCCE_recv / RCCE_recv_test: the basic interface (library
 * flags and send buffer) and the gory one (caller's buffer and flags), in
 * both flag forms.  All land on rcce_send_general / rcce_recv_general. */
#include "../openscc_api.h"
#include "rcce_internal.h"

int rcce_check_basic_peer(int peer, const char *where) {
  int rc = rcce_check_ue(peer, where);
  if (rc == RCCE_SUCCESS && peer == rcce_g.ue)
    rc = rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "UE %d cannot message itself (RCCE send is synchronous)",
                    peer);
  if (rc == RCCE_SUCCESS && (!rcce_g.initialized || rcce_g.gory))
    rc = rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, where, "RCCE_init of the basic interface not done");
  return rc;
}

int RCCE_send(char *privbuf, size_t size, int dest) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(dest, "RCCE_send");
  if (rc != RCCE_SUCCESS) return rc;
  if (!privbuf && size) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_SOURCE, "RCCE_send", "NULL buffer");
  struct rcce_link l = rcce_basic_send_link(dest); /* rcce_basic_send, one call less on the fast path */
  return rcce_send_general(privbuf, rcce_basic_buff_off(), RCCE_chunk, &l, size, dest, 0);
}

int RCCE_recv(char *privbuf, size_t size, int source) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_recv");
  if (rc != RCCE_SUCCESS) return rc;
  if (!privbuf && size) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_recv", "NULL buffer");
  struct rcce_link l = rcce_basic_recv_link(source); /* rcce_basic_recv, one call less on the fast path */
  return rcce_recv_general(privbuf, rcce_basic_buff_off(), RCCE_chunk, &l, size, source, NULL);
}

int RCCE_recv_test(char *privbuf, size_t size, int source, int *test) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_recv_test");
  if (rc != RCCE_SUCCESS) return rc;
  if ((!privbuf && size) || !test)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_recv_test", "NULL buffer or test pointer");
  return rcce_basic_recv(privbuf, size, source, test);
}

int RCCE_peek(char *privbuf, size_t size, int source) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_peek");
  if (rc != RCCE_SUCCESS) return rc;
  if (!privbuf && size) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_peek", "NULL buffer");
  return rcce_peek_general(privbuf, size, source);
}

int RCCE_peek_size(int source, size_t *size) {
  TIMING_SCOPE();
  int rc = rcce_check_basic_peer(source, "RCCE_peek_size");
  if (rc != RCCE_SUCCESS) return rc;
  if (!size) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_peek_size", "NULL size pointer");
  return rcce_peek_size_general(source, size);
}

/* --- gory interface ---------------------------------------------------- */

struct gory_args {
  uint32_t comb_off;
  struct rcce_link link; /* the caller's flags, SET/UNSET protocol */
};

static int gory_check(const char *where, int peer, t_vcharp combuf, size_t chunk, int ready_rc, int sent_rc,
                      struct gory_args *g) {
  int rc = rcce_check_ue(peer, where);
  if (rc != RCCE_SUCCESS) return rc;
  if (peer == rcce_g.ue) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "UE %d cannot message itself", peer);
  unsigned char *mine = (unsigned char *)RCCE_comm_buffer[rcce_g.ue];
  if (!combuf || (unsigned char *)combuf < mine || (unsigned char *)combuf + chunk > mine + rcce_g.mpb_bytes)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, where, "comm buffer not inside my MPB");
  if (chunk == 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where, "chunk size 0");
  if (ready_rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, ready_rc, where, "ready flag not usable");
  if (sent_rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_SYNCH, sent_rc, where, "sent flag not usable");
  g->comb_off = (uint32_t)((unsigned char *)combuf - mine);
  return RCCE_SUCCESS;
}

static int from_big_ptr(RCCE_FLAG *f, struct rcce_iflag *out) {
  return f ? rcce_iflag_from_big(*f, out) : RCCE_ERROR_FLAG_UNDEFINED;
}

#define GORY_PROLOGUE(where, peer, CONVERT)                                                                        \
  TIMING_SCOPE();                                                                                                  \
  struct gory_args g = {.link.seq = NULL};                                                                         \
  int rc = gory_check(where, peer, combuf, chunk, CONVERT(ready, &g.link.ready), CONVERT(sent, &g.link.sent), &g); \
  if (rc != RCCE_SUCCESS) return rc

/* The -DGORY names (RCCE.h), exported: not declared in this build. */
OPENSCC_API int RCCE_send_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent,
                               size_t size, int dest);
OPENSCC_API int RCCE_recv_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent,
                               size_t size, int source);
OPENSCC_API int RCCE_recv_test_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent,
                                    size_t size, int source, int *test);
OPENSCC_API int RCCE_send_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready,
                                         rcce_sbflag *sent, size_t size, int dest);
OPENSCC_API int RCCE_recv_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready,
                                         rcce_sbflag *sent, size_t size, int source);
OPENSCC_API int RCCE_recv_test_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready,
                                              rcce_sbflag *sent, size_t size, int source, int *test);

int RCCE_send_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size,
                   int dest) {
  GORY_PROLOGUE("RCCE_send", dest, from_big_ptr);
  return rcce_send_general(privbuf, g.comb_off, chunk, &g.link, size, dest, 0);
}

int RCCE_recv_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size,
                   int source) {
  GORY_PROLOGUE("RCCE_recv", source, from_big_ptr);
  return rcce_recv_general(privbuf, g.comb_off, chunk, &g.link, size, source, NULL);
}

int RCCE_recv_test_gory(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size,
                        int source, int *test) {
  GORY_PROLOGUE("RCCE_recv_test", source, from_big_ptr);
  if (!test) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_recv_test", "NULL test pointer");
  return rcce_recv_general(privbuf, g.comb_off, chunk, &g.link, size, source, test);
}

int RCCE_send_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready, rcce_sbflag *sent,
                             size_t size, int dest) {
  GORY_PROLOGUE("RCCE_send", dest, rcce_iflag_from_sb);
  return rcce_send_general(privbuf, g.comb_off, chunk, &g.link, size, dest, 0);
}

int RCCE_recv_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready, rcce_sbflag *sent,
                             size_t size, int source) {
  GORY_PROLOGUE("RCCE_recv", source, rcce_iflag_from_sb);
  return rcce_recv_general(privbuf, g.comb_off, chunk, &g.link, size, source, NULL);
}

int RCCE_recv_test_gory_singlebit(char *privbuf, t_vcharp combuf, size_t chunk, rcce_sbflag *ready, rcce_sbflag *sent,
                                  size_t size, int source, int *test) {
  GORY_PROLOGUE("RCCE_recv_test", source, rcce_iflag_from_sb);
  if (!test) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_recv_test", "NULL test pointer");
  return rcce_recv_general(privbuf, g.comb_off, chunk, &g.link, size, source, test);
}

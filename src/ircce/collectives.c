/* iRCCE 2.0's collectives.  iRCCE_msend is a multicast: under local put a
 * message that fits the send buffer is copied in once and announced to every
 * other UE at the same time, each of which takes it with an ordinary receive
 * (iRCCE_mrecv); otherwise it is one synchronous send per UE. */
#include <stdlib.h>
#include <string.h>

#include "ircce_internal.h"

int iRCCE_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm ? comm : &RCCE_COMM_WORLD); }

int iRCCE_bcast(char *buf, size_t size, int root, RCCE_COMM comm) { return RCCE_bcast(buf, size, root, comm); }

struct acks {
  struct rcce_link *links;
  int *value;
};

static int all_acked(void *p) {
  const struct acks *a = p;
  for (int u = 0; u < rcce_g.nue; u++)
    if (u != rcce_g.ue && !rcce_link_reached(&a->links[u], a->links[u].ready, a->value[u])) return 0;
  return 1;
}

static int multicast(const char *buf, size_t size) {
  struct rcce_link *links = calloc((size_t)rcce_g.nue, sizeof *links);
  int *value = calloc((size_t)rcce_g.nue, sizeof *value);
  if (!links || !value) {
    free(links), free(value);
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "iRCCE_msend", "out of memory");
  }
  struct rcce_msg_info m = {.size = size, .sender_addr = (uint64_t)(uintptr_t)buf};
  rcce_mpb_write(RCCE_buff_ptr, buf, size);
  for (int u = 0; u < rcce_g.nue; u++) {
    if (u == rcce_g.ue) continue;
    rcce_count_message(1, u, size);
    links[u] = rcce_basic_send_link(u);
    value[u] = rcce_link_announce(&links[u], u, &m, NULL);
  }
  struct acks a = {links, value};
  struct hw_wait_desc why = {.kind = HW_WAIT_SEND, .peer = (rcce_g.ue + 1) % rcce_g.nue};
  if (!all_acked(&a)) hw_wait_cond(&rcce_g.job, rcce_g.ue, all_acked, &a, &why);
  for (int u = 0; timing_enabled && u < rcce_g.nue; u++)
    if (u != rcce_g.ue) rcce_iflag_seen(links[u].ready, rcce_g.ue);
  free(links), free(value);
  return RCCE_SUCCESS;
}

int iRCCE_msend(char *privbuf, ssize_t size) {
  TIMING_SCOPE();
  if (size < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "iRCCE_msend", "size %zd", size);
  int rc = rcce_check_buffer(privbuf, (size_t)size, RCCE_ERROR_SOURCE, "iRCCE_msend", "buffer");
  if (rc != RCCE_SUCCESS) return rc;
  if (!rcce_g.initialized || rcce_g.gory)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "iRCCE_msend", "RCCE_init of the basic interface not done");
  if (size == 0 || rcce_g.nue == 1) return iRCCE_SUCCESS;
  struct rcce_link any = rcce_basic_send_link((rcce_g.ue + 1) % rcce_g.nue);
  if (!rcce_g.queued && !rcce_g.rplg && !rcce_link_tagged(&any, (size_t)size) && (size_t)size <= RCCE_chunk)
    return multicast(privbuf, (size_t)size);
  for (int i = 1; i < rcce_g.nue && rc == iRCCE_SUCCESS; i++) rc = iRCCE_ssend(privbuf, size, (rcce_g.ue + i) % rcce_g.nue);
  return rc;
}

int iRCCE_mrecv(char *privbuf, ssize_t size, int source) {
  int rc = size > 0 ? rcce_check_buffer(privbuf, (size_t)size, RCCE_ERROR_TARGET, "iRCCE_mrecv", "buffer") : RCCE_SUCCESS;
  return rc != RCCE_SUCCESS ? rc : iRCCE_srecv(privbuf, size, source);
}

int iRCCE_mcast(char *buf, size_t size, int root) {
  TIMING_SCOPE();
  int rc = rcce_check_ue(root, "iRCCE_mcast");
  if (rc != RCCE_SUCCESS) return rc;
  return root == rcce_g.ue ? iRCCE_msend(buf, (ssize_t)size) : iRCCE_mrecv(buf, (ssize_t)size, root);
}

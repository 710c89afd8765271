/*
 * The blocking message calls: synchronous send/recv through the MPB.  RCCE's
 * local-put/remote-get scheme ([SCC-2BOARD] sec. IV (docs/references.md)): the sender copies a
 * chunk into its own MPB and sets the "sent" flag in the receiver's MPB; the
 * receiver copies the chunk out of the sender's MPB and sets the "ready"
 * flag in the sender's MPB.  RCCE_send returns only when the receiver has
 * the data.  With tagged flags a short message travels in the sent flag's
 * line itself ([SCC-2BOARD] sec. V).
 *
 * The calls of the basic interface (library flags and send buffer) land on
 * rcce_send_general / rcce_recv_general, which run one transfer of the
 * engine (xfer.c): the same step functions as the non-blocking requests.
 * iRCCE_msend's multicast is here too: one copy, many first steps.
 */
#include <stdlib.h>

#include "rcce_internal.h"

int rcce_basic_send(const char *priv, size_t size, int dest, int pipelined) {
  struct rcce_link l = rcce_basic_send_link(dest);
  return rcce_send_general(priv, rcce_basic_buff_off(), RCCE_chunk, &l, size, dest, pipelined);
}

int rcce_basic_recv(char *priv, size_t size, int src, int *test) {
  struct rcce_link l = rcce_basic_recv_link(src);
  return rcce_recv_general(priv, rcce_basic_buff_off(), RCCE_chunk, &l, size, src, test);
}

/* --- multicast (iRCCE_msend) ---------------------------------------------- */

int rcce_multicast_possible(size_t size) {
  struct rcce_link any = rcce_basic_send_link((rcce_g.ue + 1) % rcce_g.nue);
  return !rcce_g.queued && !rcce_g.rplg && !rcce_link_tagged(&any, size) && size <= RCCE_chunk;
}

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

/* The message is copied in once and each receiver's first step announced at
 * the same time; the call returns when every receiver acknowledged it. */
int rcce_multicast(const char *buf, size_t size) {
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
    rcce_counters_add_message(1, u, size);
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

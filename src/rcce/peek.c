/*
 * RCCE_peek ([RUBY-2011] (docs/references.md), Ruby on SCC): the first bytes of the next message
 * from a source, which stays pending.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/uio.h>

#include "rcce_internal.h"

/* The bytes lie in the sent flag's line (tagged), in the sender's buffer
 * (local put, first chunk), or only in the sender's private memory (remote
 * put before the grant, single-copy): read there directly. */
/* The header of the next message from src, which stays pending: 1 when
 * none is waiting. */
static int waiting_header(int src, struct rcce_link *l, struct rcce_msg_info *m, const char *where) {
  *l = rcce_basic_recv_link(src);
  /* A polling call, as RCCE_recv_test: fruitless ones in a row spend the
   * wait budget (hw/wait.h) and, in model mode, stop the clock until the
   * next call (docs/model.md "Contention"). */
  unsigned long p = rcce_xfer_poll_start();
  int waiting = rcce_xfer_unclaimed(l, src);
  rcce_xfer_poll_end(p, waiting, l);
  if (!waiting) return 1;
  if (!rcce_link_has_header(l))
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_FLAG_UNDEFINED, where,
                      "peeking needs the message size in the flag line: big flags, not -DSINGLEBITFLAGS");
  rcce_link_header(l, m);
  return RCCE_SUCCESS;
}

int rcce_peek_size_general(int src, size_t *size) {
  struct rcce_link l;
  struct rcce_msg_info m = {0};
  int rc = waiting_header(src, &l, &m, "RCCE_peek_size");
  if (rc == RCCE_SUCCESS) *size = m.size;
  return rc;
}

int rcce_peek_general(char *priv, size_t n, int src) {
  struct rcce_link l;
  struct rcce_msg_info m = {0};
  int rc = waiting_header(src, &l, &m, "RCCE_peek");
  if (rc != RCCE_SUCCESS) return rc;
  if (n > m.size) return rcce_length_error("RCCE_peek", src, m.size, n);
  if (m.tagged) {
    rcce_link_tag_copy(&l, priv, n);
    return RCCE_SUCCESS;
  }
  size_t first = m.mode & RCCE_MSG_PIPELINED ? rcce_pipeline_half(RCCE_chunk) : RCCE_chunk;
  if (!rcce_g.rplg && !(m.mode & RCCE_MSG_SINGLE_COPY) && n <= first) {
    rcce_mpb_read(priv, rcce_mpb_of(src) + rcce_basic_buff_off(), n);
    return RCCE_SUCCESS;
  }
  struct iovec local = {priv, n}, remote = {(void *)(uintptr_t)m.sender_addr, n};
  if (process_vm_readv(hw_ue(&rcce_g.job, src)->pid, &local, 1, &remote, 1, 0) == (ssize_t)n) return RCCE_SUCCESS;
  return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_peek",
                    "cannot read %zu bytes of UE %d's message beyond its first chunk (cross-process copy refused)", n,
                    src);
}

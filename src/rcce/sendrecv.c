/*
 * The RCCE transfer engine: synchronous send/recv through the MPB with the
 * local-put/remote-get scheme (seed 004 section IV): the sender copies a
 * chunk into its own MPB and sets the "sent" flag in the receiver's MPB; the
 * receiver copies the chunk out of the sender's MPB and sets the "ready" flag
 * in the sender's MPB.  RCCE_send returns only when the receiver has the data.
 *
 * Native mode may move a large message with one cross-process copy
 * (single_copy.c) instead of chunks; the handshake stays the same, so the
 * synchronous semantics hold.
 */
#include <string.h>

#include "rcce_internal.h"
#include "single_copy.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_iflag ready,
                      struct rcce_iflag sent, size_t size, int dest) {
  unsigned char *combuf = rcce_mpb_of(rcce_g.ue) + comb_off;
  struct hw_wait_desc why = {.kind = HW_WAIT_SEND, .peer = dest};
  struct hw_counters *cnt = rcce_counters();
  cnt->msgs_sent++;
  cnt->bytes_sent += size;
  size_t done = 0;
  if (rcce_single_copy_wanted(size, chunk)) {
    if (rcce_single_copy_send(priv, combuf, ready, sent, size, dest)) return RCCE_SUCCESS;
  }
  while (done < size) {
    size_t n = min_size(chunk, size - done);
    memcpy(combuf, priv + done, n);
    rcce_iflag_write(sent, RCCE_FLAG_SET, dest);
    rcce_iflag_wait(ready, RCCE_FLAG_SET, &why);
    rcce_iflag_write(ready, RCCE_FLAG_UNSET, rcce_g.ue);
    done += n;
  }
  return RCCE_SUCCESS;
}

int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_iflag ready,
                      struct rcce_iflag sent, size_t size, int src, int *test) {
  if (test) {
    *test = size == 0 || rcce_iflag_read(sent, rcce_g.ue);
    if (!*test) return RCCE_SUCCESS;
  }
  const unsigned char *combuf = rcce_mpb_of(src) + comb_off;
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = src};
  struct hw_counters *cnt = rcce_counters();
  cnt->msgs_recv++;
  cnt->bytes_recv += size;
  size_t done = 0;
  if (rcce_single_copy_wanted(size, chunk)) {
    if (rcce_single_copy_recv(priv, combuf, ready, sent, size, src)) return RCCE_SUCCESS;
  }
  while (done < size) {
    size_t n = min_size(chunk, size - done);
    rcce_iflag_wait(sent, RCCE_FLAG_SET, &why);
    rcce_iflag_write(sent, RCCE_FLAG_UNSET, rcce_g.ue);
    memcpy(priv + done, combuf, n);
    rcce_iflag_write(ready, RCCE_FLAG_SET, src);
    done += n;
  }
  return RCCE_SUCCESS;
}

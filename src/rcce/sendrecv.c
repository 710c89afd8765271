/*
 * The RCCE transfer engine: synchronous send/recv through the MPB with the
 * local-put/remote-get scheme (seed 004 section IV): the sender copies a
 * chunk into its own MPB and sets the "sent" flag in the receiver's MPB; the
 * receiver copies the chunk out of the sender's MPB and sets the "ready" flag
 * in the sender's MPB.  RCCE_send returns only when the receiver has the data.
 *
 * Native mode may move a large message with cross-process copies
 * (single_copy.c) instead of chunks; the handshakes stay, so the synchronous
 * semantics hold.  This file is the straight-line fast path; xfer.c is the
 * same protocol in resumable steps, used when requests are queued.
 */
#include <string.h>

#include "rcce_internal.h"
#include "single_copy.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* With requests queued, or for a single-copy message, the blocking call
 * becomes a queued transfer it waits for: messages stay in order and queued
 * requests keep moving while it waits. */
static int via_queue(char *priv, unsigned char *combuf, size_t chunk, struct rcce_link *l, size_t size, int peer,
                     int sending) {
  struct rcce_xfer x;
  rcce_xfer_start(&x, priv, size, combuf, chunk, l, peer, sending);
  if (!rcce_xfer_submit(&x)) rcce_xfer_wait(&x);
  return RCCE_SUCCESS;
}

int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size,
                      int dest) {
  unsigned char *combuf = rcce_mpb_of(rcce_g.ue) + comb_off;
  if (rcce_g.queued || rcce_single_copy_wanted(size, chunk))
    return via_queue((char *)priv, combuf, chunk, l, size, dest, 1);
  rcce_count_message(1, size, 1);
  for (size_t done = 0; done < size;) {
    size_t n = min_size(chunk, size - done);
    memcpy(combuf, priv + done, n);
    rcce_link_send_step(l, dest);
    done += n;
  }
  return RCCE_SUCCESS;
}

int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int src,
                      int *test) {
  if (test) {
    rcce_xfer_progress();
    /* a message from src belongs to the requests queued before this call */
    *test = size == 0 || (!rcce_g.recv_queue[src] && rcce_iflag_read(l->sent, rcce_g.ue) == rcce_link_next_value(l));
    if (!*test) return RCCE_SUCCESS;
  }
  const unsigned char *combuf = rcce_mpb_of(src) + comb_off;
  if (rcce_g.queued || rcce_single_copy_wanted(size, chunk))
    return via_queue(priv, (unsigned char *)combuf, chunk, l, size, src, 0);
  rcce_count_message(0, size, 1);
  for (size_t done = 0; done < size;) {
    size_t n = min_size(chunk, size - done);
    rcce_link_recv_wait(l, src);
    memcpy(priv + done, combuf, n);
    rcce_link_recv_ack(l, src);
    done += n;
  }
  return RCCE_SUCCESS;
}

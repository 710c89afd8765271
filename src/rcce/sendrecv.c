/*
 * The blocking message calls: synchronous send/recv through the MPB.  RCCE's
 * local-put/remote-get scheme (seed 004 section IV): the sender copies a
 * chunk into its own MPB and sets the "sent" flag in the receiver's MPB; the
 * receiver copies the chunk out of the sender's MPB and sets the "ready"
 * flag in the sender's MPB.  RCCE_send returns only when the receiver has
 * the data.  With tagged flags a short message travels in the sent flag's
 * line itself (seed 004 section V).
 *
 * This file is the straight-line fast path for those two cases; everything
 * else (requests queued, remote-put/local-get, pipelined or single-copy
 * messages) runs as a queued transfer of xfer.c, the same protocol in
 * resumable steps.
 */
#include <string.h>

#include "rcce_internal.h"
#include "single_copy.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The blocking call becomes a queued transfer it waits for: messages stay
 * in order and queued requests keep moving while it waits. */
static int via_queue(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int peer,
                     int sending, int pipelined) {
  struct rcce_xfer x;
  rcce_xfer_start(&x, priv, size, comb_off, chunk, l, peer, sending, pipelined);
  if (!rcce_xfer_submit(&x)) rcce_xfer_wait(&x);
  return x.error ? x.error : RCCE_SUCCESS;
}

int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size,
                      int dest, int pipelined) {
  if (timing_enabled) timing_message_call();
  int tagged = rcce_link_tagged(l, size);
  if (rcce_g.queued || (rcce_g.rplg && !tagged) || rcce_single_copy_wanted(size, chunk) ||
      (pipelined && size > chunk))
    return via_queue((char *)priv, comb_off, chunk, l, size, dest, 1, pipelined);
  if (size == 0) return RCCE_SUCCESS; /* nothing travels */
  rcce_count_message(1, dest, size);
  struct rcce_msg_info m = {.size = size, .tagged = tagged, .sender_addr = (uint64_t)(uintptr_t)priv};
  if (tagged) {
    rcce_link_send_step(l, dest, &m, priv);
    return RCCE_SUCCESS;
  }
  unsigned char *combuf = rcce_mpb_of(rcce_g.ue) + comb_off;
  for (size_t done = 0; done < size;) {
    size_t n = min_size(chunk, size - done);
    rcce_mpb_write(combuf, priv + done, n);
    rcce_link_send_step(l, dest, &m, NULL);
    done += n;
  }
  return RCCE_SUCCESS;
}

void rcce_first_step_info(const struct rcce_link *l, size_t size, size_t chunk, struct rcce_msg_info *m) {
  if (rcce_link_has_header(l)) rcce_link_header(l, m);
  else *m = (struct rcce_msg_info){.size = size, .mode = rcce_single_copy_wanted(size, chunk) ? RCCE_MSG_SINGLE_COPY : 0};
}

int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int src,
                      int *test) {
  if (timing_enabled) timing_message_call();
  if (test) { /* a polling call (rcce_xfer_poll_start/end) */
    unsigned long p = rcce_xfer_poll_start();
    /* a message from src belongs to the requests queued before this call */
    *test = size == 0 || (!rcce_g.recv_queue[src] && rcce_link_waiting(l));
    rcce_xfer_poll_end(p, *test, l);
    if (!*test) return RCCE_SUCCESS;
  }
  if (rcce_g.queued) return via_queue(priv, comb_off, chunk, l, size, src, 0, 0);
  if (size == 0) return RCCE_SUCCESS;
  rcce_link_recv_wait(l, src);
  struct rcce_msg_info m;
  rcce_first_step_info(l, size, chunk, &m);
  if (size == RCCE_ANY_LENGTH_INTERNAL) size = m.size;
  else if (m.size != size) return rcce_length_error("RCCE_recv", src, m.size, size); /* left pending */
  if (rcce_g.rplg || m.mode) return via_queue(priv, comb_off, chunk, l, size, src, 0, 0);
  rcce_count_message(0, src, size);
  rcce_g.last_recv_size = size;
  if (m.tagged) {
    rcce_link_tag_copy(l, priv, size);
    rcce_link_recv_take(l);
    rcce_link_recv_ack(l, src);
    return RCCE_SUCCESS;
  }
  const unsigned char *combuf = rcce_mpb_of(src) + comb_off;
  for (size_t done = 0; done < size;) {
    size_t n = min_size(chunk, size - done);
    if (done) rcce_link_recv_wait(l, src);
    rcce_link_recv_take(l);
    rcce_mpb_read(priv + done, combuf, n);
    rcce_link_recv_ack(l, src);
    done += n;
  }
  return RCCE_SUCCESS;
}

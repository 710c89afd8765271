/*
 * The RCCE transfer engine: synchronous send/recv through the MPB with the
 * local-put/remote-get scheme (seed 004 section IV): the sender copies a
 * chunk into its own MPB and sets the "sent" flag in the receiver's MPB; the
 * receiver copies the chunk out of the sender's MPB and sets the "ready" flag
 * in the sender's MPB.  RCCE_send returns only when the receiver has the data.
 *
 * Native mode may move a large message with cross-process copies
 * (single_copy.c) instead of chunks; the handshakes stay, so the synchronous
 * semantics hold.
 */
#include <string.h>

#include "rcce_internal.h"
#include "single_copy.h"

/* The value a flag holds after chunk k: the number itself in a big flag,
 * its parity in a single bit (the protocol never lets two chunks overlap). */
static int seq_value(const struct rcce_link *l, uint32_t k) { return l->sent.bit < 0 ? (int)k : (int)(k & 1); }

void rcce_link_send_step(struct rcce_link *l, int dest) {
  struct hw_wait_desc why = {.kind = HW_WAIT_SEND, .peer = dest};
  if (l->seq) {
    int v = seq_value(l, ++*l->seq);
    rcce_iflag_write(l->sent, v, dest);
    rcce_iflag_wait(l->ready, v, &why);
  } else {
    rcce_iflag_write(l->sent, RCCE_FLAG_SET, dest);
    rcce_iflag_wait(l->ready, RCCE_FLAG_SET, &why);
    rcce_iflag_write(l->ready, RCCE_FLAG_UNSET, rcce_g.ue);
  }
}

void rcce_link_recv_wait(struct rcce_link *l, int src) {
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = src};
  if (l->seq) {
    rcce_iflag_wait(l->sent, seq_value(l, ++*l->seq), &why);
  } else {
    rcce_iflag_wait(l->sent, RCCE_FLAG_SET, &why);
    rcce_iflag_write(l->sent, RCCE_FLAG_UNSET, rcce_g.ue);
  }
}

void rcce_link_recv_ack(struct rcce_link *l, int src) {
  rcce_iflag_write(l->ready, l->seq ? seq_value(l, *l->seq) : RCCE_FLAG_SET, src);
}

int rcce_link_recv_ready(const struct rcce_link *l) {
  return rcce_iflag_read(l->sent, rcce_g.ue) == (l->seq ? seq_value(l, *l->seq + 1) : RCCE_FLAG_SET);
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size,
                      int dest) {
  unsigned char *combuf = rcce_mpb_of(rcce_g.ue) + comb_off;
  struct hw_counters *cnt = rcce_counters();
  cnt->msgs_sent++;
  cnt->bytes_sent += size;
  if (rcce_single_copy_wanted(size, chunk) && rcce_single_copy_send(priv, combuf, l, size, dest)) return RCCE_SUCCESS;
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
    *test = size == 0 || rcce_link_recv_ready(l);
    if (!*test) return RCCE_SUCCESS;
  }
  const unsigned char *combuf = rcce_mpb_of(src) + comb_off;
  struct hw_counters *cnt = rcce_counters();
  cnt->msgs_recv++;
  cnt->bytes_recv += size;
  if (rcce_single_copy_wanted(size, chunk) && rcce_single_copy_recv(priv, combuf, l, size, src)) return RCCE_SUCCESS;
  for (size_t done = 0; done < size;) {
    size_t n = min_size(chunk, size - done);
    rcce_link_recv_wait(l, src);
    memcpy(priv + done, combuf, n);
    rcce_link_recv_ack(l, src);
    done += n;
  }
  return RCCE_SUCCESS;
}

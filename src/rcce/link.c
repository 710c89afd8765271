/* Link steps of the transfer protocol (rcce_internal.h, struct rcce_link). */
#include "rcce_internal.h"

/* The value a flag holds after step k: the number itself in a big flag, its
 * parity in a single bit (the protocol never lets two steps overlap). */
static int seq_value(const struct rcce_link *l, uint32_t k) { return l->sent.bit < 0 ? (int)k : (int)(k & 1); }

int rcce_link_announce(struct rcce_link *l, int dest) {
  int v = l->seq ? seq_value(l, ++*l->seq) : RCCE_FLAG_SET;
  rcce_iflag_write(l->sent, v, dest);
  return v;
}

int rcce_link_next_value(const struct rcce_link *l) { return l->seq ? seq_value(l, *l->seq + 1) : RCCE_FLAG_SET; }

/* Gory flags are reset by their owner once seen; sequence numbers are not. */
static void consume(struct rcce_iflag f, const struct rcce_link *l) {
  if (!l->seq) rcce_iflag_write(f, RCCE_FLAG_UNSET, rcce_g.ue);
}

int rcce_link_acked(struct rcce_link *l, int ack_value) {
  if (rcce_iflag_read(l->ready, rcce_g.ue) != ack_value) return 0;
  consume(l->ready, l);
  return 1;
}

int rcce_link_arrived(struct rcce_link *l) {
  if (rcce_iflag_read(l->sent, rcce_g.ue) != rcce_link_next_value(l)) return 0;
  if (l->seq) ++*l->seq;
  consume(l->sent, l);
  return 1;
}

void rcce_link_send_step(struct rcce_link *l, int dest) {
  struct hw_wait_desc why = {.kind = HW_WAIT_SEND, .peer = dest};
  int v = rcce_link_announce(l, dest);
  rcce_iflag_wait(l->ready, v, &why);
  consume(l->ready, l);
}

void rcce_link_recv_wait(struct rcce_link *l, int src) {
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = src};
  int v = rcce_link_next_value(l);
  if (l->seq) ++*l->seq;
  rcce_iflag_wait(l->sent, v, &why);
  consume(l->sent, l);
}

void rcce_link_recv_ack(struct rcce_link *l, int src) {
  rcce_iflag_write(l->ready, l->seq ? seq_value(l, *l->seq) : RCCE_FLAG_SET, src);
}

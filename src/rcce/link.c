/*
 * Link steps of the transfer protocol (rcce_internal.h, struct rcce_link).
 *
 * Basic-interface big sent flag, one 32-byte line written by the sender only:
 *   word 0   bits 0-23: step sequence number; bits 24-31: tagged length
 *   tagged   bytes 4-31: the whole message (at most RCCE_TAG_BYTES)
 *   else     bytes 4-11: message size, 12-15: mode (RCCE_MSG_*),
 *            16-23: the message's address in the sender (RCCE_peek)
 * The rest of the line is written before word 0 (release), so a receiver
 * that sees the step sees its header: the size travels with the signal as
 * with iRCCE's tagged flags ([SCC-2BOARD] sec. V (docs/references.md)), which is what
 * iRCCE_ANY_LENGTH, RCCE_peek and size checks need.  Single-bit flags carry
 * no header.
 */
#include <string.h>

#include "rcce_internal.h"

#define TAG_SHIFT 24

struct sent_header {
  uint32_t word, size_lo, size_hi, mode;
  uint64_t sender_addr;
};
_Static_assert(sizeof(struct sent_header) <= RCCE_LINE_SIZE, "header must fit a flag line");

static unsigned char *sent_line(const struct rcce_link *l, int ue) { return rcce_mpb_of(ue) + l->sent.off; }

int rcce_link_announce(struct rcce_link *l, int dest, const struct rcce_msg_info *m, const void *tag) {
  int v = l->seq ? rcce_link_seq_value(l, ++*l->seq) : RCCE_FLAG_SET;
  if (rcce_link_has_header(l) && m) {
    unsigned char *line = sent_line(l, dest);
    if (tag) {
      memcpy(line + 4, tag, m->size);
      v |= (int)(m->size << TAG_SHIFT);
    } else {
      struct sent_header *h = (struct sent_header *)line;
      h->size_lo = (uint32_t)m->size;
      h->size_hi = (uint32_t)((uint64_t)m->size >> 32);
      h->mode = m->mode;
      h->sender_addr = m->sender_addr;
    }
  }
  rcce_iflag_write(l->sent, v, dest);
  return v & (int)RCCE_SEQ_MASK;
}

void rcce_link_header(const struct rcce_link *l, struct rcce_msg_info *m) {
  const struct sent_header *h = (const struct sent_header *)sent_line(l, rcce_g.ue);
  uint32_t tag = (uint32_t)rcce_iflag_read(l->sent, rcce_g.ue) >> TAG_SHIFT;
  memset(m, 0, sizeof *m);
  m->tagged = tag != 0;
  m->size = tag ? tag : (size_t)h->size_lo | (size_t)((uint64_t)h->size_hi << 32);
  if (!tag) {
    m->mode = h->mode;
    m->sender_addr = h->sender_addr;
  }
}

void rcce_link_tag_copy(const struct rcce_link *l, void *dst, size_t n) { memcpy(dst, sent_line(l, rcce_g.ue) + 4, n); }

/* Gory flags are reset by their owner once seen; sequence numbers are not. */
static void consume(struct rcce_iflag f, const struct rcce_link *l) {
  if (timing_enabled) rcce_iflag_seen(f, rcce_g.ue);
  if (!l->seq) rcce_iflag_write(f, RCCE_FLAG_UNSET, rcce_g.ue);
}

int rcce_link_acked(struct rcce_link *l, int ack_value) {
  if (!rcce_link_reached(l, l->ready, ack_value)) return 0;
  consume(l->ready, l);
  return 1;
}

int rcce_link_waiting(const struct rcce_link *l) { return rcce_link_reached(l, l->sent, rcce_link_next_value(l)); }

void rcce_link_recv_take(struct rcce_link *l) {
  if (l->seq) ++*l->seq;
  consume(l->sent, l);
}

int rcce_link_arrived(struct rcce_link *l) {
  if (!rcce_link_waiting(l)) return 0;
  rcce_link_recv_take(l);
  return 1;
}

void rcce_link_recv_ack(struct rcce_link *l, int src) {
  rcce_iflag_write(l->ready, l->seq ? rcce_link_seq_value(l, *l->seq) : RCCE_FLAG_SET, src);
}

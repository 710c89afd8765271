/*
 * Link steps of the transfer protocol (struct rcce_link), none of which
 * blocks.  Part of rcce_internal.h (include that): inline, because every
 * message's steps (xfer.c), blocking or queued, are made of them.
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
#ifndef OPENSCC_RCCE_LINK_H
#define OPENSCC_RCCE_LINK_H

#define RCCE_LINK_TAG_SHIFT 24

struct rcce_sent_header {
  uint32_t word, size_lo, size_hi, mode;
  uint64_t sender_addr;
};
_Static_assert(sizeof(struct rcce_sent_header) <= RCCE_LINE_SIZE, "header must fit a flag line");

static inline unsigned char *rcce_link_sent_line(const struct rcce_link *l, int ue) {
  return rcce_mpb_of(ue) + l->sent.off;
}

/* Announce a step (with header m, and tag: a tagged message); returns the
 * value the acknowledgement will hold. */
static inline int rcce_link_announce(struct rcce_link *l, int dest, const struct rcce_msg_info *m, const void *tag) {
  int v = l->seq ? rcce_link_seq_value(l, ++*l->seq) : RCCE_FLAG_SET;
  if (rcce_link_has_header(l) && m) {
    unsigned char *line = rcce_link_sent_line(l, dest);
    if (tag) {
      hw_mpb_copy(&rcce_g.job, line + 4, tag, m->size);
      v |= (int)(m->size << RCCE_LINK_TAG_SHIFT);
    } else {
      struct rcce_sent_header h = {.size_lo = (uint32_t)m->size,
                                   .size_hi = (uint32_t)((uint64_t)m->size >> 32),
                                   .mode = m->mode,
                                   .sender_addr = m->sender_addr};
      size_t from = offsetof(struct rcce_sent_header, size_lo); /* word 0 is the flag's, written last */
      hw_mpb_copy(&rcce_g.job, line + from, (const unsigned char *)&h + from, sizeof h - from);
    }
  }
  rcce_iflag_write(l->sent, v, dest);
  return v & (int)RCCE_SEQ_MASK;
}

/* The header of the waiting first step (links with headers only). */
static inline void rcce_link_header(const struct rcce_link *l, struct rcce_msg_info *m) {
  const struct rcce_sent_header *h = (const struct rcce_sent_header *)rcce_link_sent_line(l, rcce_g.ue);
  uint32_t tag = (uint32_t)rcce_iflag_read(l->sent, rcce_g.ue) >> RCCE_LINK_TAG_SHIFT;
  m->tagged = tag != 0;
  m->size = tag ? tag : (size_t)h->size_lo | (size_t)((uint64_t)h->size_hi << 32);
  m->mode = tag ? 0 : h->mode;
  m->sender_addr = tag ? 0 : h->sender_addr;
}

/* Copy a tagged message's data out of my copy of the sent flag's line. */
static inline void rcce_link_tag_copy(const struct rcce_link *l, void *dst, size_t n) {
  memcpy(dst, rcce_link_sent_line(l, rcce_g.ue) + 4, n);
}

/* Gory flags are reset by their owner once seen; sequence numbers are not. */
static inline void rcce_link_consume(struct rcce_iflag f, const struct rcce_link *l) {
  if (timing_enabled) rcce_iflag_seen(f, rcce_g.ue);
  if (!l->seq) rcce_iflag_write(f, RCCE_FLAG_UNSET, rcce_g.ue);
}

/* 1 (and consumed) when acknowledged. */
static inline int rcce_link_acked(struct rcce_link *l, int ack_value) {
  if (!rcce_link_reached(l, l->ready, ack_value)) return 0;
  rcce_link_consume(l->ready, l);
  return 1;
}

/* 1 when the next step is there. */
static inline int rcce_link_waiting(const struct rcce_link *l) {
  return rcce_link_reached(l, l->sent, rcce_link_next_value(l));
}

/* Consume the step waited for. */
static inline void rcce_link_recv_take(struct rcce_link *l) {
  if (l->seq) ++*l->seq;
  rcce_link_consume(l->sent, l);
}

/* 1 (and consumed) when the step is there. */
static inline int rcce_link_arrived(struct rcce_link *l) {
  if (!rcce_link_waiting(l)) return 0;
  rcce_link_recv_take(l);
  return 1;
}

/* Acknowledge the step taken. */
static inline void rcce_link_recv_ack(struct rcce_link *l, int src) {
  rcce_iflag_write(l->ready, l->seq ? rcce_link_seq_value(l, *l->seq) : RCCE_FLAG_SET, src);
}

#endif

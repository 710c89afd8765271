/* The sccmpich channel's sender (channel_sccmpich.h; docs/mpi-channel.md
 * "sccmpich").  Per destination, one round at a time in its probe flag:
 * write the round's bytes into the receiver's MPB (remote put), then the
 * sync word last, and wait for the receiver's acknowledgement in my own MPB
 * (local get) before the next round.  A rendezvous waits for the
 * clear-to-send, then writes chunk k + 1 into one half of the receiver's
 * rendezvous buffer while the receiver still reads chunk k from the other. */
#include <string.h>

#include "../hw/hosts.h"
#include "../hw/wait.h"
#include "../timing/timing.h"
#include "channel_sccmpich.h"

/* Copy the next n bytes of p -- its header, then its iov -- to dst.  No
 * charge: the caller knows which lines it writes. */
static void take(struct mpi_out_packet *p, unsigned char *dst, uint64_t n) {
  while (n > 0) {
    const unsigned char *src;
    uint64_t k;
    if (p->sent < MPI_PACKET_HEADER) {
      k = min_u64(n, MPI_PACKET_HEADER - p->sent);
      src = p->header + p->sent;
    } else {
      const struct iovec *v = &p->iov[p->iov_index];
      k = min_u64(n, v->iov_len - p->iov_offset);
      src = (const unsigned char *)v->iov_base + p->iov_offset;
      p->iov_offset += k;
      if (p->iov_offset == v->iov_len) {
        p->iov_index++;
        p->iov_offset = 0;
      }
    }
    if (k) hw_mpb_copy(chan.job, dst, src, k);
    dst += k;
    n -= k;
    p->sent += k;
  }
}

/* n bytes of p into an eager slot or a rendezvous half: the lines written. */
static void put(struct mpi_out_packet *p, unsigned char *dst, uint64_t n) {
  if (timing_enabled) timing_mpb_copy(dst, n, 1);
  take(p, dst, n);
}

static uint32_t *sync_word(unsigned char *probe) { return (uint32_t *)probe; }
static uint32_t *ack_word(int dest) { return (uint32_t *)sccm_ack_flag(chan.me, dest); }

/* The bytes after the sync word in dest's probe flag: `pre` bytes of
 * prefix (a request-to-send's packet size), then n bytes of p.  The
 * flag's first line is charged with the sync word (one line write,
 * announce()); a second line touched is one more line written. */
static void fill_probe(int dest, const void *prefix, uint32_t pre, struct mpi_out_packet *p, uint32_t n) {
  unsigned char *probe = sccm_probe(dest, chan.me);
  uint32_t line = sccm.g.line;
  if (timing_enabled && SCCM_SYNC_BYTES + pre + n > line) timing_mpb_copy(probe + line, line, 1);
  if (pre) hw_mpb_copy(chan.job, probe + SCCM_SYNC_BYTES, prefix, pre);
  take(p, probe + SCCM_SYNC_BYTES + pre, n);
}

/* The round is in dest's MPB: the sync word last (release; the flag's
 * line write, stamped with my clock), then dest's doorbell. */
static void announce(int dest, enum sccm_kind kind, uint32_t half, uint32_t bytes) {
  struct sccm_tx *t = &sccm.tx[dest];
  uint32_t *w = sync_word(sccm_probe(dest, chan.me));
  uint8_t seq = (uint8_t)(t->seq + 1);
  uint32_t sync = sccm_sync(seq, kind, half, bytes);
  if (timing_enabled) timing_flag_write(w, 0, sync);
  hw_mpb_store32(chan.job, w, sync);
  hw_ring(chan.job, dest);
  t->seq = seq;
  t->in_flight = 1;
  chan.stats->rounds_sent++;
}

/* Whether dest consumed my last round (its acknowledgement, in my MPB,
 * names it): seeing it is a local line read, at dest's stamp. */
static int probe_free(int dest) {
  struct sccm_tx *t = &sccm.tx[dest];
  if (!t->in_flight) return 1;
  uint32_t w = __atomic_load_n(ack_word(dest), __ATOMIC_ACQUIRE);
  if (sccm_ack_consumed(w) != t->seq) return 0;
  if (timing_enabled) timing_flag_seen(ack_word(dest), 0, w);
  t->in_flight = 0;
  t->busy_noted = 0;
  return 1;
}

static void note_busy(struct sccm_tx *t) {
  if (!t->busy_noted) chan.stats->ews_busy++;
  t->busy_noted = 1;
}

/* dest granted me its rendezvous buffer: the clear-to-send comes in the
 * acknowledgement of my request (at once, or later when the buffer frees),
 * so seeing it also frees my probe flag; one local line read. */
static int cleared_to_send(int dest) {
  struct sccm_tx *t = &sccm.tx[dest];
  uint32_t w = __atomic_load_n(ack_word(dest), __ATOMIC_ACQUIRE);
  if (sccm_ack_grants(w) == t->grants) return 0;
  if (sccm_ack_consumed(w) != t->seq) chan_fatal("corrupt acknowledgement: a clear-to-send before the request");
  if (timing_enabled) timing_flag_seen(ack_word(dest), 0, w);
  t->grants = sccm_ack_grants(w);
  t->in_flight = 0;
  t->busy_noted = 0;
  t->rndv = SCCM_RNDV_GRANTED;
  t->data_rounds = 0;
  t->staged = 0;
  return 1;
}

/* p's last round is announced: out of dest's queue, onto the done list. */
static void packet_sent(int dest, struct mpi_out_packet *p) {
  struct sccm_tx *t = &sccm.tx[dest];
  t->head = p->next;
  if (!t->head) t->tail = NULL;
  chan_packet_left(dest, p);
}

/* Rendezvous data: chunk k goes into half k % 2, whose previous chunk
 * (k - 2) was consumed before chunk k - 1 was announced; so chunk k is
 * written while the receiver may still read chunk k - 1 (the pipeline),
 * and announced once chunk k - 1 is consumed. */
static int rendezvous_step(int dest, struct mpi_out_packet *p) {
  struct sccm_tx *t = &sccm.tx[dest];
  uint64_t bytes = MPI_PACKET_HEADER + p->payload_bytes;
  int moved = 0;
  for (;;) {
    if (!t->staged && p->sent < bytes) {
      t->staged = (uint32_t)min_u64(bytes - p->sent, sccm.g.half_bytes);
      put(p, sccm_half(dest, t->data_rounds % 2), t->staged);
      moved = 1;
    }
    if (!probe_free(dest)) {
      note_busy(t);
      return moved;
    }
    announce(dest, SCCM_DATA, t->data_rounds % 2, t->staged);
    t->data_rounds++;
    t->staged = 0;
    moved = 1;
    if (p->sent == bytes) {
      t->rndv = SCCM_RNDV_NONE;
      packet_sent(dest, p);
      return moved;
    }
  }
}

/* The first round of the packet at the head of dest's queue, by its length. */
static void first_round(int dest, struct mpi_out_packet *p) {
  uint64_t bytes = MPI_PACKET_HEADER + p->payload_bytes;
  uint32_t in_flag = (uint32_t)min_u64(bytes, sccm.g.inline_bytes);
  switch (sccm_protocol_of(&sccm.g, bytes)) {
    case SCCM_SHORT:
      fill_probe(dest, NULL, 0, p, in_flag);
      announce(dest, SCCM_SHORT, 0, (uint32_t)bytes);
      packet_sent(dest, p);
      break;
    case SCCM_EAGER:
      fill_probe(dest, NULL, 0, p, in_flag);
      put(p, sccm_slot(dest, chan.me), bytes - in_flag);
      announce(dest, SCCM_EAGER, 0, (uint32_t)bytes);
      packet_sent(dest, p);
      break;
    default: /* request-to-send: the packet size, and with tagged flags the packet's first bytes */
      in_flag = sccm.g.inline_bytes ? sccm.g.inline_bytes - SCCM_SIZE_BYTES : 0;
      fill_probe(dest, &bytes, SCCM_SIZE_BYTES, p, in_flag);
      announce(dest, SCCM_RTS, 0, in_flag);
      sccm.tx[dest].rndv = SCCM_RNDV_WAIT_CTS;
      break;
  }
}

int sccm_send_step(int dest) {
  struct sccm_tx *t = &sccm.tx[dest];
  struct mpi_out_packet *p = t->head;
  if (!p) return 0;
  if (t->rndv == SCCM_RNDV_WAIT_CTS) return cleared_to_send(dest) ? rendezvous_step(dest, p) | 1 : 0;
  if (t->rndv == SCCM_RNDV_GRANTED) return rendezvous_step(dest, p);
  if (!probe_free(dest)) {
    note_busy(t);
    return 0;
  }
  first_round(dest, p);
  return 1;
}

int sccm_can_send(void) {
  if (chan.done_head) return 1;
  for (int d = 0; d < chan.nue; d++) {
    const struct sccm_tx *t = &sccm.tx[d];
    if (!t->head) continue;
    uint32_t w = __atomic_load_n(ack_word(d), __ATOMIC_ACQUIRE);
    if (t->rndv == SCCM_RNDV_WAIT_CTS) {
      if (sccm_ack_grants(w) != t->grants) return 1;
    } else if (!t->in_flight || sccm_ack_consumed(w) == t->seq || (t->rndv == SCCM_RNDV_GRANTED && !t->staged)) {
      return 1; /* the probe flag is free, or the next rendezvous chunk can be written */
    }
  }
  return 0;
}

/*
 * The channel engine (channel.h): RCKMPI's SCCMPB channel protocol over the
 * emulated MPB, [RCKMPI-2011] sec. II (docs/mpi-channel.md).  One engine
 * for both kinds (chan_rckmpi_ops); the geometry (channel_geometry.c) says
 * where the EWSs and the gEWS lie.  The public functions at the end
 * dispatch through the open channel's operations table (chan_ops: this
 * engine's, or sccmpich's in channel_sccmpich*.c).
 *
 * A packet (header + payload) moves in rounds.  Sender, per destination:
 * wait until the receiver consumed my previous round (its receive sequence
 * in my EWS at the receiver equals my send sequence), write up to an EWS
 * payload of bytes there and, with the extended protocol, the next bytes
 * into free chunks of my own gEWS; then the metadata, the send sequence
 * last (release), and ring the receiver.  Receiver: poll the send sequences
 * of my EWSs round-robin over the senders; read the EWS payload, then the
 * named chunks from the sender's gEWS (remote reads), straight into the
 * provider's target; publish my receive sequence (release) and ring the
 * sender, who then frees the chunks.  Each destination has its own FIFO and
 * its own EWS, so a receiver that does not read blocks only its own queue.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../hw/hosts.h"
#include "../hw/wait.h"
#include "../timing/timing.h"
#include "channel_internal.h"

struct chan_state chan;

/* Timing stamps are kept per bit of an MPB line (timing.h): a sequence
 * byte's slot is its first bit (the metadata starts an EWS, which starts a line). */
#define SEND_SEQ_SLOT ((int)offsetof(struct chan_meta, send_seq) * 8)
#define RECV_SEQ_SLOT ((int)offsetof(struct chan_meta, recv_seq) * 8)

/* Whether a flag the other UE wrote with `value` has arrived by my clock.
 * UEs run in host order, not virtual-time order: a round (or a receive
 * sequence) already in the MPB may carry a stamp after my clock.  While
 * this UE still has work of its own (a progress call from a provider call
 * that posts a receive or a send), RCKMPI's engine would have polled, found
 * nothing yet and gone on; a UE with nothing else to do waits for the
 * earliest of them (mpi_channel_idle: rck_after_wait). */
static int flag_arrived(const volatile void *word, int slot, uint8_t value) {
  if (!timing_enabled) return 1;
  uint64_t stamp = timing_flag_stamp(word, slot, value), now = timing_now();
  return stamp <= (chan.horizon > now ? chan.horizon : now);
}

static uint64_t earlier(uint64_t a, const volatile void *word, int slot, uint8_t value) {
  uint64_t s = timing_flag_stamp(word, slot, value);
  return s < a ? s : a;
}

/* When a UE's wait ends (chan_ops.after_wait): the earliest stamp among the
 * rounds in my EWSs and the receive sequences that free mine becomes the
 * horizon up to which flags count as arrived, so the UE waits for the first
 * event in virtual time, not for the first the host happened to run. */
static void rck_after_wait(void) {
  uint64_t h = UINT64_MAX;
  for (int u = 0; u < chan.nue; u++) {
    const struct chan_meta *in = chan_meta_of(chan.rx[u].ews), *out = chan_meta_of(chan.tx[u].ews);
    uint8_t s = __atomic_load_n(&in->send_seq, __ATOMIC_ACQUIRE);
    if (s != chan.rx[u].seq) h = earlier(h, &in->send_seq, SEND_SEQ_SLOT, s);
    uint8_t r = __atomic_load_n(&out->recv_seq, __ATOMIC_ACQUIRE);
    /* a consumed round counts only when a packet waits for its EWS */
    if (chan.tx[u].head && chan.tx[u].in_flight && r == chan.tx[u].seq)
      h = earlier(h, &out->recv_seq, RECV_SEQ_SLOT, r);
  }
  chan.horizon = h == UINT64_MAX ? 0 : h; /* none there: none counts early */
}

static int core_of(int ue) { return hw_ue(chan.job, ue)->core; }

/* --- news ------------------------------------------------------------------
 * A pass of the engine reads nue send sequences (my EWSs) and, while rounds
 * of mine are in flight, nue receive sequences (my EWSs at the others): one
 * cache line each.  At 48 ranks on a host with fewer CPUs each pass finds
 * them evicted by the other processes, and those reads were a quarter of a
 * 48-rank barrier's CPU time.  So, in native mode from CHAN_NEWS_MIN_UES
 * UEs on, whoever publishes a round or a receive sequence also sets its bit
 * in the other UE's news (mpi_shared.h), and a pass reads the sequences of
 * the UEs whose bits it took (chan.due_rx, chan.due_tx), no others.  Model
 * mode always scans: a round already there may count as arrived only later
 * (flag_arrived), with no news to come.  RCKMPI's receiver polled every EWS
 * ([RCKMPI-2011] sec. II-A); the SCC's polls are the model's to time, and
 * this shortcut changes nothing in them. */
#define CHAN_NEWS_MIN_UES 8

/* After my store that UE ue waits for (a round's send sequence, or a
 * receive sequence: consumed), before its doorbell.  An atomic OR: the
 * taker's exchange reads the last of a release sequence that holds every
 * teller's store. */
static void chan_tell(int ue, int consumed) {
  if (!chan.news) return;
  struct mpi_ue_shared *u = &chan.ue_shared[ue];
  _Atomic uint64_t *w = consumed ? &u->news[chan.me / 64].consumed : &u->news[chan.me / 64].rounds;
  atomic_fetch_or_explicit(w, chan_ue_bit(chan.me), memory_order_release);
}

static void take(_Atomic uint64_t *news, uint64_t *due) {
  if (atomic_load_explicit(news, memory_order_relaxed)) *due |= atomic_exchange_explicit(news, 0, memory_order_acq_rel);
}

/* Take my news; whether any UE is due now. */
static int take_news(void) {
  struct mpi_ue_shared *mine = &chan.ue_shared[chan.me];
  uint64_t any = 0;
  for (int w = 0; w * 64 < chan.nue; w++) {
    take(&mine->news[w].rounds, &chan.due_rx[w]);
    take(&mine->news[w].consumed, &chan.due_tx[w]);
    any |= chan.due_rx[w] | chan.due_tx[w];
  }
  return any != 0;
}

/* At open: every UE due once (a reopened channel may find rounds there). */
static void all_due(void) {
  for (int u = 0; u < chan.nue; u++) {
    chan_ue_set(chan.due_rx, u);
    chan_ue_set(chan.due_tx, u);
  }
}

unsigned char *chan_ews(int to, int from) {
  uint32_t slot = chan.g.per_core ? (uint32_t)core_of(from) : (uint32_t)from;
  return hw_mpb(chan.job, core_of(to)) + chan.g.ews_off + (size_t)slot * chan.g.section_bytes;
}

unsigned char *chan_gews_chunk(int ue, uint32_t i) {
  return hw_mpb(chan.job, core_of(ue)) + chan.g.gews_off + (size_t)i * chan.g.chunk_bytes;
}

void chan_fatal(const char *what) {
  fprintf(stderr, "openscc mpi channel: UE %d: %s\n", chan.me, what);
  abort();
}

/* The 16-bit lanes of `lanes` weighted by the lanes of `weights` in
 * reverse order, summed: the top lane of the product.  Exact while no
 * lane's sum of (at most four) products reaches 2^16, so that none carries
 * into the next: here lanes up to 510 (even + odd bytes) with weights 1,
 * or up to 255 with weights up to 8 (at most 8160). */
static inline uint32_t lanes_dot(uint64_t lanes, uint64_t weights) { return (uint32_t)(lanes * weights >> 48); }

/* Fletcher-16 (RFC 1146) over the sender's metadata fields, as 24
 * little-endian bytes b[i]: the checksum of [RCKMPI-2011] sec. II-A,
 * against a corrupted EWS.  s1 = sum b[i], s2 = sum (24 - i) b[i], both
 * mod 255 (the sums stay far below 2^32: one reduction at the end).  Eight
 * bytes at a time: the even and the odd bytes of a word in 16-bit lanes,
 * byte j of word k weighing (8 - j) + 8 (2 - k) -- a quarter of the
 * byte loop's instructions, once per round on each side. */
static uint16_t meta_checksum(uint32_t round, uint64_t packet, uint32_t mask, uint8_t seq) {
  const uint64_t fields[3] = {round | (uint64_t)seq << 32, packet, mask};
  uint32_t s1 = 0, s2 = 0;
  for (uint32_t k = 0; k < 3; k++) {
    uint64_t even = fields[k] & 0x00ff00ff00ff00ffull, odd = fields[k] >> 8 & 0x00ff00ff00ff00ffull;
    uint32_t sum = lanes_dot(even + odd, 0x0001000100010001ull);
    s1 += sum;
    s2 += lanes_dot(even, 0x0008000600040002ull) + lanes_dot(odd, 0x0007000500030001ull) + (16 - 8 * k) * sum;
  }
  return (uint16_t)(s2 % 255 << 8 | s1 % 255);
}

/* --- sender --------------------------------------------------------------- */

/* Copy the next n bytes of p (its header, then its iov) into the MPB at dst. */
static void stream_out(struct mpi_out_packet *p, unsigned char *dst, uint64_t n) {
  if (timing_enabled) timing_mpb_copy(dst, n, 1);
  while (n > 0) {
    uint64_t k;
    if (p->sent < MPI_PACKET_HEADER) {
      k = min_u64(n, MPI_PACKET_HEADER - p->sent);
      hw_mpb_copy(chan.job, dst, p->header + p->sent, k);
    } else {
      const struct iovec *v = &p->iov[p->iov_index];
      k = min_u64(n, v->iov_len - p->iov_offset);
      if (k) hw_mpb_copy(chan.job, dst, (const unsigned char *)v->iov_base + p->iov_offset, k);
      p->iov_offset += k;
      if (p->iov_offset == v->iov_len) {
        p->iov_index++;
        p->iov_offset = 0;
      }
    }
    dst += k;
    n -= k;
    p->sent += k;
  }
}

/* Every chunk of a gEWS, in chunk bits (chan_chunk_bit); 0 without one. */
static uint32_t all_chunks(void) {
  return chan.g.gews_chunks ? (uint32_t)(0xffffffffull << (32 - chan.g.gews_chunks)) : 0;
}

/* Free chunks of my gEWS for `bytes` more of a round to dest, lowest
 * chunks first.  The destinations with queued packets share the 32 chunks
 * as ring buffers ([RCKMPI-2011] sec. II-B, Fig. 3): a round takes at most
 * chunks / (destinations with queued packets, dest included), so a lone
 * stream uses the whole 4 KB.  A round holds its chunks until its receiver
 * reads it; while none is free, rounds carry only their EWS bytes: "performance
 * is just degraded by the limitation of 48 bytes of payload per round trip"
 * and communication is never stopped (sec. II-C). */
static uint32_t take_chunks(uint64_t bytes) {
  if (!chan.g.gews_chunks || bytes == 0) return 0;
  uint64_t want = (bytes + chan.g.chunk_bytes - 1) / chan.g.chunk_bytes;
  uint64_t share = chan.g.gews_chunks / (uint32_t)(chan.active_dests > 0 ? chan.active_dests : 1);
  want = min_u64(want, share > 0 ? share : 1);
  uint32_t mask = 0;
  for (uint32_t i = 0; i < chan.g.gews_chunks && want > 0; i++) {
    if (!(chan.gews_free & chan_chunk_bit(i))) continue;
    mask |= chan_chunk_bit(i);
    want--;
  }
  chan.gews_free &= ~mask;
  return mask;
}

/* Write up to `bytes` of p into the chunks of mask, in chunk order; returns the bytes written. */
static uint64_t stream_out_chunks(struct mpi_out_packet *p, uint32_t mask, uint64_t bytes) {
  uint64_t written = 0;
  for (uint32_t i = 0; i < chan.g.gews_chunks && written < bytes; i++) {
    if (!(mask & chan_chunk_bit(i))) continue;
    uint64_t k = min_u64(bytes - written, chan.g.chunk_bytes);
    stream_out(p, chan_gews_chunk(chan.me, i), k);
    written += k;
  }
  return written;
}

static void copy_consumed(int dest, const unsigned char *status);

/* Whether dest consumed my last round (its EWS is free for the next one):
 * the sender polls the receive sequence in the receiver's MPB; seeing it
 * frees the round's gEWS chunks. */
static int round_consumed(int dest) {
  struct chan_tx *t = &chan.tx[dest];
  if (!t->in_flight) return 1;
  struct chan_meta *m = chan_meta_of(t->ews);
  uint8_t r = __atomic_load_n(&m->recv_seq, __ATOMIC_ACQUIRE);
  if (r != t->seq || !flag_arrived(&m->recv_seq, RECV_SEQ_SLOT, r)) return 0;
  if (timing_enabled) timing_flag_seen(&m->recv_seq, RECV_SEQ_SLOT, r);
  chan.gews_free |= t->gews_held;
  t->gews_held = 0;
  t->in_flight = 0;
  t->busy_noted = 0;
  if (t->copy) copy_consumed(dest, (const unsigned char *)m + chan.g.meta_bytes);
  return 1;
}

/* p's last byte is in the MPB: out of dest's queue, onto the done list. */
static void packet_sent(int dest, struct mpi_out_packet *p) {
  struct chan_tx *t = &chan.tx[dest];
  t->head = p->next;
  if (!t->head) {
    t->tail = NULL;
    chan.active_dests--;
  }
  chan_packet_left(dest, p);
}

void chan_packet_left(int dest, struct mpi_out_packet *p) {
  uint64_t bytes = MPI_PACKET_HEADER + p->payload_bytes;
  chan.stats->packets_sent++;
  chan.stats->bytes_sent += bytes;
  timing_record_message(1, dest, bytes);
  p->next = NULL;
  if (chan.done_tail) chan.done_tail->next = p;
  else chan.done_head = p;
  chan.done_tail = p;
}

/* Write the metadata of a round, the send sequence last, and ring dest. */
static void publish_round(int dest, unsigned char *ews, uint32_t round, uint64_t packet, uint32_t mask) {
  struct chan_tx *t = &chan.tx[dest];
  struct chan_meta *m = chan_meta_of(ews);
  uint8_t seq = (uint8_t)(t->seq + 1);
  /* The sender's fields, composed here and written as the SCC wrote lines;
   * the receiver's recv_seq between them is left alone. */
  struct chan_meta mine = {.checksum = meta_checksum(round, packet, mask, seq),
                           .round_bytes = (uint16_t)round,
                           .packet_lo = (uint32_t)packet,
                           .packet_hi = (uint16_t)(packet >> 32),
                           .gews_mask = mask};
  hw_mpb_copy(chan.job, m, &mine, offsetof(struct chan_meta, recv_seq));
  if (chan.g.gews_chunks) hw_mpb_copy(chan.job, &m->gews_mask, &mine.gews_mask, sizeof mine.gews_mask);
  if (timing_enabled) timing_flag_write(&m->send_seq, SEND_SEQ_SLOT, seq);
  hw_mpb_store8(chan.job, &m->send_seq, seq);
  chan_tell(dest, 0);
  hw_ring(chan.job, dest);
  t->seq = seq;
  t->in_flight = 1;
  t->gews_held = mask;
}

/* The receiver consumed the single-copy rendezvous of the packet at the
 * head of dest's queue, and left the outcome in the EWS payload: the
 * payload is in its target (the packet is done), or it was refused or
 * withdrawn (the rounds carry it, from its first byte; only a refusal
 * stops later single copies). */
static void copy_consumed(int dest, const unsigned char *status) {
  struct chan_tx *t = &chan.tx[dest];
  struct mpi_out_packet *p = t->head;
  t->copy = 0;
  if (*status == CHAN_COPY_DONE) {
    p->sent = MPI_PACKET_HEADER + p->payload_bytes;
    packet_sent(dest, p);
  } else if (*status == CHAN_COPY_REFUSED) {
    chan.copy_ok = 0; /* no more rendezvous (a withdrawn copy is no refusal: the next ones still try) */
  }
}

/* The rendezvous of a single copy (channel_copy.c): the header and the
 * payload's descriptor in the EWS; done() waits for the receiver's copy. */
static void send_rendezvous(int dest, struct mpi_out_packet *p) {
  unsigned char *ews = chan.tx[dest].ews;
  memcpy(ews + chan.g.meta_bytes, p->header, MPI_PACKET_HEADER);
  chan_copy_describe(p, ews + chan.g.meta_bytes + MPI_PACKET_HEADER);
  p->sent = MPI_PACKET_HEADER;
  publish_round(dest, ews, CHAN_ROUND_COPY | (MPI_PACKET_HEADER + CHAN_COPY_DESC_BYTES),
                MPI_PACKET_HEADER + p->payload_bytes, 0);
  chan.tx[dest].copy = 1;
  chan.stats->rounds_sent++;
}

/* One round of the packet at the head of dest's queue, if its EWS is free. */
static int send_round(int dest) {
  struct chan_tx *t = &chan.tx[dest];
  if (!t->head) return 0;
  int copied = t->copy;
  if (!round_consumed(dest)) {
    if (!t->busy_noted && !copied) chan.stats->ews_busy++; /* a single copy waits for its copy, not for the EWS */
    t->busy_noted = 1;
    return 0;
  }
  struct mpi_out_packet *p = t->head; /* the next one, when a single copy just finished */
  if (!p) return copied;
  if (p->sent == 0 && chan_copy_wanted(p)) {
    send_rendezvous(dest, p);
    return 1;
  }
  uint64_t packet = MPI_PACKET_HEADER + p->payload_bytes, left = packet - p->sent;
  uint64_t in_ews = min_u64(left, chan.g.ews_payload);
  uint32_t mask = take_chunks(left - in_ews);
  unsigned char *ews = t->ews;
  stream_out(p, ews + chan.g.meta_bytes, in_ews);
  uint64_t round = in_ews + stream_out_chunks(p, mask, left - in_ews);
  publish_round(dest, ews, (uint32_t)round, packet, mask);
  chan.stats->rounds_sent++;
  if (mask) {
    chan.stats->gews_rounds++;
    chan.stats->gews_chunks += (uint64_t)__builtin_popcount(mask);
  }
  if (p->sent == packet) packet_sent(dest, p);
  return 1;
}

static int send_rounds(void) {
  int moved = 0;
  /* A sender reads a receive sequence when its EWS takes the next round,
   * or while the round in flight holds gEWS chunks, to free them; not
   * otherwise (an idle sender that kept reading the line its receiver
   * writes the receive sequence into slowed every ping-pong down). */
  if (chan.active_dests == 0 && chan.gews_free == all_chunks()) return 0; /* nothing to send or to free */
  for (int d = 0; d < chan.nue; d++) {
    if (chan.tx[d].head) moved += send_round(d);
    else if (chan.tx[d].gews_held) round_consumed(d); /* frees the chunks of a finished packet's last round */
  }
  return moved;
}

/* send_rounds with news: the queues of the UEs due (news of a consumed
 * round, or a packet posted from a callback), in UE order. */
static int send_due(void) {
  int moved = 0;
  for (int w = 0; w * 64 < chan.nue; w++)
    while (chan.due_tx[w]) {
      int d = w * 64 + __builtin_ctzll(chan.due_tx[w]);
      chan.due_tx[w] &= chan.due_tx[w] - 1;
      if (chan.tx[d].head) moved += send_round(d);
      else round_consumed(d);
    }
  return moved;
}

int chan_finish_sent(void) {
  int n = 0;
  while (chan.done_head) {
    struct mpi_out_packet *p = chan.done_head;
    chan.done_head = p->next;
    if (!chan.done_head) chan.done_tail = NULL;
    chan.pending--;
    p->done(p);
    n++;
  }
  return n;
}

/* --- receiver ------------------------------------------------------------- */

static int round_there(int src) {
  struct chan_meta *m = chan_meta_of(chan.rx[src].ews);
  uint8_t seq = __atomic_load_n(&m->send_seq, __ATOMIC_ACQUIRE);
  return seq != chan.rx[src].seq && flag_arrived(&m->send_seq, SEND_SEQ_SLOT, seq);
}

/* The header is complete: the provider chooses the payload's target. */
static void header_arrived(int src, struct chan_rx *r) {
  memset(&r->t, 0, sizeof r->t);
  r->iov_index = r->iov_offset = 0;
  chan.sink.arrived(chan.sink.arg, src, r->header, r->packet_bytes - MPI_PACKET_HEADER, &r->t);
}

/* Read n bytes of the packet from src at `from` (an EWS or a gEWS chunk). */
static void stream_in(int src, const unsigned char *from, uint64_t n) {
  struct chan_rx *r = &chan.rx[src];
  if (timing_enabled) timing_mpb_copy(from, n, 0);
  while (n > 0) {
    uint64_t k;
    if (r->got < MPI_PACKET_HEADER) {
      k = min_u64(n, MPI_PACKET_HEADER - r->got);
      memcpy(r->header + r->got, from, k);
      r->got += k;
      if (r->got == MPI_PACKET_HEADER) header_arrived(src, r);
    } else {
      k = chan_into_target(&r->t, &r->iov_index, &r->iov_offset, from, n);
      r->got += k;
    }
    from += k;
    n -= k;
  }
}

/* Check a round's metadata (a failure is an emulator bug or a program
 * that wrote over the channel's part of the MPB). */
static void check_meta(int src, const struct chan_meta *m, uint8_t seq, uint32_t round, uint64_t packet,
                       uint32_t mask) {
  const struct chan_rx *r = &chan.rx[src];
  /* A single-copy rendezvous: the header and the descriptor, at a packet's start. */
  int copy = (round & CHAN_ROUND_COPY) != 0;
  uint32_t bytes = round & ~CHAN_ROUND_COPY;
  uint32_t all = all_chunks();
  uint64_t room = chan.g.ews_payload + (uint64_t)__builtin_popcount(mask) * chan.g.chunk_bytes;
  uint64_t expected = r->packet_bytes ? r->packet_bytes : packet;
  char what[200];
  if (m->checksum != meta_checksum(round, packet, mask, seq) || (mask & ~all) || bytes == 0 || bytes > room ||
      packet < MPI_PACKET_HEADER || packet != expected ||
      (copy ? r->got != 0 || mask || bytes != MPI_PACKET_HEADER + CHAN_COPY_DESC_BYTES : bytes > packet - r->got)) {
    snprintf(what, sizeof what,
             "corrupt EWS metadata from UE %d (round %u bytes, packet %llu bytes, gEWS mask 0x%08x, checksum 0x%04x)",
             src, round, (unsigned long long)packet, mask, m->checksum);
    chan_fatal(what);
  }
}

void chan_packet_complete(int src, uint64_t bytes, struct mpi_in_target *t) {
  chan.stats->packets_recv++;
  chan.stats->bytes_recv += bytes;
  timing_record_message(0, src, bytes);
  chan.sink.complete(chan.sink.arg, src, t);
}

static void packet_received(int src) {
  struct chan_rx *r = &chan.rx[src];
  uint64_t bytes = r->packet_bytes;
  r->packet_bytes = r->got = 0;
  chan_packet_complete(src, bytes, &r->t);
}

/* A single-copy rendezvous from src (channel_copy.c): the header, then the
 * payload straight from the sender's buffers; the outcome goes into the
 * EWS payload (read by the sender once it sees the round consumed). */
static void receive_rendezvous(int src, unsigned char *payload) {
  struct chan_rx *r = &chan.rx[src];
  stream_in(src, payload, MPI_PACKET_HEADER);
  uint8_t status = chan_copy_pull(src, payload + MPI_PACKET_HEADER, r);
  if (status == CHAN_COPY_DONE) r->got = r->packet_bytes;
  payload[0] = status;
}

/* Consume the round waiting in src's EWS. */
static void receive_round(int src) {
  struct chan_rx *r = &chan.rx[src];
  unsigned char *ews = r->ews;
  struct chan_meta *m = chan_meta_of(ews);
  uint8_t seq = __atomic_load_n(&m->send_seq, __ATOMIC_ACQUIRE);
  if (timing_enabled) timing_flag_seen(&m->send_seq, SEND_SEQ_SLOT, seq);
  uint32_t round = m->round_bytes, mask = chan.g.gews_chunks ? m->gews_mask : 0;
  uint64_t packet = m->packet_lo | (uint64_t)m->packet_hi << 32;
  check_meta(src, m, seq, round, packet, mask);
  if ((round & CHAN_ROUND_COPY) && chan_copy_keep_waiting(src, ews + chan.g.meta_bytes, packet)) return;
  r->packet_bytes = packet;
  if (round & CHAN_ROUND_COPY) {
    receive_rendezvous(src, ews + chan.g.meta_bytes);
  } else {
    uint64_t in_ews = min_u64(round, chan.g.ews_payload), rest = round - in_ews;
    stream_in(src, ews + chan.g.meta_bytes, in_ews);
    for (uint32_t i = 0; i < chan.g.gews_chunks && rest > 0; i++) {
      if (!(mask & chan_chunk_bit(i))) continue;
      uint64_t k = min_u64(rest, chan.g.chunk_bytes);
      stream_in(src, chan_gews_chunk(src, i), k); /* remote read from the sender's MPB */
      rest -= k;
    }
  }
  /* The EWS and the chunks are free again: my receive sequence, then the sender's doorbell. */
  if (timing_enabled) timing_flag_write(&m->recv_seq, RECV_SEQ_SLOT, seq);
  hw_mpb_store8(chan.job, &m->recv_seq, seq);
  chan_tell(src, 1);
  hw_mpb_ring(chan.job, src); /* the sender polls my MPB: on another host the ring travels */
  r->seq = seq;
  chan.stats->rounds_recv++;
  if (r->got == r->packet_bytes) packet_received(src);
}

/* --- wait conditions (mpi_channel_idle) ------------------------------------ */

static int rck_round_waiting(void) {
  for (int src = 0; src < chan.nue; src++)
    if (round_there(src)) return 1;
  return 0;
}

static int rck_can_send(void) {
  if (chan.done_head) return 1;
  for (int d = 0; d < chan.nue; d++) {
    const struct chan_tx *t = &chan.tx[d];
    if (t->head && (!t->in_flight || __atomic_load_n(&chan_meta_of(t->ews)->recv_seq, __ATOMIC_ACQUIRE) == t->seq))
      return 1;
  }
  return 0;
}

/* --- the interface ---------------------------------------------------------- */

/* Pick up the sequences where this UE left them (the MPB starts zeroed with
 * the job; a reopened channel continues): I alone write my send sequences
 * in the receivers' EWSs and my receive sequences in my own. */
static void resume_sequences(void) {
  for (int u = 0; u < chan.nue; u++) {
    struct chan_tx *t = &chan.tx[u];
    t->ews = chan_ews(u, chan.me); /* the EWSs stay where they are: found once */
    chan.rx[u].ews = chan_ews(chan.me, u);
    const struct chan_meta *out = chan_meta_of(t->ews), *in = chan_meta_of(chan.rx[u].ews);
    t->seq = __atomic_load_n(&out->send_seq, __ATOMIC_ACQUIRE);
    t->in_flight = __atomic_load_n(&out->recv_seq, __ATOMIC_ACQUIRE) != t->seq;
    t->gews_held = t->in_flight && chan.g.gews_chunks ? out->gews_mask : 0;
    chan.gews_free &= ~t->gews_held;
    chan.rx[u].seq = __atomic_load_n(&in->recv_seq, __ATOMIC_ACQUIRE);
  }
}

/* The rckmpi engine's state: its geometry, its FIFOs and EWSs, its gEWS. */
static int rck_open(enum mpi_channel_kind kind, char *err, size_t errlen) {
  if (chan_geometry_of(kind, &chan.job->hdr->chip, chan.nue, &chan.g, err, errlen) != 0) return -1;
  chan.tx = calloc((size_t)chan.nue, sizeof *chan.tx);
  chan.rx = calloc((size_t)chan.nue, sizeof *chan.rx);
  if (!chan.tx || !chan.rx) {
    free(chan.tx);
    free(chan.rx);
    return snprintf(err, errlen, "out of memory for the MPI channel's state of %d UEs", chan.nue), -1;
  }
  chan.gews_free = all_chunks();
  chan.ue_shared = mpi_ue_shared_of(chan.job, 0);
  /* No news across hosts (rccerun --hosts): the bits are host memory, not MPB. */
  chan.news = !timing_enabled && chan.nue >= CHAN_NEWS_MIN_UES && !hw_hosts_many(chan.job);
  all_due();
  resume_sequences();
  chan_copy_open();
  return 0;
}

static void rck_close(void) {
  chan_copy_close();
  free(chan.tx);
  free(chan.rx);
}

static void rck_post(struct mpi_out_packet *p) {
  struct chan_tx *t = &chan.tx[p->dest];
  int first = chan_queue(&t->head, &t->tail, p);
  chan.active_dests += first;
  chan_start(p->dest, first, send_round);
}

/* Read the rounds waiting (round-robin), then write the rounds that can go;
 * with news (chan_tell), of the UEs due only. */
static int rck_move(void) {
  int moved;
  if (!chan.news) moved = chan_poll_senders(round_there, receive_round, NULL) + send_rounds();
  else if (!take_news()) return 0; /* the common empty poll: no sender loop */
  else moved = chan_poll_senders(round_there, receive_round, chan.due_rx) + send_due();
  chan.take_waiting = 0;
  return moved;
}

/* Asked when p's buffers go back to the caller: a single copy its receiver
 * has not claimed yet is withdrawn (it follows in rounds). */
static int rck_copying(const struct mpi_out_packet *p) {
  return chan.tx[p->dest].copy && chan.tx[p->dest].head == p && !chan_copy_withdraw(p->dest);
}

const struct chan_ops chan_rckmpi_ops = {
    .open = rck_open,
    .close = rck_close,
    .post = rck_post,
    .move = rck_move,
    .round_waiting = rck_round_waiting,
    .can_send = rck_can_send,
    .copying = rck_copying,
    .after_wait = rck_after_wait,
    .packet_bits = 48, /* the metadata's packet size */
};

static const struct chan_ops *ops_of(enum mpi_channel_kind kind) {
  return kind == MPI_CHANNEL_SCCMPICH || kind == MPI_CHANNEL_SCCMPICH_NORMAL ? &chan_sccm_ops : &chan_rckmpi_ops;
}

int mpi_channel_open(struct hw_job *job, int ue, enum mpi_channel_kind kind, const struct mpi_channel_sink *sink,
                     char *err, size_t errlen) {
  int nue = (int)job->hdr->nue;
  if (chan.open) return snprintf(err, errlen, "the MPI channel of UE %d is already open", chan.me), -1;
  if (ue < 0 || ue >= nue) return snprintf(err, errlen, "UE %d is not a UE of this job (%d UEs)", ue, nue), -1;
  struct chan_state c = {
      .ops = ops_of(kind), .job = job, .me = ue, .nue = nue, .sink = *sink, .stats = mpi_ue_shared_of(job, ue)};
  if (!c.stats)
    return snprintf(err, errlen, "the job segment has no %s region (rccerun is from another build)", MPI_UE_REGION), -1;
  chan = c; /* the engine's open reads it, and mpi_channel_idle (channel_wait.c) sleeps on chan.job / chan.me */
  if (chan.ops->open(kind, err, errlen) != 0) {
    memset(&chan, 0, sizeof chan);
    return -1;
  }
  chan.open = 1;
  return 0;
}

void mpi_channel_close(void) {
  if (chan.open) chan.ops->close();
  memset(&chan, 0, sizeof chan);
}

/* Wait conditions of mpi_channel_idle (channel_wait.c, only while open). */
int chan_round_waiting(void) { return chan.ops->round_waiting(); }
int chan_can_send(void) { return chan.ops->can_send(); }

static void check_packet(const struct mpi_out_packet *p) {
  char what[160];
  uint64_t sum = 0;
  for (size_t i = 0; i < p->iov_count; i++) sum += p->iov[i].iov_len;
  if (p->dest < 0 || p->dest >= chan.nue)
    snprintf(what, sizeof what, "packet posted to UE %d, not a UE of this job (%d UEs)", p->dest, chan.nue);
  else if (sum != p->payload_bytes)
    snprintf(what, sizeof what, "packet to UE %d says %llu payload bytes, its iov holds %llu", p->dest,
             (unsigned long long)p->payload_bytes, (unsigned long long)sum);
  else if (chan.ops->packet_bits < 64 && MPI_PACKET_HEADER + p->payload_bytes >= 1ull << chan.ops->packet_bits)
    snprintf(what, sizeof what, "packet of %llu bytes is beyond the channel's %d-bit packet size",
             (unsigned long long)p->payload_bytes, chan.ops->packet_bits);
  else return;
  chan_fatal(what);
}

void mpi_channel_post(struct mpi_out_packet *p) {
  if (!chan.open) chan_fatal("packet posted to a channel that is not open");
  check_packet(p);
  chan.ops->post(p);
}

/* Something moved: the wait budget starts again, and no flag counts early. */
static int note_moved(int moved) {
  if (moved) {
    chan.horizon = 0;
    hw_poll_fruitful();
  }
  return moved;
}

int mpi_channel_progress(void) {
  if (!chan.open || chan.in_engine) return 0;
  chan.in_engine = 1;
  int moved = chan_finish_sent();
  moved += chan.ops->move();
  moved += chan_finish_sent();
  chan.in_engine = 0;
  return note_moved(moved);
}

int mpi_channel_finish(void) {
  if (!chan.open || chan.in_engine) return 0;
  chan.in_engine = 1;
  int finished = chan_finish_sent();
  chan.in_engine = 0;
  return note_moved(finished);
}

uint64_t mpi_channel_pending(void) { return chan.pending; }

int mpi_channel_copying(const struct mpi_out_packet *p) {
  return chan.open && p->dest >= 0 && p->dest < chan.nue && chan.ops->copying(p);
}

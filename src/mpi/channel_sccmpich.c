/*
 * The sccmpich channel (rccerun --mpi-channel sccmpich|sccmpich-normal):
 * SCC-MPICH's short, eager and rendezvous protocols over the emulated MPB,
 * [SCC-2BOARD] sec. V (docs/mpi-channel.md "sccmpich").  channel.c's public
 * functions dispatch to the operations here (chan_sccm_ops) while this
 * channel is open; it shares their state in `chan` (job, UE, sink,
 * statistics, pending packets, the done list), and its own is in `sccm`.  The sender is
 * channel_sccmpich_send.c, the receiver channel_sccmpich_recv.c, the layout
 * channel_sccmpich_geometry.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_sccmpich.h"

struct sccm_state sccm;

static unsigned char *mpb_of(int ue) { return hw_mpb(chan.job, hw_ue(chan.job, ue)->core); }

unsigned char *sccm_probe(int r, int s) { return mpb_of(r) + sccm.g.probe_off + (size_t)s * 2 * sccm.g.line; }
unsigned char *sccm_ack_flag(int s, int r) { return mpb_of(s) + sccm.g.ack_off + (size_t)r * sccm.g.line; }
unsigned char *sccm_slot(int r, int s) { return mpb_of(r) + sccm.g.slot_off + (size_t)s * sccm.g.slot_bytes; }
unsigned char *sccm_half(int r, uint32_t h) { return mpb_of(r) + sccm.g.rndv_off + (size_t)h * sccm.g.half_bytes; }

/* Pick up the sequences where this UE left them (the MPB starts zeroed
 * with the job; a reopened channel continues): I alone write my probe
 * flags' sync words at the receivers and my acknowledgements at the senders. */
static void resume_sequences(void) {
  for (int u = 0; u < chan.nue; u++) {
    struct sccm_tx *t = &sccm.tx[u];
    struct sccm_rx *r = &sccm.rx[u];
    uint32_t sync = __atomic_load_n((uint32_t *)sccm_probe(u, chan.me), __ATOMIC_ACQUIRE);
    uint32_t ack_in = __atomic_load_n((uint32_t *)sccm_ack_flag(chan.me, u), __ATOMIC_ACQUIRE);
    uint32_t ack_out = __atomic_load_n((uint32_t *)sccm_ack_flag(u, chan.me), __ATOMIC_ACQUIRE);
    t->seq = (uint8_t)sync;
    t->in_flight = sccm_ack_consumed(ack_in) != t->seq;
    t->grants = sccm_ack_grants(ack_in);
    r->seq = sccm_ack_consumed(ack_out);
    r->ack_writes = (uint8_t)ack_out;
    r->grants = sccm_ack_grants(ack_out);
  }
}

static int sccm_open(enum mpi_channel_kind kind, char *err, size_t errlen) {
  struct sccm_state s = {.owner = -1};
  if (sccm_geometry_of(kind, &chan.job->hdr->chip, chan.nue, &s.g, err, errlen) != 0) return -1;
  s.tx = calloc((size_t)chan.nue, sizeof *s.tx);
  s.rx = calloc((size_t)chan.nue, sizeof *s.rx);
  s.waiting = calloc((size_t)chan.nue, sizeof *s.waiting);
  if (!s.tx || !s.rx || !s.waiting) {
    free(s.tx);
    free(s.rx);
    free(s.waiting);
    return snprintf(err, errlen, "out of memory for the MPI channel's state of %d UEs", chan.nue), -1;
  }
  sccm = s;
  resume_sequences();
  return 0;
}

static void sccm_close(void) {
  free(sccm.tx);
  free(sccm.rx);
  free(sccm.waiting);
  memset(&sccm, 0, sizeof sccm);
}

static void sccm_post(struct mpi_out_packet *p) {
  struct sccm_tx *t = &sccm.tx[p->dest];
  chan_start(p->dest, chan_queue(&t->head, &t->tail, p), sccm_send_step);
}

/* Read the rounds waiting (round-robin), then a step of every destination's packets. */
static int sccm_move(void) {
  int moved = sccm_receive_rounds();
  for (int d = 0; d < chan.nue; d++) moved += sccm_send_step(d);
  return moved;
}

/* sccmpich moves every payload through the MPB: no single copy. */
static int sccm_copying(const struct mpi_out_packet *p) {
  (void)p;
  return 0;
}

const struct chan_ops chan_sccm_ops = {
    .open = sccm_open,
    .close = sccm_close,
    .post = sccm_post,
    .move = sccm_move,
    .round_waiting = sccm_round_waiting,
    .can_send = sccm_can_send,
    .copying = sccm_copying,
    .packet_bits = 64, /* a request-to-send's 8-byte packet size */
};

/*
 * The sccmpich channel (rccerun --mpi-channel sccmpich|sccmpich-normal):
 * SCC-MPICH's short, eager and rendezvous protocols over the emulated MPB,
 * [SCC-2BOARD] sec. V (docs/mpi-channel.md "sccmpich").  channel.c's public
 * functions hand over to the functions here while this channel is open; it
 * shares their state in `chan` (job, UE, sink, statistics, pending packets,
 * the done list), and its own is in `sccm`.  The sender is
 * channel_sccmpich_send.c, the receiver channel_sccmpich_recv.c, the layout
 * channel_sccmpich_geometry.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../hw/wait.h"
#include "channel_sccmpich.h"

struct sccm_state sccm;

static unsigned char *mpb_of(int ue) { return hw_mpb(chan.job, hw_ue(chan.job, ue)->core); }

unsigned char *sccm_probe(int r, int s) { return mpb_of(r) + sccm.g.probe_off + (size_t)s * 2 * sccm.g.line; }
unsigned char *sccm_ack_flag(int s, int r) { return mpb_of(s) + sccm.g.ack_off + (size_t)r * sccm.g.line; }
unsigned char *sccm_slot(int r, int s) { return mpb_of(r) + sccm.g.slot_off + (size_t)s * sccm.g.slot_bytes; }
unsigned char *sccm_half(int r, uint32_t h) { return mpb_of(r) + sccm.g.rndv_off + (size_t)h * sccm.g.half_bytes; }

void sccm_fatal(const char *what) {
  fprintf(stderr, "openscc mpi channel: UE %d: %s\n", chan.me, what);
  abort();
}

int chan_sccm_is_open(void) { return sccm.open; }

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

int chan_sccm_open(struct hw_job *job, int ue, enum mpi_channel_kind kind, const struct mpi_channel_sink *sink,
                   char *err, size_t errlen) {
  int nue = (int)job->hdr->nue;
  if (chan.open) return snprintf(err, errlen, "the MPI channel of UE %d is already open", chan.me), -1;
  if (ue < 0 || ue >= nue) return snprintf(err, errlen, "UE %d is not a UE of this job (%d UEs)", ue, nue), -1;
  struct sccm_state s = {.owner = -1};
  if (sccm_geometry_of(kind, &job->hdr->chip, nue, &s.g, err, errlen) != 0) return -1;
  struct chan_state c = {.job = job, .me = ue, .nue = nue, .sink = *sink, .stats = mpi_ue_shared_of(job, ue)};
  if (!c.stats)
    return snprintf(err, errlen, "the job segment has no %s region (rccerun is from another build)", MPI_UE_REGION), -1;
  s.tx = calloc((size_t)nue, sizeof *s.tx);
  s.rx = calloc((size_t)nue, sizeof *s.rx);
  s.waiting = calloc((size_t)nue, sizeof *s.waiting);
  if (!s.tx || !s.rx || !s.waiting) {
    free(s.tx);
    free(s.rx);
    free(s.waiting);
    return snprintf(err, errlen, "out of memory for the MPI channel's state of %d UEs", nue), -1;
  }
  c.open = s.open = 1;
  chan = c; /* mpi_channel_idle (channel_wait.c) sleeps on chan.job / chan.me */
  sccm = s;
  resume_sequences();
  return 0;
}

void chan_sccm_close(void) {
  free(sccm.tx);
  free(sccm.rx);
  free(sccm.waiting);
  memset(&sccm, 0, sizeof sccm);
  memset(&chan, 0, sizeof chan);
}

void chan_sccm_post(struct mpi_out_packet *p) {
  char what[160];
  uint64_t sum = 0;
  for (size_t i = 0; i < p->iov_count; i++) sum += p->iov[i].iov_len;
  if (p->dest < 0 || p->dest >= chan.nue) {
    snprintf(what, sizeof what, "packet posted to UE %d, not a UE of this job (%d UEs)", p->dest, chan.nue);
    sccm_fatal(what);
  }
  if (sum != p->payload_bytes) {
    snprintf(what, sizeof what, "packet to UE %d says %llu payload bytes, its iov holds %llu", p->dest,
             (unsigned long long)p->payload_bytes, (unsigned long long)sum);
    sccm_fatal(what);
  }
  struct sccm_tx *t = &sccm.tx[p->dest];
  p->next = NULL;
  p->sent = 0;
  p->iov_index = p->iov_offset = 0;
  if (t->tail) t->tail->next = p;
  else t->head = p;
  t->tail = p;
  chan.pending++;
  if (chan.in_engine || t->head != p) return; /* from a callback, or behind others: progress moves it */
  chan.in_engine = 1;
  sccm_send_step(p->dest); /* start moving it at once (done() waits for progress) */
  chan.in_engine = 0;
}

int chan_sccm_progress(void) {
  if (chan.in_engine) return 0;
  chan.in_engine = 1;
  int moved = chan_finish_sent() + sccm_receive_rounds();
  for (int d = 0; d < chan.nue; d++) moved += sccm_send_step(d);
  moved += chan_finish_sent();
  chan.in_engine = 0;
  if (moved) hw_poll_fruitful();
  return moved;
}

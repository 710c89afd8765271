/*
 * The channel's internals, shared by channel*.c (channel.h is the
 * provider's view).  One engine runs both protocols; what differs between
 * them is the geometry of the MPB (channel_geometry.c).
 */
#ifndef OPENSCC_MPI_CHANNEL_INTERNAL_H
#define OPENSCC_MPI_CHANNEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../chip/chip.h"
#include "channel.h"
#include "mpi_shared.h"

/* Where a protocol puts its buffers in every core's MPB. */
struct chan_geometry {
  uint32_t sections;      /* EWSs in a receiver's MPB */
  int per_core;           /* EWS of a sender: its core (else its UE) */
  uint32_t ews_off;       /* the EWS area's offset in the MPB */
  uint32_t section_bytes; /* one EWS: metadata, then payload */
  uint32_t meta_bytes;    /* 16 (rckmpi) or 12 (rckmpi-original) */
  uint32_t ews_payload;   /* payload bytes of one EWS */
  uint32_t gews_off;      /* the sender's gEWS (extended protocol) */
  uint32_t gews_chunks;   /* 0: no extended protocol */
  uint32_t chunk_bytes;
  uint32_t used_bytes; /* of the MPB; the rest is left for other uses */
};

/* The geometry of `kind` for a job of nue UEs on chip; 0, or -1 with err set
 * when the layout does not fit the chip's MPB. */
int chan_geometry_of(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, struct chan_geometry *g,
                     char *err, size_t errlen);

/* The metadata at the start of every EWS ([RCKMPI-2011] sec. II-A): 12
 * bytes in both protocols, then the gEWS control word in rckmpi's 16.  The
 * sender writes every field but recv_seq, send_seq last (release); the
 * receiver writes only recv_seq.  Sequences count rounds modulo 256: the
 * EWS holds a round while send_seq != recv_seq. */
struct chan_meta {
  uint16_t checksum;    /* of the sender's fields (chan_meta_checksum) */
  uint16_t round_bytes; /* message size: payload bytes of this round, gEWS part included */
  uint32_t packet_lo;   /* packet size: header + payload bytes of the whole packet, */
  uint16_t packet_hi;   /* in 48 bits */
  uint8_t recv_seq;     /* the last round the receiver consumed */
  uint8_t send_seq;     /* the round in the EWS */
  uint32_t gews_mask;   /* gEWS control: chunk i of the sender's gEWS is bit 31 - i (rckmpi only) */
};
#define CHAN_META_BASE_BYTES 12 /* without gews_mask */
#define CHAN_ROUND_MAX 32767u   /* round_bytes is 16 bits, the top one CHAN_ROUND_COPY */
/* round_bytes of a single-copy rendezvous (channel_copy.c): the round holds
 * the header and a descriptor of the sender's payload, not the payload. */
#define CHAN_ROUND_COPY 0x8000u

/* The gEWS control bit of chunk i (Fig. 2 of [RCKMPI-2011]: the first
 * chunks are the high bits). */
static inline uint32_t chan_chunk_bit(uint32_t i) { return 0x80000000u >> i; }

/* Per destination: the packets queued for it and the round in its EWS. */
struct chan_tx {
  unsigned char *ews; /* my EWS in the destination's MPB */
  struct mpi_out_packet *head, *tail;
  uint8_t seq;        /* send sequence of the last round written */
  uint8_t in_flight;  /* that round is not known to be consumed yet */
  uint8_t busy_noted; /* this round's wait for the EWS was counted */
  uint32_t gews_held; /* chunks of the round in flight */
  uint8_t copy;       /* that round is the head packet's single-copy rendezvous */
};

/* Per sender: the packet being received from it. */
struct chan_rx {
  unsigned char *ews;    /* the sender's EWS in my MPB */
  uint8_t seq;           /* send sequence of the last round consumed */
  uint64_t packet_bytes; /* 0: between packets */
  uint64_t got;          /* bytes of the packet consumed */
  unsigned char header[MPI_PACKET_HEADER];
  struct mpi_in_target t;
  size_t iov_index, iov_offset;
};

/* The channel of this process. */
struct chan_state {
  struct hw_job *job;
  int me, nue, open;
  struct chan_geometry g;
  struct mpi_channel_sink sink;
  struct chan_tx *tx;                           /* by destination UE */
  struct chan_rx *rx;                           /* by sender UE */
  uint32_t gews_free;                           /* my gEWS chunks not in flight */
  int active_dests;                             /* destinations with queued packets */
  uint64_t pending;                             /* packets posted and not done */
  struct mpi_out_packet *done_head, *done_tail; /* sent, done() not called yet */
  int in_engine;                                /* inside progress or post: callbacks may post, not recurse */
  int next_poll;                                /* the sender whose EWS is polled first (round-robin) */
  struct mpi_ue_shared *stats;
  int copy_ok;          /* large payloads may go by single copy (channel_copy.c) */
  int rounds_in_flight; /* my rounds not known to be consumed */
};
extern struct chan_state chan;

/* The EWS of sender `from` in the MPB of receiver `to`, and its metadata. */
unsigned char *chan_ews(int to, int from);
static inline struct chan_meta *chan_meta_of(unsigned char *ews) { return (struct chan_meta *)ews; }
/* Chunk i of the gEWS of UE ue. */
unsigned char *chan_gews_chunk(int ue, uint32_t i);

/* Whether a round waits in my MPB (from any sender); whether a queued
 * packet can move (its EWS is free: never used, or the receiver consumed my
 * last round), or a sent one waits for done() (channel.c; the wait
 * condition of mpi_channel_idle). */
int chan_round_waiting(void);
int chan_can_send(void);

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The next n payload bytes at `from` into target t at the cursor (*index,
 * *offset); returns how many were taken (beyond the target's end every byte
 * is read and discarded).  >=: the provider may shrink the target's lengths
 * while the packet lands (its endpoint closed: the rest is discarded,
 * channel.h).  Shared by both engines' receivers. */
static inline uint64_t chan_into_target(const struct mpi_in_target *t, size_t *index, size_t *offset,
                                        const unsigned char *from, uint64_t n) {
  while (*index < t->iov_count && *offset >= t->iov[*index].iov_len) {
    (*index)++;
    *offset = 0;
  }
  if (*index == t->iov_count) return n;
  const struct iovec *v = &t->iov[*index];
  uint64_t k = min_u64(n, v->iov_len - *offset);
  memcpy((unsigned char *)v->iov_base + *offset, from, k);
  *offset += k;
  return k;
}

/* Shared by both engines (channel.c): p, the head of dest's FIFO, has left
 * whole -- counted, recorded, and queued for its done() (never called from
 * inside post: the provider may still be setting the packet up); and the
 * done() calls of the packets so queued (how many). */
void chan_packet_left(int dest, struct mpi_out_packet *p);
int chan_finish_sent(void);
/* The last of a packet of `bytes` (header included) from src landed in t:
 * counted, recorded, and handed to the provider (the caller has reset its
 * receive state: complete() may post). */
void chan_packet_complete(int src, uint64_t bytes, struct mpi_in_target *t);

/* One pass over the senders, starting one further each time (the paper's
 * round-robin polling of the metadata): receive() each whose round is
 * there(); how many.  Inline, so each engine's calls are direct. */
static inline int chan_poll_senders(int (*there)(int src), void (*receive)(int src)) {
  int moved = 0;
  for (int k = 0; k < chan.nue; k++) {
    int src = (chan.next_poll + k) % chan.nue;
    if (!there(src)) continue;
    receive(src);
    moved++;
  }
  chan.next_poll = (chan.next_poll + 1) % chan.nue;
  return moved;
}

/* Native single copy of large payloads (channel_copy.c, docs/mpi-channel.md
 * "Single copy"): the rendezvous round carries the header and a
 * CHAN_COPY_DESC_BYTES descriptor; the receiver copies the payload from the
 * sender's iov and leaves a status in the EWS payload before it publishes
 * its receive sequence. */
#define CHAN_COPY_DESC_BYTES 16
enum { CHAN_COPY_DONE = 1, CHAN_COPY_REFUSED = 2 };
/* At open: whether this UE's large payloads may go by single copy; lets the
 * job's other UEs read this process. */
void chan_copy_open(void);
/* Sender: whether p goes by single copy; its descriptor, into `to`. */
int chan_copy_wanted(const struct mpi_out_packet *p);
void chan_copy_describe(const struct mpi_out_packet *p, unsigned char *to);
/* Receiver: copy the payload of the packet from src described at `desc`
 * into r's target; CHAN_COPY_DONE, or CHAN_COPY_REFUSED (the kernel refused
 * or failed: the sender then moves the payload in rounds). */
uint8_t chan_copy_pull(int src, const unsigned char *desc, struct chan_rx *r);

/* The sccmpich channel (channel_sccmpich*.c, SCC-MPICH's protocols): while
 * it is open, channel.c's public functions and wait conditions hand over to
 * these (one line at the top of each). */
static inline int chan_sccm_kind(enum mpi_channel_kind k) {
  return k == MPI_CHANNEL_SCCMPICH || k == MPI_CHANNEL_SCCMPICH_NORMAL;
}
int chan_sccm_open(struct hw_job *job, int ue, enum mpi_channel_kind kind, const struct mpi_channel_sink *sink,
                   char *err, size_t errlen);
int chan_sccm_is_open(void);
void chan_sccm_close(void);
void chan_sccm_post(struct mpi_out_packet *p);
int chan_sccm_progress(void);
int chan_sccm_round_waiting(void);
int chan_sccm_can_send(void);

#endif

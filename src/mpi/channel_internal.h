/*
 * The channel's internals, shared by channel*.c (channel.h is the
 * provider's view).  One engine runs both protocols; what differs between
 * them is the geometry of the MPB (channel_geometry.c).
 */
#ifndef OPENSCC_MPI_CHANNEL_INTERNAL_H
#define OPENSCC_MPI_CHANNEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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
#define CHAN_ROUND_MAX 65535u   /* round_bytes is 16 bits */

/* The gEWS control bit of chunk i (Fig. 2 of [RCKMPI-2011]: the first
 * chunks are the high bits). */
static inline uint32_t chan_chunk_bit(uint32_t i) { return 0x80000000u >> i; }

/* Per destination: the packets queued for it and the round in its EWS. */
struct chan_tx {
  struct mpi_out_packet *head, *tail;
  uint8_t seq;        /* send sequence of the last round written */
  uint8_t in_flight;  /* that round is not known to be consumed yet */
  uint8_t busy_noted; /* this round's wait for the EWS was counted */
  uint32_t gews_held; /* chunks of the round in flight */
};

/* Per sender: the packet being received from it. */
struct chan_rx {
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

#endif

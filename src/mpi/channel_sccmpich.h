/*
 * The sccmpich channel's internals (channel_sccmpich*.c): SCC-MPICH's
 * protocols over the MPB ([SCC-2BOARD] sec. V; docs/mpi-channel.md
 * "sccmpich").  iRCCE underneath in remote-put/local-get mode: a sender
 * writes into the receiver's MPB, a receiver polls only its own MPB -- one
 * probe flag per sender, a big flag whose 32-byte line carries the sync word
 * and, as a tagged flag, 28 bytes of payload -- and acknowledges into the
 * sender's MPB.  Three protocols chosen by the packet's length:
 *  - short: the whole packet in the probe flag's two lines (tagged flags);
 *  - eager: one round, the probe flag plus the sender's eager slot at the
 *    receiver, without asking;
 *  - rendezvous: a request-to-send in the probe flag, a clear-to-send in the
 *    acknowledgement once the receiver's rendezvous buffer is granted to this
 *    sender, then chunks through the buffer's two halves, pipelined.
 */
#ifndef OPENSCC_MPI_CHANNEL_SCCMPICH_H
#define OPENSCC_MPI_CHANNEL_SCCMPICH_H

#include "channel_internal.h"

/* The sync word opens the probe flag's first line (iRCCE's big flag: one
 * 4-byte word synchronises, the rest of the line is a tagged flag's payload):
 * bits 0-7 the round's sequence (modulo 256; the receiver's timing stamps are
 * tagged with it), 8-11 the kind, 12 the rendezvous half, 16-31 the bytes the
 * round carries. */
enum sccm_kind { SCCM_SHORT = 1, SCCM_EAGER = 2, SCCM_RTS = 3, SCCM_DATA = 4 };
#define SCCM_SYNC_BYTES 4
#define SCCM_SIZE_BYTES 8 /* a request-to-send's packet size, in front of its inline bytes */
static inline uint32_t sccm_sync(uint8_t seq, enum sccm_kind kind, uint32_t half, uint32_t bytes) {
  return seq | (uint32_t)kind << 8 | half << 12 | bytes << 16;
}

/* The acknowledgement word, in the first line of the receiver's ack flag in
 * the sender's MPB: bits 0-7 count its writes (the timing stamp's tag), 8-15
 * the last round consumed, 16-23 the clear-to-sends granted so far. */
static inline uint32_t sccm_ack(uint8_t writes, uint8_t consumed, uint8_t grants) {
  return writes | (uint32_t)consumed << 8 | (uint32_t)grants << 16;
}
static inline uint8_t sccm_ack_consumed(uint32_t w) { return (uint8_t)(w >> 8); }
static inline uint8_t sccm_ack_grants(uint32_t w) { return (uint8_t)(w >> 16); }

/* Where the protocols live in every core's MPB, for a job of nue UEs (all
 * indexed by UE): nue probe flags of 2 lines, nue acknowledgement flags of 1
 * line, nue eager slots, the rendezvous buffer (two halves). */
struct sccm_geometry {
  uint32_t line;         /* the chip's line (32 B on the SCC) */
  uint32_t probe_off;    /* probe flag of sender s: probe_off + s * 2 lines */
  uint32_t ack_off;      /* ack flag of receiver r: ack_off + r * line */
  uint32_t slot_off;     /* eager slot of sender s: slot_off + s * slot_bytes */
  uint32_t slot_bytes;   /* 0: no eager protocol (no room) */
  uint32_t rndv_off;     /* the rendezvous buffer's two halves */
  uint32_t half_bytes;   /* one half: a rendezvous chunk */
  uint32_t inline_bytes; /* packet bytes in the probe flag: 2 lines - sync word (tagged), else 0 */
  uint32_t used_bytes;   /* of the MPB; the rest is left for other uses */
};
int sccm_geometry_of(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, struct sccm_geometry *g,
                     char *err, size_t errlen);

/* The protocol of a packet of `bytes` (header included). */
enum sccm_kind sccm_protocol_of(const struct sccm_geometry *g, uint64_t bytes);

/* Per destination: its FIFO, its probe flag's round in flight, its rendezvous. */
enum sccm_rndv { SCCM_RNDV_NONE, SCCM_RNDV_WAIT_CTS, SCCM_RNDV_GRANTED };
struct sccm_tx {
  struct mpi_out_packet *head, *tail;
  uint8_t seq;        /* sequence of the last round published */
  uint8_t in_flight;  /* that round is not known to be consumed */
  uint8_t busy_noted; /* the wait for the probe flag was counted (ews_busy) */
  uint8_t grants;     /* clear-to-sends seen from dest */
  enum sccm_rndv rndv;
  uint32_t data_rounds; /* of the rendezvous in progress: chunk k goes into half k % 2 */
  uint32_t staged;      /* bytes of the next chunk already in its half, not yet announced */
};

/* Per sender: the packet being received, and the acknowledgements written. */
struct sccm_rx {
  uint8_t seq; /* the last round consumed */
  uint8_t ack_writes, grants;
  uint32_t data_rounds;
  uint64_t packet_bytes; /* 0: between packets */
  uint64_t got;
  unsigned char header[MPI_PACKET_HEADER];
  struct mpi_in_target t;
  size_t iov_index, iov_offset;
};

/* The sccmpich side of this process's channel; chan (channel_internal.h)
 * holds what both engines share: job, me, nue, open, sink, stats, pending,
 * the done list, in_engine, next_poll. */
struct sccm_state {
  struct sccm_geometry g;
  struct sccm_tx *tx; /* by destination UE */
  struct sccm_rx *rx; /* by sender UE */
  int owner;          /* the sender my rendezvous buffer is granted to, or -1 */
  int *waiting;       /* senders whose request-to-send waits for the buffer (FIFO ring) */
  int wait_head, wait_count;
  uint32_t owner_idle; /* passes with senders waiting in which the owner sent no chunk */
};
extern struct sccm_state sccm;

/* MPB addresses: sender s's probe flag at receiver r, receiver r's ack flag
 * at sender s, s's eager slot at r, half h of r's rendezvous buffer. */
unsigned char *sccm_probe(int r, int s);
unsigned char *sccm_ack_flag(int s, int r);
unsigned char *sccm_slot(int r, int s);
unsigned char *sccm_half(int r, uint32_t h);

/* One step of the packets queued for dest (channel_sccmpich_send.c); one
 * pass over my probe flags (channel_sccmpich_recv.c).  Each returns the
 * rounds it moved. */
int sccm_send_step(int dest);
int sccm_receive_rounds(void);
/* The wait conditions (chan_ops): a round waits in one of my probe flags; a
 * queued packet can move, or a sent one waits for done(). */
int sccm_round_waiting(void);
int sccm_can_send(void);

#endif

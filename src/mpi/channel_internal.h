/*
 * The channel's internals, shared by channel*.c (channel.h is the
 * provider's view).  Two engines: RCKMPI's (channel.c) runs rckmpi and
 * rckmpi-original, which differ only in the geometry of the MPB
 * (channel_geometry.c); SCC-MPICH's (channel_sccmpich*.c) runs sccmpich
 * and sccmpich-normal.  mpi_channel_open picks one engine's operations
 * table (struct chan_ops); the public functions dispatch through it.
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
  uint64_t waiting_since_ns; /* a single copy nobody wants yet kept in the EWS since (0: none) */
};

/* A protocol engine's operations, chosen once when the channel opens
 * (mpi_channel_open); channel.c's public functions and wait conditions
 * make one indirect call through them, never a test of the protocol. */
struct chan_ops {
  /* After the shared part of the state is set (chan: job, me, nue, sink,
   * stats): the engine's geometry and state; 0, or -1 with err set. */
  int (*open)(enum mpi_channel_kind kind, char *err, size_t errlen);
  void (*close)(void); /* frees the engine's state (chan is cleared after) */
  /* Queue p (checked: its destination, its iov) with chan_queue and start
   * moving it (chan_start). */
  void (*post)(struct mpi_out_packet *p);
  /* One pass inside mpi_channel_progress: read what arrived, write what can
   * go; the rounds moved. */
  int (*move)(void);
  int (*round_waiting)(void);                     /* chan_round_waiting */
  int (*can_send)(void);                          /* chan_can_send */
  int (*copying)(const struct mpi_out_packet *p); /* mpi_channel_copying */
  /* Right after a wait: which of the flags there count as arrived now
   * (chan.horizon; NULL: every flag there counts at once). */
  void (*after_wait)(void);
  int packet_bits; /* the protocol's packet size field: larger packets (header included) are refused */
};
extern const struct chan_ops chan_rckmpi_ops, chan_sccm_ops;

/* The channel of this process. */
struct chan_state {
  const struct chan_ops *ops; /* the engine of the job's protocol */
  struct hw_job *job;
  int me, nue, open;
  uint64_t horizon; /* flags stamped up to here count as arrived (chan_ops.after_wait) */
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
  int copy_ok;      /* large payloads may go by single copy (channel_copy.c) */
  int take_waiting; /* take the single copies kept waiting at this pass (mpi_channel_take_waiting) */
  /* The news shortcut (channel.c, chan_tell): the job's mpi.ue blocks (an
   * array), whether this channel uses them, and the UEs whose rounds (rx)
   * or queues (tx) its next pass must look at (news taken, a packet posted
   * from a callback, everything when just opened). */
  struct mpi_ue_shared *ue_shared;
  int news;
  uint64_t due_rx[MPI_NEWS_WORDS], due_tx[MPI_NEWS_WORDS];
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

/* UE u's bit in a set of UEs (chan.due_rx, chan.due_tx, the news words):
 * word u / 64, bit u % 64. */
static inline uint64_t chan_ue_bit(int u) { return 1ull << (u % 64); }
static inline void chan_ue_set(uint64_t *set, int u) { set[u / 64] |= chan_ue_bit(u); }
/* Whether u is in the set; it leaves it. */
static inline int chan_ue_take(uint64_t *set, int u) {
  uint64_t had = set[u / 64] & chan_ue_bit(u);
  set[u / 64] &= ~chan_ue_bit(u);
  return had != 0;
}

/* One pass over the senders, starting one further each time (the paper's
 * round-robin polling of the metadata): receive() each whose round is
 * there(); how many.  due: NULL, or the senders to look at (chan.due_rx),
 * whose bits go as they are looked at: a teller's bit follows its round,
 * so a due sender with no round there is one whose round an earlier pass
 * already took.  Inline, so each engine's calls are direct. */
static inline int chan_poll_senders(int (*there)(int src), void (*receive)(int src), uint64_t *due) {
  int moved = 0;
  /* no division per sender: 48 of them were a tenth of a 48-rank barrier's CPU time */
  for (int k = 0, src = chan.next_poll; k < chan.nue; k++, src = src + 1 == chan.nue ? 0 : src + 1) {
    if (due && !chan_ue_take(due, src)) continue;
    if (!there(src)) continue;
    receive(src);
    moved++;
  }
  chan.next_poll = chan.next_poll + 1 == chan.nue ? 0 : chan.next_poll + 1;
  return moved;
}

/* Native single copy of large payloads (channel_copy.c, docs/mpi-channel.md
 * "Single copy"): the rendezvous round carries the header and a
 * CHAN_COPY_DESC_BYTES descriptor; the receiver copies the payload from the
 * sender's iov and leaves a status in the EWS payload before it publishes
 * its receive sequence. */
#define CHAN_COPY_DESC_BYTES 16
/* The receiver's status, in the EWS payload: copied; refused by the kernel
 * (no more single copies); withdrawn by the sender first (its buffers went
 * back to its caller).  Refused and withdrawn payloads follow in rounds. */
enum { CHAN_COPY_DONE = 1, CHAN_COPY_REFUSED = 2, CHAN_COPY_WITHDRAWN = 3 };
/* At open: whether this UE's large payloads may go by single copy; lets the
 * job's other UEs read this process. */
void chan_copy_open(void);
/* Sender: whether p goes by single copy; its descriptor, into `to`. */
int chan_copy_wanted(const struct mpi_out_packet *p);
void chan_copy_describe(const struct mpi_out_packet *p, unsigned char *to);
/* Receiver: whether the single-copy rendezvous from src whose header is at
 * `header` stays in its EWS for now (nobody wants it yet: copied now, its
 * payload would be copied twice). */
int chan_copy_keep_waiting(int src, const unsigned char *header, uint64_t packet_bytes);
/* Receiver: copy the payload of the packet from src described at `desc`
 * into r's target once it claimed it; CHAN_COPY_DONE, CHAN_COPY_REFUSED (the
 * kernel refused or failed) or CHAN_COPY_WITHDRAWN. */
uint8_t chan_copy_pull(int src, const unsigned char *desc, struct chan_rx *r);
/* Sender: withdraw the rendezvous in flight to dest unless its receiver
 * claimed it first: 1 when the receiver will not read the sender's buffers
 * (withdrawn, now or before, or the receiver gone between its claim and
 * its status: reported on stderr, the packet never delivered), 0 when it
 * claimed them (it is copying, or its status waits in the EWS for my next
 * progress). */
int chan_copy_withdraw(int dest);
/* Sender, at close: withdraw every rendezvous in flight, and wait (on the
 * doorbell, in bounded naps) for the receivers that claimed one to publish
 * their status, or to be gone. */
void chan_copy_close(void);

/* Shared by both engines' post (chan_ops.post): p at the tail of its
 * destination's FIFO (*head, *tail), its progress reset, counted pending;
 * returns whether it is first in the FIFO. */
static inline int chan_queue(struct mpi_out_packet **head, struct mpi_out_packet **tail, struct mpi_out_packet *p) {
  int first = *tail == NULL;
  p->next = NULL;
  p->sent = 0;
  p->iov_index = p->iov_offset = 0;
  if (first) *head = p;
  else (*tail)->next = p;
  *tail = p;
  chan.pending++;
  return first;
}

/* Start moving a packet just queued for dest, first in its FIFO, at once:
 * step(dest) is the engine's send step (done() waits for progress).  From a
 * callback (inside the engine), or behind other packets, progress moves
 * it.  Inline, so each engine's call is direct. */
static inline void chan_start(int dest, int first, int (*step)(int dest)) {
  if (!first) return;
  if (chan.in_engine) {
    chan_ue_set(chan.due_tx, dest); /* the engine's pass sends it */
    return;
  }
  chan.in_engine = 1;
  step(dest);
  chan.in_engine = 0;
}

/* Whether UE u will never write into my MPB again, and why: "finished", its
 * provider closed its channel and marked it so (HW_UE_FINALIZED, stored
 * after its last MPB write: the acquire load makes them all visible); or,
 * looked for only when `process` (a system call), "exited", the process it
 * attached from no longer exists (it crashed, or exited without closing;
 * the rank wrapper reaps it at once).  NULL: it may still write
 * (channel_peer.c). */
const char *chan_ue_gone(int u, int process);

/* "openscc mpi channel: UE me: what" on stderr, and abort (a corrupt
 * channel, a bad packet: an emulator bug or a program that wrote over the
 * channel's part of the MPB). */
_Noreturn void chan_fatal(const char *what);

#endif

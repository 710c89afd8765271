/*
 * Internal state and helpers of the rcce layer.  The library is compiled once
 * for every combination of -DGORY / -DSINGLEBITFLAGS; RCCE.h renames the
 * option-dependent entry points, which all land on the mode-free code here.
 */
#ifndef OPENSCC_RCCE_INTERNAL_H
#define OPENSCC_RCCE_INTERNAL_H

#define RC_POWER_MANAGEMENT 1
#include "RCCE.h"
#include "RCCE_lib.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "../hw/trace.h"
#include "rcce_iface.h"
#include "rcce_shared.h"

/* The SINGLEBITFLAGS form of RCCE_FLAG (see RCCE.h). */
typedef struct {
  int location;
  t_vcharp line_address;
} rcce_sbflag;

/* A flag independent of the flag mode: a line offset in every UE's MPB and a
 * bit within the line (-1: a big flag, the line's first word). */
struct rcce_iflag {
  uint32_t off;
  int32_t bit;
};

struct rcce_sbline {
  uint32_t off;
  uint32_t used[8]; /* 256 flag bits per 32-byte line */
};

struct rcce_state {
  struct hw_job job;
  struct rcce_job_shared *shared;   /* rcce_shared.h: the job's rcce block */
  struct rcce_ue_shared *ue_shared; /* rcce_shared.h: every UE's block, by UE */
  int initialized, finalized;
  int ue, nue, core;
  int flag_mode; /* RCCE_FLAGMODE_BIG or RCCE_FLAGMODE_SINGLEBIT */
  int gory;
  uint32_t line;                /* line size (RCCE_LINE_SIZE) */
  uint32_t mpb_bytes;           /* MPB bytes per core */
  struct range_alloc mpb_alloc; /* in lines of my MPB */
  unsigned char *flag_line;     /* per MPB line: 1 if it holds flags */
  struct rcce_sbline *sblines;  /* single-bit flag lines */
  int nsblines, sblines_cap;
  struct range_alloc shm_alloc;    /* in lines of the shared region */
  struct rcce_iflag *sent, *ready; /* basic interface: per peer */
  uint32_t *send_seq, *recv_seq;   /* basic interface: link steps per peer */
  struct rcce_xfer *send_queue;    /* xfer.c: outgoing transfers, FIFO */
  struct rcce_xfer **recv_queue;   /* xfer.c: incoming transfers per source */
  int queued;                      /* xfer.c: transfers in all queues */
  /* An upper layer's work that waits on this UE's MPB too (iRCCE's
   * any-source receives): run on every progress, and whether it can move. */
  void (*extra_progress)(void);
  int (*extra_can_move)(void);
  int extra_waiting; /* requests of that layer not yet in a queue */
  int debug_mask;
  int comm_count;
  int flag_reads_unchanged;        /* user polling with RCCE_flag_read: yield when long */
  int tagged;                      /* job option --flags tagged, with big flags */
  int rplg;                        /* job option --scheme rplg: senders put into the receiver's buffer */
  int landing_owner;               /* RPLG: the UE allowed to put into my buffer, or -1 */
  size_t last_recv_size;           /* iRCCE_get_length */
  void (*finalize_hooks[4])(void); /* rcce_at_finalize */
  int nfinalize_hooks;
};

extern struct rcce_state rcce_g;

/* The layers above use rcce_iface.h (errors, MPB lines, finalize hooks,
 * counting, the transfer engine's calls). */

/* RCCE_ERROR_MESSAGE_LENGTH for a message of `has` bytes from src taken by a receive of `want`. */
int rcce_length_error(const char *where, int src, size_t has, size_t want);

/* Copies into and out of an MPB: what the timing layer charges by the line. */
static inline void rcce_mpb_write(volatile void *mpb, const void *src, size_t n) {
  hw_mpb_copy(&rcce_g.job, mpb, src, n);
  if (timing_enabled) timing_mpb_copy(mpb, n, 1);
}
static inline void rcce_mpb_read(void *dst, const volatile void *mpb, size_t n) {
  memcpy(dst, (const void *)mpb, n);
  if (timing_enabled) timing_mpb_copy(mpb, n, 0);
}
static inline struct rcce_ue_counters *rcce_counters(void) { return &rcce_g.ue_shared[rcce_g.ue].counters; }
/* rcce_count_message (rcce_iface.h), inline on the message path. */
static inline void rcce_counters_add_message(int sending, int peer, size_t size) {
  struct rcce_ue_counters *c = rcce_counters();
  if (sending) {
    c->msgs_sent++;
    c->bytes_sent += size;
  } else {
    c->msgs_recv++;
    c->bytes_recv += size;
  }
  if (rcce_g.job.hdr->set.trace_level >= HW_TRACE_TARGETS) timing_record_message(sending, peer, size);
}

/* Flags. */
int rcce_iflag_alloc(struct rcce_iflag *f);
int rcce_iflag_free(struct rcce_iflag f);
/* The word of UE ue's MPB that holds flag f, and f's bits in it; the slot
 * the timing layer stamps its value under.  Reading and writing a flag are
 * inline: every step of a message and every poll of a wait does one. */
static inline volatile uint32_t *rcce_iflag_word(struct rcce_iflag f, int ue) {
  unsigned char *line = rcce_mpb_of(ue) + f.off;
  return (volatile uint32_t *)(line + (f.bit < 0 ? 0 : (f.bit / 32) * 4));
}
static inline uint32_t rcce_iflag_mask(struct rcce_iflag f) { return f.bit < 0 ? ~0u : 1u << (f.bit % 32); }
static inline int rcce_iflag_slot(struct rcce_iflag f) { return f.bit < 0 ? 0 : f.bit; }
static inline int rcce_iflag_read(struct rcce_iflag f, int ue) {
  uint32_t w = __atomic_load_n(rcce_iflag_word(f, ue), __ATOMIC_ACQUIRE);
  return f.bit < 0 ? (int)w : (w & rcce_iflag_mask(f)) != 0;
}
/* Write flag f in UE ue's MPB (release: what was written before goes with
 * it) and ring ue's doorbell. */
static inline void rcce_iflag_write(struct rcce_iflag f, int val, int ue) {
  volatile uint32_t *w = rcce_iflag_word(f, ue);
  if (timing_enabled) timing_flag_write(w, rcce_iflag_slot(f), (uint32_t)val);
  if (f.bit < 0) hw_mpb_store32(&rcce_g.job, w, (uint32_t)val);
  else if (val) hw_mpb_rmw32(&rcce_g.job, w, HW_RMW_OR, rcce_iflag_mask(f));
  else hw_mpb_rmw32(&rcce_g.job, w, HW_RMW_AND, ~rcce_iflag_mask(f));
  if (ue != rcce_g.ue) hw_ring(&rcce_g.job, ue);
  rcce_counters()->flag_writes++;
}
/* Read a flag as a protocol step that consumes it (model mode: the reader
 * catches up with the writer's stamp and pays the read). */
int rcce_iflag_seen(struct rcce_iflag f, int ue);
void rcce_iflag_wait(struct rcce_iflag f, int val, const struct hw_wait_desc *why);
int rcce_iflag_from_big(RCCE_FLAG f, struct rcce_iflag *out);
int rcce_iflag_from_sb(const rcce_sbflag *f, struct rcce_iflag *out);

/* How the two ends of a transfer signal each other.  The sender sets `sent`
 * in the receiver's MPB, the receiver sets `ready` in the sender's MPB.  With
 * seq != NULL (basic interface) the flags carry step sequence numbers and
 * are never reset, so each flag line is written by one side only; with
 * seq == NULL (gory interface) the caller's flags follow RCCE's SET/UNSET
 * protocol.  A basic-interface big sent flag also carries the message header
 * (or, tagged, the whole short message) in the rest of its line, link.h. */
struct rcce_link {
  struct rcce_iflag ready, sent;
  uint32_t *seq; /* my step counter for this peer and direction */
};

/* What the first step of a message tells the receiver. */
enum {
  RCCE_MSG_SINGLE_COPY = 1, /* single_copy.c moves the data */
  RCCE_MSG_PIPELINED = 2,   /* chunks alternate between the buffer's halves */
};
struct rcce_msg_info {
  size_t size;
  uint32_t mode;        /* RCCE_MSG_* */
  int tagged;           /* the data is in the sent flag's line */
  uint64_t sender_addr; /* the message in the sender's private memory */
};
/* Step numbers in a big sent/ready flag (link.h). */
#define RCCE_SEQ_MASK 0x00ffffffu

/* Whether the link's sent flag carries headers and tags (big flags, basic interface). */
static inline int rcce_link_has_header(const struct rcce_link *l) { return l->seq && l->sent.bit < 0; }

/* Whether a message of this size travels inside the sent flag's line (rccerun --flags tagged). */
static inline int rcce_link_tagged(const struct rcce_link *l, size_t size) {
  return rcce_g.tagged && rcce_link_has_header(l) && size <= RCCE_TAG_BYTES;
}

/* The value a flag holds after step k: the number itself in a big flag, its
 * parity in a single bit (the protocol never lets two steps overlap there).
 * This and the two below are inline: every step and every poll of a wait
 * asks them. */
static inline int rcce_link_seq_value(const struct rcce_link *l, uint32_t k) {
  return l->sent.bit < 0 ? (int)(k & RCCE_SEQ_MASK) : (int)(k & 1);
}
/* `sent` value of the next step. */
static inline int rcce_link_next_value(const struct rcce_link *l) {
  return l->seq ? rcce_link_seq_value(l, *l->seq + 1) : RCCE_FLAG_SET;
}
/* Whether my copy of flag f has reached value v of link l's protocol. */
static inline int rcce_link_reached(const struct rcce_link *l, struct rcce_iflag f, int v) {
  int now = rcce_iflag_read(f, rcce_g.ue);
  if (!l->seq || f.bit >= 0) return now == v;
  /* Sequence numbers only grow: "reached" is modular >=, so a pipelined
   * sender one step ahead (iRCCE_ssend) is seen as well (half the range). */
  return (((uint32_t)now - (uint32_t)v) & RCCE_SEQ_MASK) < (RCCE_SEQ_MASK + 1) / 2;
}

/* The link steps, inline (link.h). */
#include "link.h"

/* One message in flight, as a resumable state machine (xfer.c): what
 * non-blocking requests are made of.  Each UE has one send buffer, so its
 * outgoing messages form one FIFO queue; incoming ones form one queue per
 * source (messages between a pair stay in order).  Only queue heads move. */
struct rcce_xfer {
  char *priv;
  size_t size, done, chunk, pending;
  unsigned char *combuf; /* where chunks travel: the sender's (LPRG) or the receiver's (RPLG) buffer */
  uint32_t comb_off;     /* its offset in an MPB */
  struct rcce_link link;
  struct rcce_msg_info msg;
  int peer, sending, step, sc_step, queued, any_length, error;
  uint32_t sc_status;          /* single_copy.c: how my half of the copy went */
  uint32_t acked;              /* pipelined sender: chunks acknowledged */
  int first_value;             /* pipelined sender: the first chunk's step value */
  struct rcce_iflag wait_flag; /* when stuck: my copy of this flag must reach wait_value */
  int wait_value;
  int wait_landing; /* when stuck: waiting for my landing buffer (RPLG) */
  struct rcce_xfer *next;
};
_Static_assert(sizeof(struct rcce_xfer) <= sizeof(struct rcce_xfer_storage) &&
                   _Alignof(struct rcce_xfer) <= _Alignof(struct rcce_xfer_storage),
               "struct rcce_xfer_storage (rcce_iface.h) too small for a transfer");

/* Pipelined messages move in halves of the comm buffer, whole lines each. */
static inline size_t rcce_pipeline_half(size_t chunk) { return (chunk / 2) & ~(size_t)(RCCE_LINE_SIZE - 1); }

/* Block until no transfer from src is queued. */
void rcce_xfer_drain_recvs(int src);
/* Whether a transfer under way uses my comm buffer (the collectives need it). */
int rcce_xfer_buffer_busy(void);
/* Whether a message from src is waiting on link l that no queued receive
 * will take (it belongs to the requests queued before). */
int rcce_xfer_unclaimed(const struct rcce_link *l, int src);

/* The basic interface's resources for a message to dest / from src. */
static inline struct rcce_link rcce_basic_send_link(int dest) {
  return (struct rcce_link){rcce_g.ready[dest], rcce_g.sent[rcce_g.ue], &rcce_g.send_seq[dest]};
}
static inline struct rcce_link rcce_basic_recv_link(int src) {
  return (struct rcce_link){rcce_g.ready[rcce_g.ue], rcce_g.sent[src], &rcce_g.recv_seq[src]};
}
static inline uint32_t rcce_basic_buff_off(void) { return (uint32_t)(RCCE_buff_ptr - RCCE_comm_buffer[rcce_g.ue]); }

/* Blocking synchronous transfer through the MPB (xfer.c): one transfer run
 * to completion -- alone, by its own steps, sleeping on the flag it is stuck
 * on; behind queued transfers, in the queue (messages stay in order).  size
 * may be RCCE_ANY_LENGTH_INTERNAL for a receive (rcce_g.last_recv_size tells it). */
int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int dest,
                      int pipelined);
int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int src,
                      int *test);
/* Copy the first n bytes of the next message waiting from src (RCCE_peek). */
int rcce_peek_general(char *priv, size_t n, int src);
int rcce_peek_size_general(int src, size_t *size);

/* Communicators. */
int rcce_comm_build(const int *members, int n, RCCE_COMM *comm);
/* RCCE 2.0's non-blocking barrier (comm.c): RCCE_PENDING until released. */
int rcce_nb_barrier(RCCE_COMM *comm, const char *where);
int rcce_comm_setup_world(void);

/* Symmetric allocation of whole lines from base (RCCE_malloc, RCCE_shmalloc);
 * NULL, reported as RCCE_ERROR_MALLOC, when nothing fits. */
t_vcharp rcce_alloc_lines(struct range_alloc *ra, unsigned char *base, size_t size, const char *where,
                          const char *what);

/* Allocation of flag lines at the top of my MPB. */
int64_t rcce_flag_line_alloc(void);

#endif

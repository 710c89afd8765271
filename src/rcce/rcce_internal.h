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

#include <stdint.h>

#include "../hw/segment.h"
#include "../hw/wait.h"
#include "range_alloc.h"

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
  int initialized, finalized;
  int ue, nue, core;
  int flag_mode; /* HW_FLAGS_BIG or HW_FLAGS_SINGLEBIT */
  int gory;
  uint32_t line;       /* line size (RCCE_LINE_SIZE) */
  uint32_t mpb_bytes;  /* MPB bytes per core */
  struct range_alloc mpb_alloc;  /* in lines of my MPB */
  unsigned char *flag_line;      /* per MPB line: 1 if it holds flags */
  struct rcce_sbline *sblines;   /* single-bit flag lines */
  int nsblines, sblines_cap;
  struct range_alloc shm_alloc;  /* in lines of the shared region */
  struct rcce_iflag *sent, *ready; /* basic interface: per peer */
  uint32_t *send_seq, *recv_seq;   /* basic interface: link steps per peer */
  struct rcce_xfer *send_queue;    /* xfer.c: outgoing transfers, FIFO */
  struct rcce_xfer **recv_queue;   /* xfer.c: incoming transfers per source */
  int queued;                      /* xfer.c: transfers in all queues */
  /* An upper layer's work that waits on this UE's MPB too (iRCCE's
   * any-source receives): run on every progress, and whether it can move. */
  void (*extra_progress)(void);
  int (*extra_can_move)(void);
  int extra_waiting;               /* requests of that layer not yet in a queue */
  int debug_mask;
  int comm_count;
  int flag_reads_unchanged; /* user polling with RCCE_flag_read: yield when long */
};

extern struct rcce_state rcce_g;

/* Errors: return code, printed when debugging is on for the category. */
int rcce_error(int category, int code, const char *where, const char *detail_fmt, ...)
    __attribute__((format(printf, 4, 5)));
int rcce_check_ue(int ue, const char *where);

static inline unsigned char *rcce_mpb_of(int ue) { return (unsigned char *)RCCE_comm_buffer[ue]; }
static inline struct hw_counters *rcce_counters(void) { return &hw_ue(&rcce_g.job, rcce_g.ue)->counters; }
/* Count a message sent or received (n = 1), or take one back (n = -1). */
static inline void rcce_count_message(int sending, size_t size, int n) {
  struct hw_counters *c = rcce_counters();
  if (sending) {
    c->msgs_sent += (uint64_t)n;
    c->bytes_sent += (uint64_t)n * size;
  } else {
    c->msgs_recv += (uint64_t)n;
    c->bytes_recv += (uint64_t)n * size;
  }
}

/* Flags. */
int rcce_iflag_alloc(struct rcce_iflag *f);
int rcce_iflag_free(struct rcce_iflag f);
void rcce_iflag_write(struct rcce_iflag f, int val, int ue);
int rcce_iflag_read(struct rcce_iflag f, int ue);
void rcce_iflag_wait(struct rcce_iflag f, int val, const struct hw_wait_desc *why);
int rcce_iflag_from_big(RCCE_FLAG f, struct rcce_iflag *out);
int rcce_iflag_from_sb(const rcce_sbflag *f, struct rcce_iflag *out);

/* How the two ends of a transfer signal each other.  The sender sets `sent`
 * in the receiver's MPB, the receiver sets `ready` in the sender's MPB.  With
 * seq != NULL (basic interface) the flags carry step sequence numbers and
 * are never reset, so each flag line is written by one side only; with
 * seq == NULL (gory interface) the caller's flags follow RCCE's SET/UNSET
 * protocol. */
struct rcce_link {
  struct rcce_iflag ready, sent;
  uint32_t *seq; /* my step counter for this peer and direction */
};

/* Link steps (link.c).  Blocking: */
void rcce_link_send_step(struct rcce_link *l, int dest); /* announce, wait for the acknowledgement */
void rcce_link_recv_wait(struct rcce_link *l, int src);  /* wait for and take the next step */
void rcce_link_recv_ack(struct rcce_link *l, int src);   /* acknowledge it */
/* Non-blocking: */
int rcce_link_announce(struct rcce_link *l, int dest);   /* returns the `ready` value to expect */
int rcce_link_acked(struct rcce_link *l, int ack_value); /* 1 (and consumed) when acknowledged */
int rcce_link_next_value(const struct rcce_link *l);     /* `sent` value of the next step */
int rcce_link_arrived(struct rcce_link *l);              /* 1 (and consumed) when the step is there */

/* One message in flight, as a resumable state machine (xfer.c): what
 * non-blocking requests are made of.  Each UE has one send buffer, so its
 * outgoing messages form one FIFO queue; incoming ones form one queue per
 * source (messages between a pair stay in order).  Only queue heads move. */
struct rcce_xfer {
  char *priv;
  size_t size, done, chunk, pending;
  unsigned char *combuf; /* the sender's comm buffer, in the sender's MPB */
  struct rcce_link link;
  int peer, sending, step, sc_step, queued;
  struct rcce_iflag wait_flag; /* when stuck: my copy of this flag must reach wait_value */
  int wait_value;
  struct rcce_xfer *next;
};

void rcce_xfer_start(struct rcce_xfer *x, char *priv, size_t size, unsigned char *combuf, size_t chunk,
                     const struct rcce_link *l, int peer, int sending);
int rcce_xfer_done(const struct rcce_xfer *x);
/* Queue a started transfer and move the queues; 1 when it is already complete. */
int rcce_xfer_submit(struct rcce_xfer *x);
/* Move every queue head as far as possible without blocking. */
void rcce_xfer_progress(void);
/* Block until x is complete (moving the queue in front of it). */
void rcce_xfer_wait(struct rcce_xfer *x);
/* Block until no outgoing transfer / no transfer from src is queued. */
void rcce_xfer_drain_sends(void);
void rcce_xfer_drain_recvs(int src);
/* Remove a queued transfer that has not started; 1 when removed. */
int rcce_xfer_cancel(struct rcce_xfer *x);

/* Sleep until some queue head can move (after moving them all). */
void rcce_xfer_idle(void);
/* Whether a queue head (or the upper layer's work) can move now. */
int rcce_xfer_can_move(void);

/* The basic interface's resources for a message to dest / from src. */
static inline struct rcce_link rcce_basic_send_link(int dest) {
  return (struct rcce_link){rcce_g.ready[dest], rcce_g.sent[rcce_g.ue], &rcce_g.send_seq[dest]};
}
static inline struct rcce_link rcce_basic_recv_link(int src) {
  return (struct rcce_link){rcce_g.ready[rcce_g.ue], rcce_g.sent[src], &rcce_g.recv_seq[src]};
}
static inline uint32_t rcce_basic_buff_off(void) { return (uint32_t)(RCCE_buff_ptr - RCCE_comm_buffer[rcce_g.ue]); }
/* RCCE_ERROR_ID etc. for a peer of the basic interface (not me, in range, initialised). */
int rcce_check_basic_peer(int peer, const char *where);

/* Blocking synchronous transfer through the MPB (local put, remote get). */
int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size,
                      int dest);
int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int src,
                      int *test);

/* Communicators. */
int rcce_comm_build(const int *members, int n, RCCE_COMM *comm);
int rcce_comm_setup_world(void);

/* Symmetric allocation of whole lines from base (RCCE_malloc, RCCE_shmalloc);
 * NULL, reported as RCCE_ERROR_MALLOC, when nothing fits. */
t_vcharp rcce_alloc_lines(struct range_alloc *ra, unsigned char *base, size_t size, const char *where,
                          const char *what);

/* Allocation of flag lines at the top of my MPB. */
int64_t rcce_flag_line_alloc(void);

#endif

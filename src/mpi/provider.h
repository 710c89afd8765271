/*
 * mpi layer: the libfabric provider `openscc` (docs/mpi-provider.md), the
 * upper half of the mpi layer.  An unmodified MPI library (Open MPI's btl
 * ofi, MPICH's ch4:ofi) loads it through FI_PROVIDER_PATH and gets an RDM
 * endpoint whose every byte travels through the channel (channel.h), i.e.
 * through the emulated MPB.
 *
 * Files, one concern each:
 *   prov_info.c     getinfo, the provider description, fi_prov_ini
 *   prov_job.c      attach to the job, open/close the channel (fabric open/close)
 *   prov_fabric.c   fabric, domain;  prov_mr.c  memory registration
 *   prov_av.c       address vector and the address format
 *   prov_cq.c       completion queues;  prov_cntr.c  counters
 *   prov_ep.c       the endpoint object (bind, enable, options, name, cancel)
 *   prov_ops.c      the fi_msg and fi_tagged calls
 *   prov_send.c     sends (one packet each) and loopback
 *   prov_recv.c     receive operations, matching, unexpected messages
 *   prov_arrive.c   the channel's sink: incoming packets to receives
 *   prov_rma.c      one-sided operations (fi_rma, and fi_atomic's through
 *                   prov_atomic.c) as active messages; prov_rma_target.c
 *                   the target's side (prov_rma.h)
 *   prov_progress.c manual progress and idling
 *   prov_caller.c   whether a poll is the program's own (MPI_Test) or a wait
 *   prov_drain.c    the helper thread moving packets left queued while the
 *                   application stays away from the provider
 *   prov_stubs.c    the unsupported operations
 * Threading: every entry point that touches the provider's state runs under
 * one process-wide recursive lock (PROV_LOCK_SCOPE, PROV_TIMING_SCOPE), so
 * the channel, which is single-threaded (channel.h), sees one caller at a
 * time whatever threading level the library asked for (FI_THREAD_SAFE for
 * MPI_THREAD_MULTIPLE, e.g. under mpi4py; prov_info.c).  Only a thread
 * napping in prov_idle runs without it.
 */
#ifndef OPENSCC_MPI_PROVIDER_H
#define OPENSCC_MPI_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_prov.h>

#include "../timing/timing.h"
#include "channel.h"

#define PROV_NAME "openscc"
#define PROV_VERSION FI_VERSION(0, 2)
/* Endpoints per process (the header's 16-bit endpoint index, bounded for the
 * AV's reverse map). */
#define PROV_MAX_EP 64
#define PROV_IOV_LIMIT 8
#define PROV_INJECT_SIZE 4096
#define PROV_MAX_MSG_SIZE ((size_t)1 << 30)
/* Addresses (FI_ADDR_STR): "fi_openscc://JOB:UE:EP", NUL-padded to a fixed size. */
#define PROV_ADDR_LEN 48

extern struct fi_provider prov_provider;

/* ---- packet header (MPI_PACKET_HEADER bytes in front of every payload) ---- */
/* MSG, TAGGED: messages (prov_send.c, prov_recv.c); WRITE, READ, ATOMIC and
 * their REPLY: one-sided operations as active messages (prov_rma*.c). */
enum prov_op {
  PROV_OP_MSG = 1,
  PROV_OP_TAGGED = 2,
  PROV_OP_WRITE = 3,
  PROV_OP_READ = 4,
  PROV_OP_ATOMIC = 5,
  PROV_OP_REPLY = 6
};
#define PROV_HDR_CQ_DATA 0x1 /* data carries remote CQ data */
struct prov_hdr {
  uint8_t op, flags;
  uint16_t src_ep, dst_ep, reserved;
  uint64_t tag, data, len;
};
_Static_assert(sizeof(struct prov_hdr) == MPI_PACKET_HEADER, "the packet header is 32 bytes");

/* ---- the process: its job and UE (prov_job.c) ---- */
struct prov_process {
  struct hw_job job;
  int ue;
  int attached, channel_open, closed;
  int fabrics; /* open fabric objects */
  struct prov_ep *eps[PROV_MAX_EP];
  uint64_t *pending_to; /* per destination UE: sends not yet done */
};
extern struct prov_process prov_g;

/* Open the fabric's process state on first use: 0, or a negative fi_errno. */
int prov_job_open(void);
/* fabric open (prov_fabric.c), the provider's .fabric. */
int prov_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **out, void *ctx);
/* The last fabric closed: drain, close the channel, finalize the UE. */
void prov_job_close(void);
/* Memory ran out where a message would be lost silently (an arriving
 * packet, a completion): one line on stderr, "openscc provider on UE n: out
 * of memory (...)", and the UE aborts -- a lost message would hang the job. */
_Noreturn void prov_out_of_memory(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The job's identity in addresses (its launcher's pid). */
int prov_job_id(void);

/* ---- completion queue (prov_cq.c) ---- */
struct prov_cq_slot {
  struct fi_cq_err_entry e; /* err == 0: a successful completion */
  fi_addr_t src;
};
struct prov_cq {
  struct fid_cq cq;
  enum fi_cq_format format;
  size_t entry_bytes;
  struct prov_cq_slot *q;
  size_t cap, head, tail; /* FIFO: head..tail-1 */
};
int prov_cq_open(struct fid_domain *d, struct fi_cq_attr *attr, struct fid_cq **out, void *ctx);
/* Queue a completion (e->err == 0) or an error (e->err != 0); src is the
 * sender's fi_addr for receives.  Returns 0 or -FI_ENOMEM. */
int prov_cq_push(struct prov_cq *cq, const struct fi_cq_err_entry *e, fi_addr_t src);

/* ---- counter (prov_cntr.c) ---- */
struct prov_cntr {
  struct fid_cntr cntr;
  uint64_t value, errors;
};
int prov_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr, struct fid_cntr **out, void *ctx);

/* ---- address vector (prov_av.c) ---- */
struct prov_peer {
  int32_t ue, ep; /* ue < 0: a removed or invalid entry */
};
struct prov_av {
  struct fid_av av;
  enum fi_av_type type;
  struct prov_peer *peers; /* by fi_addr */
  size_t n, cap;
  fi_addr_t *reverse; /* by ue * PROV_MAX_EP + ep: fi_addr, or FI_ADDR_NOTAVAIL */
  size_t nreverse;
};
int prov_av_open(struct fid_domain *d, struct fi_av_attr *attr, struct fid_av **out, void *ctx);
/* The peer of fi_addr a, or NULL. */
const struct prov_peer *prov_av_peer(const struct prov_av *av, fi_addr_t a);
/* The fi_addr of (ue, ep), or FI_ADDR_NOTAVAIL. */
fi_addr_t prov_av_reverse(const struct prov_av *av, int ue, int ep);
/* This process's endpoint `ep` as an address string of PROV_ADDR_LEN bytes. */
void prov_addr_format(char out[PROV_ADDR_LEN], int ue, int ep);

/* ---- receives (prov_recv.c) ---- */
/* A posted receive. */
struct prov_rx {
  struct prov_rx *prev, *next;
  void *ctx;
  uint64_t flags;         /* FI_MULTI_RECV, FI_COMPLETION, FI_CLAIM ... */
  int tagged;             /* posted on the tagged queue */
  int32_t src_ue, src_ep; /* src_ue < 0: any source */
  uint64_t tag, ignore;   /* tagged: match when (tag ^ msg tag) & ~ignore == 0 */
  struct iovec iov[PROV_IOV_LIMIT];
  size_t iov_count;
  uint64_t bytes; /* sum of the iov lengths */
  /* FI_MULTI_RECV: the buffer is iov[0]; messages fill it from `used` on */
  uint64_t used;
  int inflight;  /* messages landing in it, not yet complete */
  int released;  /* no longer posted: the last completion says FI_MULTI_RECV */
  int cancelled; /* fi_cancel while messages landed: the last one reports FI_ECANCELED */
};
/* A message that arrived before a matching receive was posted: buffered. */
struct prov_unexp {
  struct prov_unexp *prev, *next;
  struct prov_hdr hdr;
  int32_t src_ue;
  unsigned char *payload; /* hdr.len bytes */
  int complete;           /* every payload byte is here */
  void *claim_ctx;        /* FI_PEEK | FI_CLAIM: reserved for this context */
  int claimed;
  int abandoned;                 /* discarded or its endpoint closed: freed when complete */
  struct prov_delivery *waiting; /* a receive matched it before it was complete */
  struct iovec landing;          /* the channel's target: payload */
};
/* Where a matched message's payload goes and which receive completes. */
struct prov_delivery {
  struct prov_rx *rx;
  struct iovec iov[PROV_IOV_LIMIT];
  size_t iov_count;
  void *buf; /* FI_MULTI_RECV: the message's place in the buffer */
};

struct prov_list {
  void *head, *tail; /* struct prov_rx or struct prov_unexp (prev/next first) */
};

/* ---- endpoint (prov_ep.c) ---- */
struct prov_ep {
  struct fid_ep ep;
  int index;       /* in prov_g.eps and in packet headers */
  uint64_t serial; /* unique in the process: packets in flight find their endpoint by (index, serial) */
  int enabled;
  uint64_t caps;
  struct prov_av *av;
  struct prov_cq *tx_cq, *rx_cq;
  int tx_selective, rx_selective;
  struct prov_cntr *send_cntr, *recv_cntr;
  struct prov_cntr *write_cntr, *read_cntr; /* FI_WRITE, FI_READ: RMA and atomics (prov_rma.c) */
  struct prov_domain *domain;               /* its memory registrations serve incoming RMA */
  uint64_t tx_op_flags, rx_op_flags;
  size_t min_multi_recv;
  struct prov_list posted[2]; /* [tagged]: receives in posting order */
  struct prov_list unexp[2];  /* [tagged]: unexpected messages in arrival order */
  /* In flight: packets landing for this endpoint (prov_arrive.c) and its
   * sends not yet done (prov_send.c); detached when it closes. */
  struct prov_list arrivals, sends;
};
int prov_ep_open(struct fid_domain *d, struct fi_info *info, struct fid_ep **out, void *ctx);
/* The open endpoint (index, serial), or NULL once it closed. */
struct prov_ep *prov_ep_find(int index, uint64_t serial);
/* The open endpoint with that index (a packet header's dst_ep), or NULL. */
struct prov_ep *prov_ep_at(int index);
extern struct fi_ops_msg prov_msg_ops;
extern struct fi_ops_tagged prov_tagged_ops;
extern struct fi_ops_rma prov_rma_ops;       /* prov_rma.c */
extern struct fi_ops_atomic prov_atomic_ops; /* prov_atomic.c */

/* ---- domain and memory registration (prov_fabric.c, prov_mr.c) ---- */
struct prov_domain {
  struct fid_domain domain;
  uint64_t mr_mode; /* FI_MR_VIRT_ADDR, FI_MR_PROV_KEY: as returned by fi_getinfo */
  unsigned users;   /* open endpoints and registrations: the domain closes only without them */
};
extern struct fi_ops_mr prov_mr_ops;
/* Where an incoming one-sided access of len bytes at addr under key lands
 * in domain d's registrations, needing `access` (FI_REMOTE_READ or
 * FI_REMOTE_WRITE): 0 and *where, or the fi_errno for the initiator's error
 * completion (FI_EINVAL: no such key; FI_EACCES: the region does not permit
 * the access or does not hold every byte). */
int prov_mr_access(const struct prov_domain *d, uint64_t key, uint64_t addr, uint64_t len, uint64_t access,
                   unsigned char **where);
/* fi_query_atomic (prov_atomic.c). */
int prov_atomic_query(struct fid_domain *d, enum fi_datatype type, enum fi_op op, struct fi_atomic_attr *attr,
                      uint64_t flags);

/* ---- sends (prov_send.c) ---- */
/* One send: iov (count entries) to fi_addr dest.  flags: the operation's
 * flags (FI_INJECT, FI_REMOTE_CQ_DATA, FI_COMPLETION ...). */
struct prov_send_args {
  const struct iovec *iov;
  size_t count;
  fi_addr_t dest;
  uint64_t tag, data, flags;
  void *ctx;
  int tagged;
  int inject_call; /* fi_inject, fi_injectdata: never a CQ entry (counters count) */
};
ssize_t prov_send(struct prov_ep *ep, const struct prov_send_args *a);

/* ---- receives (prov_recv.c) ---- */
struct prov_recv_args {
  const struct iovec *iov;
  size_t count;
  fi_addr_t src;
  uint64_t tag, ignore, flags;
  void *ctx;
  int tagged;
};
ssize_t prov_recv(struct prov_ep *ep, const struct prov_recv_args *a);
/* A message matched by rx: where its `len` payload bytes go (FI_MULTI_RECV:
 * a region of the buffer; the buffer leaves the posted queue when less than
 * min_multi_recv is left). */
void prov_delivery_for(struct prov_ep *ep, struct prov_rx *rx, uint64_t len, struct prov_delivery *d);
/* The message (header h, from src_ue) has fully landed in d: report it
 * (ep NULL: its endpoint closed, only release the receive). */
void prov_delivery_done(struct prov_ep *ep, struct prov_delivery *d, const struct prov_hdr *h, int src_ue);
/* The first posted receive that matches a message, or NULL. */
struct prov_rx *prov_match_posted(struct prov_ep *ep, const struct prov_hdr *h, int src_ue);
/* Whether a posted receive would take the message now (prov_match_posted
 * without its side effects: no multi-receive buffer is released). */
int prov_posted_wants(const struct prov_ep *ep, const struct prov_hdr *h, int src_ue);
/* Copy len bytes into an iov from byte `offset` of it on; returns how many fitted. */
uint64_t prov_iov_copy_in(const struct iovec *iov, size_t count, uint64_t offset, const void *src, uint64_t len);
/* Cancel the posted receive with context ctx: 0 or -FI_ENOENT. */
int prov_recv_cancel(struct prov_ep *ep, void *ctx);
/* Free what the endpoint still holds (posted receives, unexpected messages). */
void prov_recv_cleanup(struct prov_ep *ep);

/* Intrusive doubly linked lists (prev/next as first members). */
void prov_list_append(struct prov_list *l, void *item);
void prov_list_remove(struct prov_list *l, void *item);

/* ---- the channel's sink (prov_arrive.c) ---- */
extern const struct mpi_channel_sink prov_sink;
/* The endpoint closes: its packets still landing discard the rest of their
 * payload (nothing more is written into the caller's buffers). */
void prov_arrivals_abandon(struct prov_ep *ep);
/* The same for one-sided packets (prov_rma_target.c): REPLYs landing in the
 * closing endpoint's result buffers, and WRITEs landing in the registered
 * region [base, base + len) that closes, discard the rest of their data. */
void prov_rma_abandon_replies(const struct prov_ep *ep);
void prov_rma_abandon_writes(const unsigned char *base, uint64_t len);
/* The endpoint closes: its sends not yet done no longer read the caller's
 * buffers (their payload is copied into the provider) and report nothing. */
void prov_sends_detach(struct prov_ep *ep);

/* ---- one-sided operations as active messages (prov_rma.c, prov_rma_target.c) ---- */
/* Incoming one-sided packets (requests and replies) go to prov_rma_target.c
 * instead of the receive path: arrived returns 1 when the packet is one
 * (it filled *t), complete returns 1 when t is one of its packets. */
int prov_rma_arrived(int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes,
                     struct mpi_in_target *t);
int prov_rma_complete(int src, struct mpi_in_target *t);

/* ---- completions and counters of an endpoint ---- */
/* Report a completion (or error) of ep's transmit (tx) or receive side;
 * report == 0 skips the CQ for a success (selective completion: errors are
 * still reported), report < 0 always (an inject call: no completion event,
 * fi_msg(3)); counters count either way. */
void prov_complete(struct prov_ep *ep, int tx, int report, const struct fi_cq_err_entry *e, fi_addr_t src);
/* The same for a one-sided operation (transmit side): counted by the write
 * counter (writes, atomics without fetch) or, read != 0, the read counter
 * (reads, fetching and compare atomics) (fi_cntr(3)). */
void prov_complete_rma(struct prov_ep *ep, int read, int report, const struct fi_cq_err_entry *e);

/* ---- serialisation ---- */
/* The process's provider lock (recursive: entry points call each other,
 * e.g. fabric close drains through the progress path).  A thread idle in
 * the provider lets it go while it naps (prov_idle). */
extern pthread_mutex_t prov_lock;
/* The calling thread's holds of prov_lock (all released for a nap). */
extern _Thread_local int prov_lock_depth;
/* Whether the calling thread has been counted among the provider's users
 * (prov_progress.c: a UE is shown waiting in MPI only when all of them wait). */
extern _Thread_local int prov_thread_counted;
void prov_thread_count(void);
static inline void prov_unlock(int *unused) {
  (void)unused;
  prov_lock_depth--;
  pthread_mutex_unlock(&prov_lock);
}
static inline int prov_lock_take(void) {
  int r = pthread_mutex_lock(&prov_lock);
  prov_lock_depth++;
  if (!prov_thread_counted) prov_thread_count();
  return r;
}
/* Holds the lock until the end of the enclosing block. */
#define PROV_LOCK_SCOPE() int prov_locked_ __attribute__((cleanup(prov_unlock), unused)) = prov_lock_take()

/* ---- model mode ---- */
/* Brackets an entry point that may touch the MPB (timing.h): host time
 * inside is the runtime's, charged by the model; time outside -- the
 * program's and the MPI library's own work -- is computation.  No call
 * records (TIMING_SCOPE's): MPI libraries poll the CQ millions of times. */
struct prov_timing {
  int on;
};
static inline void prov_timing_end(struct prov_timing *t) {
  if (t->on) timing_leave();
}
static inline struct prov_timing prov_timing_begin(void) {
  struct prov_timing t = {timing_enabled};
  if (t.on) timing_enter();
  return t;
}
/* An entry point that may touch the MPB: the lock, then the timing bracket
 * (left before the lock is released). */
#define PROV_TIMING_SCOPE() \
  PROV_LOCK_SCOPE();        \
  struct prov_timing prov_timing_ __attribute__((cleanup(prov_timing_end), unused)) = prov_timing_begin()

/* ---- progress (prov_progress.c) ---- */
/* CLOCK_REALTIME ns from now (the deadline of a pthread timed wait). */
struct timespec prov_realtime_after(long ns);
/* Move what can move: returns the channel's rounds moved. */
int prov_progress(void);
/* The same after a send's post (cheaper when the packet left at once). */
void prov_progress_sent(void);
/* After a poll that found nothing (moved == 0, no completion): idle one
 * unit.  One thread at a time naps on the UE's doorbell, without the lock;
 * other idle threads wait for its nap to end (bounded).  The nap shows the
 * UE waiting in MPI only when every other thread that uses the provider is
 * idle in it too. */
void prov_idle(void);
/* Something a napping thread may wait for happened in this thread (a
 * completion, a packet posted): wake it. */
void prov_wake_napper(void);
/* Called by every progress call of the application (under the lock): when
 * packets stay queued, the helper of prov_drain.c moves them should the
 * application stay away from the provider (an injected send whose sender
 * blocks outside MPI). */
void prov_drain_note_progress(void);
/* Whether the provider's caller is a program's own nonblocking poll
 * (MPI_Test, MPI_Iprobe and their kin) rather than the MPI library waiting
 * (prov_caller.c: a walk of the caller's stack, about a microsecond). */
int prov_called_from_program_poll(void);

#endif

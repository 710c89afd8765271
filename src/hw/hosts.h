/*
 * hw layer: a job whose boards run on several hosts (rccerun --hosts;
 * docs/cluster.md, "Several hosts").  Every host keeps a replica of the whole
 * segment and runs the UEs of its own boards; an agent per host
 * (launch/host_agent.c) carries what must cross hosts over MPI.
 *
 * MPBs stay alike on every host by write update:
 *  - a plain write into an MPB (a copy of bytes, a flag word stored) is
 *    applied here and appended, in the order the writes happened, to this
 *    host's log; the agent broadcasts the log to the other agents in causal
 *    order, and each applies it to its replica and rings the MPB's owner;
 *  - a read-modify-write (single-bit flags, a barrier's arrival count,
 *    test-and-set) happens at the word's home, the host of the board whose
 *    MPB or register holds it: directly when that is this host, else as a
 *    request to the home's agent, which answers with the old value.  Its
 *    result is not sent to other replicas: such words are read only at their
 *    home (RCCE reads its flags in its own MPB; arrival counts and locks are
 *    only ever changed atomically).
 * A write takes its place in the log before it is applied here, so whatever
 * another UE of this host does after seeing it is logged after it.
 *
 * A single-host job never takes the slow paths: one predictable branch on a
 * header word (hw_hosts_many).
 */
#ifndef OPENSCC_HW_HOSTS_H
#define OPENSCC_HW_HOSTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "segment.h"
#include "wait.h"

#define HW_MAX_HOSTS HW_MAX_HOST_BOARDS

/* What a log record does to the replicas. */
enum hw_host_kind {
  HW_HOST_COPY = 1,  /* len bytes of data at off */
  HW_HOST_STORE = 2, /* the 32-bit value at off */
  HW_HOST_RMW = 3,   /* request: op on the word at off (home host only), answer to ue */
  HW_HOST_REPLY = 4, /* answer to request seq of ue: value */
  HW_HOST_RING = 5,  /* ring UE ue's doorbell (on its host) */
};
enum hw_rmw_op { HW_RMW_ADD = 0, HW_RMW_OR = 1, HW_RMW_AND = 2, HW_RMW_XCHG = 3 };

/* A record is one host cache line.  A COPY of len bytes keeps its first
 * HW_HOST_RECORD_DATA bytes in data and the rest in the records that follow
 * it, 64 bytes each, without headers (its span, hw_hosts_record_span). */
#define HW_HOST_RECORD_DATA 32
#define HW_HOST_RECORD_BYTES 64
struct hw_host_record {
  _Atomic uint64_t ready; /* slot number + 1 once the record (and its span) is complete */
  uint64_t off;           /* target, from the start of the segment */
  uint16_t kind, len;     /* enum hw_host_kind; COPY: bytes; RMW: enum hw_rmw_op */
  int32_t ue;             /* RMW, REPLY: the requesting UE */
  uint32_t seq;           /* RMW, REPLY: the request's number */
  uint32_t value;         /* STORE, RMW: operand; REPLY: old value */
  unsigned char data[HW_HOST_RECORD_DATA];
};
_Static_assert(sizeof(struct hw_host_record) == HW_HOST_RECORD_BYTES, "one host cache line per record");
/* Records a span takes at most (a batch of the agents' link holds one whole). */
#define HW_HOSTS_MAX_SPAN 256u

/* Records r and the data records after it take. */
static inline uint32_t hw_hosts_record_span(const struct hw_host_record *r) {
  if (r->kind != HW_HOST_COPY || r->len <= HW_HOST_RECORD_DATA) return 1;
  return 1 + (r->len - HW_HOST_RECORD_DATA + HW_HOST_RECORD_BYTES - 1) / HW_HOST_RECORD_BYTES;
}

static inline int hw_hosts_many(const struct hw_job *j) { return j->hdr->set.hosts > 1; }

/* The host of the board that core belongs to. */
int hw_host_of_core(const struct hw_job *j, int core);
/* The host that runs UE ue (its core's board's). */
static inline int hw_host_of_ue(const struct hw_job *j, int ue) { return hw_host_of_core(j, hw_ue(j, ue)->core); }
/* The home host of a word of an MPB or test-and-set register of the job. */
int hw_home_of(const struct hw_job *j, const volatile void *addr);

/* Bytes of the segment the hosts' state takes (segment.c lays it out after
 * the MPBs): 0 for a job on one host. */
uint64_t hw_hosts_bytes(const struct hw_job_params *p);

/* The UE this process runs (for answers to its requests); set at attach. */
void hw_hosts_set_self(int ue);

/* Slow paths of the functions below (several hosts). */
void hw_hosts_copy(struct hw_job *j, void *dst, const void *src, size_t n);
void hw_hosts_store32(struct hw_job *j, volatile uint32_t *w, uint32_t v);
void hw_hosts_ring(struct hw_job *j, int ue);
uint32_t hw_hosts_rmw32(struct hw_job *j, volatile uint32_t *w, enum hw_rmw_op op, uint32_t v);

/* The atomic operation itself, on this replica; returns the old value. */
static inline uint32_t hw_rmw32_here(volatile uint32_t *w, enum hw_rmw_op op, uint32_t v) {
  switch (op) {
    case HW_RMW_ADD: return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);
    case HW_RMW_OR: return __atomic_fetch_or(w, v, __ATOMIC_ACQ_REL);
    case HW_RMW_AND: return __atomic_fetch_and(w, v, __ATOMIC_ACQ_REL);
    default: return __atomic_exchange_n(w, v, __ATOMIC_ACQ_REL);
  }
}

/* Write n bytes into an MPB (any UE's). */
static inline void hw_mpb_copy(struct hw_job *j, volatile void *dst, const void *src, size_t n) {
  if (__builtin_expect(hw_hosts_many(j), 0)) hw_hosts_copy(j, (void *)dst, src, n);
  else memcpy((void *)dst, src, n);
}
/* Store a word of an MPB (release: what was written before is seen first). */
static inline void hw_mpb_store32(struct hw_job *j, volatile uint32_t *w, uint32_t v) {
  if (__builtin_expect(hw_hosts_many(j), 0)) hw_hosts_store32(j, w, v);
  else __atomic_store_n(w, v, __ATOMIC_RELEASE);
}
/* Store a byte of an MPB (release), as hw_mpb_store32 a word. */
static inline void hw_mpb_store8(struct hw_job *j, volatile uint8_t *b, uint8_t v) {
  if (__builtin_expect(hw_hosts_many(j), 0)) {
    __atomic_thread_fence(__ATOMIC_RELEASE);
    hw_hosts_copy(j, (void *)b, &v, 1);
  } else __atomic_store_n(b, v, __ATOMIC_RELEASE);
}
/* Ring UE ue after a write it waits for landed in an MPB that is not ue's
 * own (the agents ring an MPB's owner by themselves, hw_hosts_apply): on
 * another host the ring travels in the log, after the write. */
static inline void hw_mpb_ring(struct hw_job *j, int ue) {
  if (__builtin_expect(hw_hosts_many(j), 0)) hw_hosts_ring(j, ue);
  else hw_ring(j, ue);
}
/* Read-modify-write a word of an MPB or register at its home; returns the old value. */
static inline uint32_t hw_mpb_rmw32(struct hw_job *j, volatile uint32_t *w, enum hw_rmw_op op, uint32_t v) {
  if (__builtin_expect(hw_hosts_many(j), 0)) return hw_hosts_rmw32(j, w, op, v);
  return hw_rmw32_here(w, op, v);
}

/* --- The agent's side (launch/host_agent.c) --- */

/* Move this host's logged records, whole spans only, into out (at most max
 * records) and free them; returns the records moved. */
uint32_t hw_hosts_log_take(struct hw_job *j, struct hw_host_record *out, uint32_t max);
/* Log records kept for the agent's answers to requests (at most one per
 * record of a batch it applies), and the records free now. */
#define HW_HOSTS_AGENT_ROOM 1024u
uint64_t hw_hosts_log_room(struct hw_job *j);
/* The agent sleeps until a record is logged or ns have passed. */
void hw_hosts_log_nap(struct hw_job *j, long ns);
/* Apply a record (with its span) another host logged to this replica: write
 * it and ring the owner, or, for a request whose home is here, do it and log
 * the answer.  Returns the records it took. */
uint32_t hw_hosts_apply(struct hw_job *j, const struct hw_host_record *r);

#endif

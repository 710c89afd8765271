/* Several hosts (hosts.h): this host's log of MPB writes, requests for
 * read-modify-writes at a word's home, and the agent's application of what
 * other hosts logged. */
#define _GNU_SOURCE
#include "hosts.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wait.h"

_Static_assert(HW_MAX_HOST_BOARDS == CHIP_MAX_BOARDS, "a host per board at most");

/* Records the log holds.  UEs wait for room before they take slots and
 * leave HW_HOSTS_AGENT_ROOM to the agent's answers, so the agent, the only
 * one to empty the log, never waits on it (host_link.c applies a batch only
 * when its answers fit). */
#define LOG_RECORDS (1u << 15)
#define UE_ROOM (LOG_RECORDS - HW_HOSTS_AGENT_ROOM)
/* Polls of an answer before sleeping on it. */
#define REPLY_SPINS 2000

struct host_log_head {
  _Atomic uint64_t head HW_ALIGNED; /* next slot to take (writers) */
  _Atomic uint64_t tail HW_ALIGNED; /* next slot to send (the agent) */
  _Atomic uint32_t agent_asleep HW_ALIGNED;
  _Atomic uint32_t bell;
  _Atomic uint32_t writers_waiting HW_ALIGNED; /* UEs asleep until the agent frees records */
  _Atomic uint32_t room_bell;
};

/* A UE's requests to other hosts: the last answered and its old value. */
struct host_reply {
  _Atomic uint32_t done;
  uint32_t value;
  uint32_t next_seq; /* written by the UE only */
};

/* The layout from hosts_off: the log's head, its records, a reply per UE. */
#define RECORDS_OFF hw_align_up(sizeof(struct host_log_head), HW_HOST_LINE)
#define REPLIES_OFF (RECORDS_OFF + LOG_RECORDS * sizeof(struct hw_host_record))

uint64_t hw_hosts_bytes(const struct hw_job_params *p) {
  return p->set.hosts > 1 ? REPLIES_OFF + hw_align_up(sizeof(struct host_reply), HW_HOST_LINE) * (uint64_t)p->nue : 0;
}

static int self_ue = -1;
void hw_hosts_set_self(int ue) { self_ue = ue; }

static long futex(volatile _Atomic uint32_t *w, int op, uint32_t v, const struct timespec *t) {
  return syscall(SYS_futex, (uint32_t *)w, op, v, t, NULL, 0);
}

int hw_host_of_core(const struct hw_job *j, int core) {
  return j->hdr->set.board_host[chip_board_of_core(&j->hdr->chip, core)];
}

/* The core whose MPB or test-and-set register holds segment offset off, or -1. */
static int core_at(const struct hw_job *j, uint64_t off) {
  const struct hw_header *h = j->hdr;
  int cores = chip_num_cores(&h->chip);
  if (off >= h->mpb_off && off < h->mpb_off + (uint64_t)h->chip.mpb_bytes_per_core * cores)
    return (int)((off - h->mpb_off) / h->chip.mpb_bytes_per_core);
  if (off >= h->tas_off && off < h->tas_off + sizeof(struct hw_tas) * (uint64_t)cores)
    return (int)((off - h->tas_off) / sizeof(struct hw_tas));
  return -1;
}

int hw_home_of(const struct hw_job *j, const volatile void *addr) {
  int core = core_at(j, (uint64_t)((const unsigned char *)addr - j->base));
  return core < 0 ? j->hdr->set.host : hw_host_of_core(j, core);
}

static struct host_log_head *log_head(const struct hw_job *j) {
  return (struct host_log_head *)(j->base + j->hdr->hosts_off);
}
static struct hw_host_record *log_records(const struct hw_job *j) {
  return (struct hw_host_record *)(j->base + j->hdr->hosts_off + RECORDS_OFF);
}
static struct host_reply *reply_of(const struct hw_job *j, int ue) {
  return (struct host_reply *)(j->base + j->hdr->hosts_off + REPLIES_OFF +
                               hw_align_up(sizeof(struct host_reply), HW_HOST_LINE) * (uint64_t)ue);
}

/* A writer that finds the log full sleeps until the agent has sent some of
 * it (hw_hosts_log_take rings room_bell): yielding instead, 96 UEs left the
 * agent that empties the log a 97th of the CPUs. */
static void wait_for_room(struct host_log_head *lh, uint64_t k, uint64_t room) {
  uint32_t bell = __atomic_load_n(&lh->room_bell, __ATOMIC_ACQUIRE);
  __atomic_fetch_add(&lh->writers_waiting, 1, __ATOMIC_SEQ_CST);
  uint64_t used = __atomic_load_n(&lh->head, __ATOMIC_SEQ_CST) - __atomic_load_n(&lh->tail, __ATOMIC_SEQ_CST);
  if (used + k > room) {
    struct timespec t = {0, 1000000}; /* bounded: the agent may just have freed records before the count went up */
    futex(&lh->room_bell, FUTEX_WAIT, bell, &t);
  }
  __atomic_fetch_sub(&lh->writers_waiting, 1, __ATOMIC_RELAXED);
}

/* Take k consecutive slots of the log once at most room would be in use
 * (waiting before taking them: a writer never holds slots while it waits). */
static uint64_t log_take(struct hw_job *j, uint64_t k, uint64_t room) {
  struct host_log_head *lh = log_head(j);
  uint64_t first = __atomic_load_n(&lh->head, __ATOMIC_ACQUIRE);
  for (;;) {
    if (first + k - __atomic_load_n(&lh->tail, __ATOMIC_ACQUIRE) > room) {
      wait_for_room(lh, k, room);
      first = __atomic_load_n(&lh->head, __ATOMIC_ACQUIRE);
    } else if (__atomic_compare_exchange_n(&lh->head, &first, first + k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return first;
  }
}

uint64_t hw_hosts_log_room(struct hw_job *j) {
  struct host_log_head *lh = log_head(j);
  return LOG_RECORDS - (__atomic_load_n(&lh->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&lh->tail, __ATOMIC_ACQUIRE));
}

static struct hw_host_record *log_slot(struct hw_job *j, uint64_t slot) { return &log_records(j)[slot % LOG_RECORDS]; }

/* The record at slot is complete: the agent may send it (and wakes for it). */
static void log_commit(struct hw_job *j, struct hw_host_record *r, uint64_t slot) {
  __atomic_store_n(&r->ready, slot + 1, __ATOMIC_RELEASE);
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* against the agent's check before it naps */
  struct host_log_head *lh = log_head(j);
  if (__atomic_load_n(&lh->agent_asleep, __ATOMIC_RELAXED)) {
    __atomic_fetch_add(&lh->bell, 1, __ATOMIC_RELEASE);
    futex(&lh->bell, FUTEX_WAKE, INT_MAX, NULL);
  }
}

static uint64_t offset_of(const struct hw_job *j, const volatile void *p) {
  return (uint64_t)((const unsigned char *)p - j->base);
}

/* Bytes logged as one span at most: a copy of more goes in pieces. */
#define COPY_PIECE ((size_t)HW_HOST_RECORD_DATA + (HW_HOSTS_MAX_SPAN - 1) * (size_t)HW_HOST_RECORD_BYTES)
_Static_assert(COPY_PIECE <= UINT16_MAX, "a piece's length fits a record's len");

/* One span: the header with the first bytes, the data records with the
 * rest, and the header's commit last (hw_hosts_log_take reads a span only
 * once its header is ready). */
static void copy_piece(struct hw_job *j, unsigned char *dst, const unsigned char *src, size_t n) {
  struct hw_host_record head = {.off = offset_of(j, dst), .kind = HW_HOST_COPY, .len = (uint16_t)n};
  uint64_t slot = log_take(j, hw_hosts_record_span(&head), UE_ROOM);
  struct hw_host_record *r = log_slot(j, slot);
  size_t first = n < HW_HOST_RECORD_DATA ? n : HW_HOST_RECORD_DATA;
  for (size_t at = first, i = 1; at < n; at += HW_HOST_RECORD_BYTES, i++)
    memcpy(log_slot(j, slot + i), src + at, n - at < HW_HOST_RECORD_BYTES ? n - at : HW_HOST_RECORD_BYTES);
  r->off = head.off;
  r->kind = head.kind;
  r->len = head.len;
  memcpy(r->data, src, first);
  log_commit(j, r, slot);
  memcpy(dst, src, n);
}

void hw_hosts_copy(struct hw_job *j, void *dst, const void *src, size_t n) {
  for (size_t done = 0; done < n; done += COPY_PIECE)
    copy_piece(j, (unsigned char *)dst + done, (const unsigned char *)src + done,
               n - done < COPY_PIECE ? n - done : COPY_PIECE);
}

static void log_word(struct hw_job *j, enum hw_host_kind kind, uint64_t off, uint16_t op, int ue, uint32_t seq,
                     uint32_t v) {
  uint64_t slot = log_take(j, 1, kind == HW_HOST_REPLY ? LOG_RECORDS : UE_ROOM); /* answers: the agent's */
  struct hw_host_record *r = log_slot(j, slot);
  r->off = off;
  r->kind = (uint16_t)kind;
  r->len = op;
  r->ue = ue;
  r->seq = seq;
  r->value = v;
  log_commit(j, r, slot);
}

void hw_hosts_store32(struct hw_job *j, volatile uint32_t *w, uint32_t v) {
  log_word(j, HW_HOST_STORE, offset_of(j, w), 0, -1, 0, v);
  __atomic_store_n(w, v, __ATOMIC_RELEASE);
}

void hw_hosts_ring(struct hw_job *j, int ue) {
  if (hw_host_of_ue(j, ue) == j->hdr->set.host) hw_ring(j, ue);
  else log_word(j, HW_HOST_RING, 0, 0, ue, 0, 0);
}

uint32_t hw_hosts_rmw32(struct hw_job *j, volatile uint32_t *w, enum hw_rmw_op op, uint32_t v) {
  if (hw_home_of(j, w) == j->hdr->set.host || self_ue < 0) return hw_rmw32_here(w, op, v);
  struct host_reply *me = reply_of(j, self_ue);
  uint32_t seq = ++me->next_seq;
  log_word(j, HW_HOST_RMW, offset_of(j, w), (uint16_t)op, self_ue, seq, v);
  /* The home's agent answers through ours (hw_hosts_apply, HW_HOST_REPLY). */
  for (int i = 0; __atomic_load_n(&me->done, __ATOMIC_ACQUIRE) != seq; i++)
    if (i < REPLY_SPINS) hw_cpu_relax();
    else futex(&me->done, FUTEX_WAIT, seq - 1, NULL);
  return me->value;
}

/* The next complete record of this host's log (a span's header), or NULL. */
static const struct hw_host_record *log_peek(struct hw_job *j) {
  uint64_t tail = __atomic_load_n(&log_head(j)->tail, __ATOMIC_RELAXED);
  if (tail == __atomic_load_n(&log_head(j)->head, __ATOMIC_ACQUIRE)) return NULL;
  const struct hw_host_record *r = log_slot(j, tail);
  return __atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) == tail + 1 ? r : NULL;
}

uint32_t hw_hosts_log_take(struct hw_job *j, struct hw_host_record *out, uint32_t max) {
  struct host_log_head *lh = log_head(j);
  uint32_t n = 0;
  for (const struct hw_host_record *r; (r = log_peek(j));) {
    uint32_t span = hw_hosts_record_span(r);
    if (n + span > max) break;
    uint64_t tail = __atomic_load_n(&lh->tail, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < span; i++) {
      struct hw_host_record *slot = log_slot(j, tail + i);
      memcpy(&out[n++], slot, sizeof *slot);
      /* Freed with no ready mark: a data record's bytes left in the slot
       * could otherwise look like a complete record a lap later. */
      __atomic_store_n(&slot->ready, 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&lh->tail, tail + span, __ATOMIC_RELEASE);
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* against a writer's check before it sleeps */
  if (n && __atomic_load_n(&lh->writers_waiting, __ATOMIC_RELAXED)) {
    __atomic_fetch_add(&lh->room_bell, 1, __ATOMIC_RELEASE);
    futex(&lh->room_bell, FUTEX_WAKE, INT_MAX, NULL);
  }
  return n;
}

void hw_hosts_log_nap(struct hw_job *j, long ns) {
  struct host_log_head *lh = log_head(j);
  uint32_t bell = __atomic_load_n(&lh->bell, __ATOMIC_ACQUIRE);
  __atomic_store_n(&lh->agent_asleep, 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!log_peek(j)) {
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    futex(&lh->bell, FUTEX_WAIT, bell, &t);
  }
  __atomic_store_n(&lh->agent_asleep, 0, __ATOMIC_RELAXED);
}

/* The UE on this host whose MPB or register holds off (to ring it), or -1. */
static int local_owner(const struct hw_job *j, uint64_t off) {
  static int ue_of_core[CHIP_MAX_CORES + 1]; /* UE + 1; built on first use (cores never move) */
  if (!ue_of_core[CHIP_MAX_CORES]) {
    for (int u = 0; u < (int)j->hdr->nue; u++) ue_of_core[hw_ue(j, u)->core] = u + 1;
    ue_of_core[CHIP_MAX_CORES] = 1;
  }
  int core = core_at(j, off);
  if (core < 0 || hw_host_of_core(j, core) != j->hdr->set.host) return -1;
  return ue_of_core[core] - 1;
}

static int ue_is_here(const struct hw_job *j, int ue) {
  return ue >= 0 && ue < (int)j->hdr->nue && hw_host_of_ue(j, ue) == j->hdr->set.host;
}

/* A span's bytes back in one piece at dst. */
static void copy_span(unsigned char *dst, const struct hw_host_record *r) {
  size_t first = r->len < HW_HOST_RECORD_DATA ? r->len : HW_HOST_RECORD_DATA;
  memcpy(dst, r->data, first);
  memcpy(dst + first, r + 1, r->len - first); /* the data records follow the header in a batch */
}

uint32_t hw_hosts_apply(struct hw_job *j, const struct hw_host_record *r) {
  volatile uint32_t *w = (volatile uint32_t *)(j->base + r->off);
  switch (r->kind) {
    case HW_HOST_COPY: copy_span(j->base + r->off, r); break;
    case HW_HOST_STORE:
      __atomic_store_n(w, r->value, __ATOMIC_RELEASE);
      futex((volatile _Atomic uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL); /* a sleeper on the word itself */
      break;
    case HW_HOST_RMW:
      if (hw_home_of(j, w) != j->hdr->set.host) return 1; /* another host's request */
      uint32_t old = hw_rmw32_here(w, (enum hw_rmw_op)r->len, r->value);
      futex((volatile _Atomic uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL);
      log_word(j, HW_HOST_REPLY, r->off, 0, r->ue, r->seq, old);
      break;
    case HW_HOST_RING:
      if (ue_is_here(j, r->ue)) hw_ring(j, r->ue);
      return 1;
    case HW_HOST_REPLY: {
      if (!ue_is_here(j, r->ue)) return 1;
      struct host_reply *to = reply_of(j, r->ue);
      to->value = r->value;
      __atomic_store_n(&to->done, r->seq, __ATOMIC_RELEASE);
      futex(&to->done, FUTEX_WAKE, INT_MAX, NULL);
      return 1;
    }
    default: return 1;
  }
  int owner = local_owner(j, r->off);
  if (owner >= 0) hw_ring(j, owner);
  return hw_hosts_record_span(r);
}

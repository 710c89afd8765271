/*
 * Monitoring records of one job (rccerun --trace, docs/monitoring.md): per
 * UE a block in the job segment with its message counts per destination and
 * an event log, written by the UE alone (no locks: one writer, read by the
 * launcher after the UE has finished), so nothing is lost when a UE crashes.
 * The levels are [FURST-2011]'s logging levels plus a full timeline.
 */
#ifndef OPENSCC_HW_TRACE_H
#define OPENSCC_HW_TRACE_H

#include <string.h>
#include <time.h>

#include "segment.h"

enum hw_trace_level {
  HW_TRACE_OFF = 0,
  HW_TRACE_COUNTERS, /* the UEs' counters */
  HW_TRACE_MESSAGES, /* + message counts */
  HW_TRACE_TARGETS,  /* + messages and bytes per source and destination */
  HW_TRACE_SIZES,    /* + every message's size */
  HW_TRACE_TIMELINE, /* + every runtime call, with host and virtual time */
};
/* The levels' names, the one list (rccerun --trace, summary.json's job.trace):
 * X(level, name) for each level. */
/* clang-format off: one level a line (clang-format 14 reflows X-macro lists differently on each pass) */
#define HW_TRACE_LEVEL_NAMES(X)    \
  X(HW_TRACE_OFF, "off")           \
  X(HW_TRACE_COUNTERS, "counters") \
  X(HW_TRACE_MESSAGES, "messages") \
  X(HW_TRACE_TARGETS, "targets")   \
  X(HW_TRACE_SIZES, "sizes")       \
  X(HW_TRACE_TIMELINE, "timeline")
/* clang-format on */

enum hw_trace_kind { HW_EV_CALL = 1, HW_EV_RETURN, HW_EV_SEND, HW_EV_RECV };

struct hw_trace_event {
  uint64_t host_ticks; /* hw_trace_clock() */
  uint64_t virt_ps;    /* the UE's virtual clock in model mode, else 0 */
  uint32_t kind;       /* enum hw_trace_kind */
  int32_t arg;         /* call / return: name id; send / receive: the peer UE */
  uint64_t size;       /* send / receive: bytes */
};

#define HW_TRACE_NAMES 128
#define HW_TRACE_NAME_LEN 32

/* The head of a UE's block; msgs_to[nue], bytes_to[nue] and the events follow. */
struct hw_trace_ue {
  uint64_t n_events; /* events recorded, dropped ones included (beyond the capacity) */
  uint32_t n_names;
  uint32_t pad;
  char names[HW_TRACE_NAMES][HW_TRACE_NAME_LEN];
};

static inline struct hw_trace_ue *hw_trace(const struct hw_job *j, int ue) {
  return (struct hw_trace_ue *)(j->base + j->hdr->trace_off + (uint64_t)ue * j->hdr->trace_ue_bytes);
}
static inline uint64_t *hw_trace_msgs_to(const struct hw_job *j, int ue) { return (uint64_t *)(hw_trace(j, ue) + 1); }
static inline uint64_t *hw_trace_bytes_to(const struct hw_job *j, int ue) {
  return hw_trace_msgs_to(j, ue) + j->hdr->nue;
}
static inline struct hw_trace_event *hw_trace_events(const struct hw_job *j, int ue) {
  return (struct hw_trace_event *)(hw_trace_bytes_to(j, ue) + j->hdr->nue);
}

/* Bytes of one UE's block for nue UEs and `events` events. */
static inline uint64_t hw_trace_ue_bytes(int nue, uint64_t events) {
  uint64_t b =
      sizeof(struct hw_trace_ue) + 2 * sizeof(uint64_t) * (uint64_t)nue + events * sizeof(struct hw_trace_event);
  return (b + HW_HOST_LINE - 1) / HW_HOST_LINE * HW_HOST_LINE;
}

/* The host clock of events: the time-stamp counter where the CPU has one
 * (a few nanoseconds to read; constant-rate and shared by all CPUs on x86
 * hosts with constant_tsc), converted to CLOCK_MONOTONIC nanoseconds by the
 * launcher from two reference points (hw_trace_ns); else those nanoseconds. */
static inline uint64_t hw_trace_clock(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
static inline uint64_t hw_trace_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* Nanoseconds of a clock reading, from the job's start reference and a later one (ticks1, ns1). */
static inline double hw_trace_ns(const struct hw_job *j, uint64_t ticks, uint64_t ticks1, uint64_t ns1) {
  const struct hw_header *h = j->hdr;
  double rate = ticks1 > h->trace_ticks0 ? (double)(ns1 - h->trace_ns0) / (double)(ticks1 - h->trace_ticks0) : 1.0;
  return (double)h->trace_ns0 + ((double)ticks - (double)h->trace_ticks0) * rate;
}

/* Append an event (dropped, but counted, when the log is full: then the
 * clock is not even read). */
static inline void hw_trace_record(const struct hw_job *j, int ue, uint32_t kind, int32_t arg, uint64_t size,
                                   uint64_t virt_ps) {
  struct hw_trace_ue *t = hw_trace(j, ue);
  if (t->n_events < j->hdr->trace_capacity)
    hw_trace_events(j, ue)[t->n_events] = (struct hw_trace_event){hw_trace_clock(), virt_ps, kind, arg, size};
  t->n_events++;
}

/* The id of a call name in UE ue's table (added on first use; -1 when full). */
static inline int hw_trace_name_id(const struct hw_job *j, int ue, const char *name) {
  struct hw_trace_ue *t = hw_trace(j, ue);
  for (uint32_t i = 0; i < t->n_names; i++)
    if (!strncmp(t->names[i], name, HW_TRACE_NAME_LEN - 1)) return (int)i;
  if (t->n_names == HW_TRACE_NAMES) return -1;
  strncpy(t->names[t->n_names], name, HW_TRACE_NAME_LEN - 1);
  return (int)t->n_names++;
}

#endif

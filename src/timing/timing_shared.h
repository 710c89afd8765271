/*
 * The timing layer's state in the job segment (hw/region.h): read by the
 * launcher for summary.json, the power trace and the energy report.
 *   timing.clock   per UE   the UE's virtual clock and its core's energy
 *   timing.stamps  per job  model mode: a time stamp per bit of every MPB line
 *   timing.vlog    per job  model mode: the voltage levels and clock dividers of every domain
 *   timing.floors  per job  model mode: how far each UE has got in virtual time (floor.c)
 *   timing.windows per UE   model mode: the UE's busy time at every shared resource, per window
 *   timing.locks   per job  model mode: when each core's test-and-set register was last released
 * The model-only regions have no units when the model is off.
 */
#ifndef OPENSCC_TIMING_SHARED_H
#define OPENSCC_TIMING_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise a region's version whenever its type below changes (the layout hash
 * then tells programs built against the old one to rebuild). */
#define TIMING_CLOCK_REGION "timing.clock"
#define TIMING_CLOCK_VERSION 3
#define TIMING_STAMPS_REGION "timing.stamps"
#define TIMING_STAMPS_VERSION 1
#define TIMING_VLOG_REGION "timing.vlog"
#define TIMING_VLOG_VERSION 2
#define TIMING_FLOORS_REGION "timing.floors"
#define TIMING_FLOORS_VERSION 1
#define TIMING_WINDOWS_REGION "timing.windows"
#define TIMING_WINDOWS_VERSION 1
#define TIMING_LOCKS_REGION "timing.locks"
#define TIMING_LOCKS_VERSION 1
#define TIMING_ENERGY_REGION "timing.energy"
#define TIMING_ENERGY_VERSION 1

/* Model mode (rccerun --model): a UE's virtual clock and its core's energy. */
#define TIMING_POWER_BUCKETS 512
#define TIMING_POWER_BUCKET_PS 1000000ULL /* narrowest power-trace bucket: 1 us */
struct timing_vclock {
  uint64_t now_ps;                         /* virtual time of the UE */
  uint64_t compute_ps, comm_ps, wait_ps;   /* where it went */
  uint64_t end_ps;                         /* virtual time of RCCE_finalize (0: not reached) */
  uint64_t ddr_reads, ddr_writes;          /* shared-memory accesses of a counted program */
  uint64_t l1_read_misses, l2_read_misses; /* counted builds: cached loads missing level 1 / both levels */
  uint64_t l1_write_misses;                /* cached stores missing level 1 (posted to level 2 or memory) */
  uint64_t write_backs;                    /* dirty lines either level gave up (written to the next) */
  uint64_t cache_wait_ps;                  /* of compute_ps: waiting for level 2, memory and posted writes */
  uint64_t clock_reads;                    /* RCCE_wtime / MPI_Wtime calls while the clock ran */
  uint64_t first_read_ps, last_read_ps;    /* the first and the last of them: the measured region */
  double dynamic_j;                        /* the core's dynamic energy */
  int32_t bucket_shift;                    /* power trace bucket = TIMING_POWER_BUCKET_PS << shift */
  int32_t running;                         /* 1 between RCCE_init and RCCE_finalize */
  int32_t counted;                         /* computation counted (rccecc --model-build), not host time */
  _Atomic uint32_t steps;                  /* odd while the clock steps (timing_advance): the sensor's seqlock */
  double bucket_j[TIMING_POWER_BUCKETS];   /* dynamic energy per bucket of virtual time */
};

/* Model mode: the states a domain went through, in virtual time: from t_ps
 * on, its voltage level and every tile's clock divider.  Only the domain's
 * master writes (RCCE's power rules), in its clock's order; an entry is
 * written before n counts it.  A full log takes no more: `full` says so. */
#define TIMING_VLOG_ENTRIES 256
struct timing_vlog {
  _Atomic int32_t n;    /* entries written */
  _Atomic int32_t full; /* a change came when no entry was left */
  struct {
    uint64_t t_ps;
    int32_t vlevel, divider;
  } e[TIMING_VLOG_ENTRIES];
};

/* Domain log's state at virtual time t (the entries up to t), starting
 * from vlevel and divider. */
static inline void timing_vlog_state(const struct timing_vlog *log, uint64_t t, int *vlevel, int *divider) {
  int n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n && log->e[i].t_ps <= t; i++) *vlevel = log->e[i].vlevel, *divider = log->e[i].divider;
}

/* Model mode: a UE's floor, the first contention window it may still add
 * busy time to (floor.c: the word's state, window and count of changes),
 * on a host cache line of its own.  The job has one per UE and one more,
 * whose word counts the floors other UEs lowered (waking a blocked UE). */
struct timing_floor {
  _Atomic uint64_t word;
  _Atomic uint32_t seq;     /* bumped when the word rises to `wanted` */
  _Atomic uint32_t waiters; /* UEs asleep until it does */
  _Atomic uint64_t wanted;  /* the lowest window a UE asleep waits for (all ones: none) */
  uint64_t pad[5];
};

/* A floor word: state (3 bits), window (45 bits), count of changes (16 bits). */
enum timing_floor_state {
  FLOOR_ABSENT = 0,  /* not started (or a spare UE): adds nothing */
  FLOOR_AT = 1,      /* running, its clock in the window */
  FLOOR_BLOCKED = 2, /* blocked, not woken since */
  FLOOR_WOKEN = 3,   /* blocked, and a write that may wake it came from the window on */
  FLOOR_DONE = 4,    /* finished */
};
#define TIMING_FLOOR_WINDOW_MASK ((1ULL << 45) - 1)
static inline uint64_t timing_floor_word(enum timing_floor_state state, uint64_t window, uint64_t changes) {
  return (uint64_t)state << 61 | (window & TIMING_FLOOR_WINDOW_MASK) << 16 | (changes & 0xffffu);
}
static inline enum timing_floor_state timing_floor_state_of(uint64_t w) { return (enum timing_floor_state)(w >> 61); }
static inline uint64_t timing_floor_window_of(uint64_t w) { return w >> 16 & TIMING_FLOOR_WINDOW_MASK; }
static inline uint64_t timing_floor_changes_of(uint64_t w) { return w & 0xffffu; }
static inline uint64_t *timing_windows_of(const struct hw_job *j, int ue) {
  return (uint64_t *)hw_region_ue(j, TIMING_WINDOWS_REGION, ue);
}
static inline struct timing_floor *timing_floor_of(const struct hw_job *j, int ue) {
  return (struct timing_floor *)hw_region_base(j, TIMING_FLOORS_REGION) + ue;
}

/* Model mode: the windows of busy time a UE keeps for the others to read
 * (contention.c): TIMING_WINDOW_SLOTS slots, slot k % TIMING_WINDOW_SLOTS
 * holding window k's tag (k + 1; 0 for none) and then the picoseconds the
 * UE kept each shared resource busy in it.  Window k is read in window
 * k + TIMING_WINDOW_LAG, once every UE is past it; twice the lag in slots
 * leaves a slot alone until its readers are done (docs/model.md
 * "Contention"). */
#define TIMING_WINDOW_LAG 4
#define TIMING_WINDOW_SLOTS (2 * TIMING_WINDOW_LAG)

/* Model mode: a UE's dynamic energy per contention window, for the power
 * sensor (sensor.c): window k in entry k % TIMING_ENERGY_WINDOWS, whose tag
 * is k + 1 (0: none yet).  A running UE is never more than half the ring
 * ahead of the slowest running one in counted builds, so an entry a reader
 * needs is still there (docs/model.md "Power sensor"). */
#define TIMING_ENERGY_WINDOWS 2048
struct timing_window_energy {
  _Atomic uint64_t tag;
  double joules;
};
static inline struct timing_window_energy *timing_energy_of(const struct hw_job *j, int ue) {
  return (struct timing_window_energy *)hw_region_ue(j, TIMING_ENERGY_REGION, ue);
}

/* Shared resources of the contention model: memory controllers, MPB ports
 * (one per tile), mesh links (and the boards' links to each other), of every board. */
static inline uint64_t timing_resource_count(const struct chip_desc *c) {
  return (uint64_t)(chip_num_mcs(c) + chip_num_tiles(c) + chip_num_links(c));
}

/* The slot of window k in a UE's windows (timing.windows): its tag, then
 * one word for each of the chip's `resources` (timing_resource_count). */
static inline uint64_t *timing_window_slot(uint64_t *windows, uint64_t resources, uint64_t k) {
  return windows + (k % TIMING_WINDOW_SLOTS) * (1 + resources);
}

/* Lookups by name, for the launcher and tests (the UE's timing layer keeps
 * the pointers it looked up at timing_init). */
static inline struct timing_vclock *timing_clock_of(const struct hw_job *j, int ue) {
  return (struct timing_vclock *)hw_region_ue(j, TIMING_CLOCK_REGION, ue);
}
static inline struct timing_vlog *timing_vlog_of(const struct hw_job *j, int domain) {
  return (struct timing_vlog *)hw_region_base(j, TIMING_VLOG_REGION) + domain;
}
/* Domain d's voltage level and divider at virtual time t: the job's initial
 * state and the entries of its log up to t.  Returns 0 if the log is full
 * (the configuration registers then tell, in host order). */
static inline int timing_domain_state(const struct hw_job *j, int domain, uint64_t t, int *vlevel, int *divider) {
  const struct timing_vlog *log = timing_vlog_of(j, domain);
  *vlevel = j->hdr->initial_vlevel;
  *divider = j->hdr->set.initial_divider;
  timing_vlog_state(log, t, vlevel, divider);
  return !__atomic_load_n(&log->full, __ATOMIC_ACQUIRE);
}
/* The virtual time core's test-and-set register was last released. */
static inline _Atomic uint64_t *timing_lock_free_of(const struct hw_job *j, int core) {
  return (_Atomic uint64_t *)hw_region_base(j, TIMING_LOCKS_REGION) + core;
}
/* The stamp of one bit (slot) of one line of core's MPB, in stamps (the
 * timing.stamps region): a slot per bit of the line, a line per MPB line. */
static inline _Atomic uint64_t *timing_stamp_in(_Atomic uint64_t *stamps, const struct chip_desc *c, int core,
                                                uint64_t line, uint64_t slot) {
  uint64_t lines = (uint64_t)c->mpb_bytes_per_core / (uint64_t)c->line_bytes;
  return stamps + (((uint64_t)core * lines + line) * (uint64_t)c->line_bytes * 8 + slot);
}
static inline _Atomic uint64_t *timing_stamp_of(const struct hw_job *j, int core, uint64_t line, uint64_t slot) {
  return timing_stamp_in((_Atomic uint64_t *)hw_region_base(j, TIMING_STAMPS_REGION), &j->hdr->chip, core, line, slot);
}

#endif

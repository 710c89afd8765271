/* State of the timing layer in one UE (timing.h). */
#ifndef OPENSCC_TIMING_INTERNAL_H
#define OPENSCC_TIMING_INTERNAL_H

#include "timing.h"
#include "timing_shared.h"

enum timing_kind { TIMING_COMPUTE, TIMING_COMM, TIMING_WAIT };
/* What the core does meanwhile, for its power (docs/model.md "Power model"). */
enum timing_activity { TIMING_EXECUTING, TIMING_STALLED, TIMING_POLLING, TIMING_ACTIVITIES };

struct timing_state {
  struct hw_job *job;
  const struct chip_desc *chip;
  /* This UE's view of the timing regions (timing_shared.h), looked up at timing_init. */
  struct timing_vclock *clock;
  _Atomic uint64_t *stamps;
  struct timing_vlog *vlogs;
  struct timing_floor *floors;         /* the job's (floor.c) */
  uint64_t *windows;                   /* my windows of busy time (contention.c) */
  struct timing_window_energy *energy; /* my energy per window (sensor.c) */
  _Atomic uint64_t *lock_free;         /* per core: release time of its test-and-set register */
  uint64_t n_resources;
  uint64_t window_ps;     /* a contention window */
  uint64_t window_end_ps; /* the end of the window the clock is in */
  uint64_t window;        /* that window's number (contention.c keeps both) */
  int ue, core, tile, domain;
  int depth;                /* nesting of runtime calls */
  int host_clock;           /* clockid_t measuring the UE's computation */
  uint64_t left_ns;         /* host time of the last exit from the runtime */
  uint64_t probe_ns;        /* what reading the host clock itself adds to an interval */
  int counted;              /* the program counts its basic blocks (rccecc --model-build) */
  uint64_t left_cycles;     /* timing_fast.bb_cycles at the last exit from the runtime */
  uint64_t left_unpriced;   /* timing_fast.bb_unpriced then */
  unsigned reads_in_flight; /* shared-memory reads since the last write or runtime call */
  int poll_empty;           /* the last runtime call was a poll that found nothing (timing_poll_empty) */
  /* The tile clock and the core's busy power, for the divider and voltage
   * level they were computed at (both change only through DVFS). */
  int cached_divider, cached_vlevel;
  /* The domain's state at the UE's clock: its log's first `applied` entries. */
  int dvfs_divider, dvfs_vlevel, dvfs_applied;
  double ps_per_cycle;
  double watts[TIMING_ACTIVITIES]; /* the core's dynamic power doing each */
};

extern struct timing_state timing_g;

/* Model mode: the time stamp of one bit (slot) of one line of core's MPB. */
static inline _Atomic uint64_t *timing_stamp(int core, uint64_t line, uint64_t slot) {
  return timing_stamp_in(timing_g.stamps, timing_g.chip, core, line, slot);
}
/* What a counted build's hooks read at every basic block and every load and
 * store, in one exported struct at fixed offsets: rccecc's compiler wrapper
 * inlines the hooks' fast paths, which read it without a call
 * (src/launch/blockcost/inline_hooks.py has the same offsets; compute_count.c
 * checks them).  Blocks entered, the P54C cycles of those that carry their
 * cost and how many did not (compute_count.c); the off-chip shared region
 * whose accesses memory_access.c charges (length 0 outside the clock's run);
 * whether the private caches are on; and level 1's tags with what a repeat
 * of a set's most recently used line needs (cache.c). */
struct timing_fast_paths {
  uint64_t bb_count, bb_cycles, bb_unpriced;
  uintptr_t shared_lo, shared_len;
  int32_t caches_on;
  uint32_t ways;       /* level 1's */
  const uint64_t *l1;  /* level 1's tags, set by set, most recently used first (line + 1, | dirty) */
  uint64_t set_mask;   /* level 1's sets - 1 */
  uint32_t line_shift; /* log2 of the line size */
  uint32_t unused;
  uintptr_t window_lo, window_len; /* the SVM window (timing_cache_window) */
  uintptr_t lut_lo, lut_len;       /* the LUT windows (timing_lut_window) */
};
#define timing_fast __openscc_fast
extern struct timing_fast_paths timing_fast;
/* The job segment (its MPBs and tables are not the program's cached memory). */
extern uintptr_t timing_segment_lo, timing_segment_len;
/* The UE's private data caches (cache.c): on (timing_fast.caches_on) while
 * a counted program's clock runs and the chip has caches. */
int timing_cache_init(void);
void timing_cache_access(uintptr_t addr, size_t size, int write);
/* One load or store of the program's: the off-chip shared region's cost,
 * or the caches' for private memory; the job segment's MPBs and tables are
 * the runtime's, not charged here (memory_access.c). */
void timing_access(uintptr_t addr, size_t size, int write);
/* Put the cycles the caches made the UE wait since the last call on its clock. */
void timing_cache_charge(void);
/* What the memory hooks need to see a level-1 hit on a set's most recently
 * used line without a call (cache.c): such a hit changes nothing, except a
 * store to the SVM window or a LUT window, which may go to the write-combine
 * buffer. */
#define TIMING_CACHE_DIRTY (1ULL << 63) /* a tag's bit: the line was written since it came in */
static inline int timing_cache_repeat(uintptr_t addr, size_t size, int write) {
  const struct timing_fast_paths *f = &timing_fast;
  uint64_t line = addr >> f->line_shift;
  if ((addr + size - 1) >> f->line_shift != line ||
      (write && (addr - f->window_lo < f->window_len || addr - f->lut_lo < f->lut_len)))
    return 0;
  uint64_t tag = f->l1[(line & f->set_mask) * f->ways];
  return write ? tag == ((line + 1) | TIMING_CACHE_DIRTY) : (tag & ~TIMING_CACHE_DIRTY) == line + 1;
}

/* A counted program's computation since its last runtime call goes on its
 * clock now (every few thousand blocks: a long stretch without calls -- a
 * compute phase, a loop waiting for memory another UE writes -- moves the
 * UE's floor, so the others do not wait for it forever: floor.c). */
void timing_compute_checkpoint(void);

/* library_measure.c: callgrind collects the uninstrumented library's own
 * instructions only (OPENSCC_MEASURE_LIBRARY=1; docs/model.md). */
extern int timing_measuring_library;
void timing_library_measure_init(void);
void timing_library_measure_enter(void);
void timing_library_measure_leave(int after_empty_poll);

/* Picoseconds per core cycle at the tile's current frequency. */
double timing_ps_per_cycle(void);
/* The UE's tile clock now, in MHz. */
int timing_tile_mhz(void);
/* Move the clock forward by ps of the given kind (energy included). */
void timing_advance(uint64_t ps, enum timing_kind kind, enum timing_activity activity);
/* Charge core cycles of communication work (the runtime's code). */
static inline void timing_charge(double cycles) {
  timing_advance((uint64_t)(cycles * timing_ps_per_cycle() + 0.5), TIMING_COMM, TIMING_EXECUTING);
}
/* Charge core cycles of communication the core waits for (an MPB line, a register). */
static inline void timing_charge_stall(double cycles) {
  timing_advance((uint64_t)(cycles * timing_ps_per_cycle() + 0.5), TIMING_COMM, TIMING_STALLED);
}
/* Virtual-time order (floor.c): set up (my clock in `window`) and leave;
 * my floor is at a window (the clock's; timing_floor_blocked: I was
 * announced blocked since); a flag's stamp written (the next ring lowers
 * the woken UE's floor to it); a barrier released at t_ps to its n members;
 * wait until every other UE is past window - 1. */
void timing_floor_init(uint64_t window);
void timing_floor_finalize(void);
extern int timing_floor_blocked;
void timing_floor_at(uint64_t window);
void timing_floor_stamped(uint64_t ps);
void timing_floor_release(const int *ues, int n, uint64_t t_ps);
void timing_floor_wait(uint64_t window);

/* Energy e spent over [t0, t1), t1 > t0, dealt to the slots of `width` ps
 * the interval spans, in proportion to its time in each: add(arg, slot,
 * joules).  The power trace's buckets (clock.c) and the sensor's windows
 * (sensor.c) are such slots. */
static inline void timing_spread(uint64_t t0, uint64_t t1, uint64_t width, double e,
                                 void (*add)(void *arg, uint64_t slot, double joules), void *arg) {
  for (uint64_t t = t0; t < t1;) {
    uint64_t k = t / width, end = (k + 1) * width < t1 ? (k + 1) * width : t1;
    add(arg, k, e * (double)(end - t) / (double)(t1 - t0));
    t = end;
  }
}

/* The power sensor (sensor.c): energy spent over [t0, t1) into the
 * windows' ring; after the clock crossed from one window to another, wait
 * for UEs too far behind; the reading. */
void timing_sensor_record(uint64_t t0, uint64_t t1, double joules);
void timing_sensor_lookahead(uint64_t from_window, uint64_t to_window);

/* Wait until virtual time t (no-op when the clock is already there). */
static inline void timing_wait_until(uint64_t t) {
  if (t > timing_g.clock->now_ps) timing_advance(t - timing_g.clock->now_ps, TIMING_WAIT, TIMING_POLLING);
}

/* Contention (contention.c): set up, withdraw at the end, and the expected
 * queueing delay in ps of `lines` line accesses to owner_core's MPB (its
 * port and the links there) or of accesses through memory controller mc. */
int timing_contention_init(void);
void timing_contention_finalize(void);
/* The clock has left the window it was in: publish it (timing_advance);
 * a UE announced blocked acts again: its floor back at its window. */
void timing_contention_cross(void);
void timing_contention_resume(void);
/* Publish my busy time in the present window so far (before blocking). */
void timing_contention_publish(void);
double timing_mpb_queue_ps(int owner_core, double lines);
double timing_mc_queue_ps(int mc, double accesses);
/* The DDR3 latency of one access through controller mc from this core, in
 * core cycles at the tile's present clock (cache.c; computed again only when
 * DVFS changes the clock). */
double timing_ddr_cycles(int mc);

/* Stamps carry the writer's time in the high 56 bits (picoseconds, 20 hours
 * of virtual time) and the low byte of the value written, so a reader can
 * tell the stamp of the value it saw from that of a newer write. */
#define TIMING_STAMP_TAG_BITS 8
static inline uint64_t timing_stamp_pack(uint64_t ps, uint32_t value) {
  return (ps << TIMING_STAMP_TAG_BITS) | (value & 0xffu);
}

#endif

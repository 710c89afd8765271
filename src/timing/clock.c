/* The virtual clock of one UE (timing.h): computation measured on the host,
 * communication charged by rcce, waiting for others' stamps, and the core's
 * dynamic energy over virtual time (docs/model.md). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

#include "energy.h"
#include "timing_internal.h"

int timing_enabled;
struct timing_state timing_g;
uintptr_t timing_segment_lo, timing_segment_len;

static uint64_t host_ns(void) {
  struct timespec ts;
  clock_gettime(timing_g.host_clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A core's activity doing a (docs/model.md "Power model"). */
static double activity_factor(enum timing_activity a) {
  const struct chip_power *p = &timing_g.chip->power;
  return a == TIMING_EXECUTING ? 1.0 : a == TIMING_STALLED ? p->stall_activity : p->poll_activity;
}

/* The tile's divider and the domain's voltage level at the UE's clock: the
 * domain master's changes count from their time in its clock on (docs/model.md
 * "DVFS"), so the other cores of the domain switch when their own clocks get
 * there.  A full log leaves the configuration registers (host order). */
static void dvfs_state(int *div, int *vl) {
  const struct timing_vlog *log = &timing_g.vlogs[timing_g.domain];
  if (__atomic_load_n(&log->full, __ATOMIC_RELAXED)) {
    const struct hw_config *cfg = hw_config(timing_g.job);
    *div = __atomic_load_n(&cfg->tile_divider[timing_g.tile], __ATOMIC_RELAXED);
    *vl = __atomic_load_n(&cfg->domain_vlevel[timing_g.domain], __ATOMIC_RELAXED);
    return;
  }
  int n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);
  for (int i = timing_g.dvfs_applied; i < n && log->e[i].t_ps <= timing_g.clock->now_ps; i = ++timing_g.dvfs_applied)
    timing_g.dvfs_divider = log->e[i].divider, timing_g.dvfs_vlevel = log->e[i].vlevel;
  *div = timing_g.dvfs_divider;
  *vl = timing_g.dvfs_vlevel;
}

/* Refresh the cached clock and power when DVFS has changed the state. */
static void refresh_state(void) {
  int div, vl;
  dvfs_state(&div, &vl);
  if (div == timing_g.cached_divider && vl == timing_g.cached_vlevel) return;
  int mhz = chip_tile_mhz(timing_g.chip, div);
  timing_g.cached_divider = div;
  timing_g.cached_vlevel = vl;
  timing_g.ps_per_cycle = 1e6 / mhz;
  /* A running core executes, stalls or polls. */
  for (int a = 0; a < TIMING_ACTIVITIES; a++)
    timing_g.watts[a] = chip_core_power(timing_g.chip, timing_g.chip->vlevel[vl].volts, mhz, activity_factor(a));
}

int timing_tile_mhz(void) {
  refresh_state();
  return (int)(1e6 / timing_g.ps_per_cycle + 0.5);
}

double timing_ps_per_cycle(void) {
  refresh_state();
  return timing_g.ps_per_cycle;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The interval between an exit from the runtime and an immediate re-entry
 * is not zero on the host: the clock reads themselves take time.  Their
 * median over back-to-back reads is subtracted from every interval, or
 * the compute_slowdown would magnify it into phantom computation. */
static uint64_t probe_overhead_ns(void) {
  enum { N = 1001 };
  static uint64_t d[N];
  for (int i = 0; i < N; i++) {
    uint64_t a = host_ns();
    d[i] = host_ns() - a;
  }
  qsort(d, N, sizeof d[0], cmp_u64);
  return d[N / 2];
}

/* The timing regions of the job (timing_shared.h), once: the hot paths use the pointers. */
static int timing_lookup_regions(struct hw_job *job, int ue) {
  timing_g.clock = timing_clock_of(job, ue);
  timing_g.stamps = hw_region_base(job, TIMING_STAMPS_REGION);
  timing_g.vlogs = hw_region_base(job, TIMING_VLOG_REGION);
  timing_g.lock_free = hw_region_base(job, TIMING_LOCKS_REGION);
  timing_g.floors = timing_floor_of(job, 0);
  timing_g.windows = timing_windows_of(job, ue);
  timing_g.energy = timing_energy_of(job, ue);
  timing_g.n_resources = timing_resource_count(timing_g.chip);
  return timing_g.clock && timing_g.stamps && timing_g.vlogs && timing_g.lock_free && timing_g.floors &&
                 timing_g.windows && timing_g.energy
             ? 0
             : -1;
}

int timing_init(struct hw_job *job, int ue) {
  timing_enabled = job->hdr->set.model;
  if (!timing_enabled) return 0;
  timing_g.job = job;
  timing_g.chip = &job->hdr->chip;
  timing_g.ue = ue;
  timing_g.core = hw_ue(job, ue)->core;
  timing_g.tile = chip_tile_of_core(timing_g.chip, timing_g.core);
  timing_g.domain = chip_voltage_domain(timing_g.chip, timing_g.core);
  if (timing_lookup_regions(job, ue) != 0) return -1;
  /* The UE's computation is host time outside the runtime: wall time while
   * every UE has a host CPU (cheap to read), CPU time of the thread when UEs
   * outnumber CPUs and are preempted while computing. */
  timing_g.host_clock = job->hdr->set.oversubscribed ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  timing_g.depth = 0;
  timing_g.poll_empty = 0;
  timing_g.cached_divider = timing_g.cached_vlevel = -1;
  timing_g.dvfs_divider = job->hdr->set.initial_divider;
  timing_g.dvfs_vlevel = job->hdr->initial_vlevel;
  timing_g.dvfs_applied = 0;
  /* An instrumented program has entered basic blocks before RCCE_init. */
  timing_g.counted = timing_fast.bb_count > 0;
  timing_g.clock->counted = timing_g.counted;
  timing_g.left_cycles = timing_fast.bb_cycles;
  timing_g.left_unpriced = timing_fast.bb_unpriced;
  timing_g.probe_ns = timing_g.counted ? 0 : probe_overhead_ns();
  timing_g.clock->running = 1;
  timing_fast.shared_lo = (uintptr_t)(job->base + job->hdr->shared_off);
  timing_fast.shared_len = job->hdr->shared_bytes;
  timing_segment_lo = (uintptr_t)job->base;
  timing_segment_len = job->bytes;
  timing_g.left_ns = host_ns();
  timing_library_measure_init();
  if (timing_cache_init() != 0) return -1;
  return timing_contention_init();
}

void timing_finalize(void) {
  if (!timing_enabled) return;
  timing_g.clock->end_ps = timing_g.clock->now_ps;
  timing_g.clock->running = 0;
  if (timing_measuring_library) timing_library_measure_enter();
  timing_contention_finalize();
  timing_enabled = 0; /* what the program does after RCCE_finalize is not on the chip's clock */
  timing_fast.shared_len = 0;
  timing_fast.caches_on = 0;
}

/* Add energy e spent over [t0, t1) to the power trace, widening its buckets
 * (merging neighbours) when the run outgrows them. */
static void add_to_bucket(void *clock, uint64_t b, double joules) {
  ((struct timing_vclock *)clock)->bucket_j[b] += joules;
}

static void trace_energy(struct timing_vclock *c, uint64_t t0, uint64_t t1, double e) {
  while (t1 / (TIMING_POWER_BUCKET_PS << c->bucket_shift) >= TIMING_POWER_BUCKETS) {
    for (int i = 0; i < TIMING_POWER_BUCKETS / 2; i++) c->bucket_j[i] = c->bucket_j[2 * i] + c->bucket_j[2 * i + 1];
    for (int i = TIMING_POWER_BUCKETS / 2; i < TIMING_POWER_BUCKETS; i++) c->bucket_j[i] = 0;
    c->bucket_shift++;
  }
  uint64_t width = TIMING_POWER_BUCKET_PS << c->bucket_shift;
  if (t1 <= t0 || t0 / width == (t1 - 1) / width) { /* the common case: one bucket */
    c->bucket_j[t0 / width] += e;
    return;
  }
  timing_spread(t0, t1, width, e, add_to_bucket, c);
}

void timing_advance(uint64_t ps, enum timing_kind kind, enum timing_activity activity) {
  struct timing_vclock *c = timing_g.clock;
  if (timing_floor_blocked) timing_contention_resume(); /* acting again, from where the clock stands */
  uint64_t t0 = c->now_ps;
  uint32_t steps = __atomic_load_n(&c->steps, __ATOMIC_RELAXED);
  __atomic_store_n(&c->steps, steps + 1, __ATOMIC_RELAXED); /* the sensor's seqlock (energy.c) */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  c->now_ps += ps;
  if (kind == TIMING_COMPUTE) c->compute_ps += ps;
  else if (kind == TIMING_COMM) c->comm_ps += ps;
  else c->wait_ps += ps;
  refresh_state();
  /* A wait may span a DVFS change of the domain: its energy follows the log. */
  double e = activity == TIMING_POLLING
                 ? timing_core_joules(timing_g.job, timing_g.core, t0, c->now_ps, activity_factor(activity))
                 : timing_g.watts[activity] * (double)ps * 1e-12;
  c->dynamic_j += e;
  trace_energy(c, t0, c->now_ps, e);
  /* The windows' energy before the floor leaves them (sensor.c). */
  timing_sensor_record(t0, c->now_ps, e);
  __atomic_store_n(&c->steps, steps + 2, __ATOMIC_RELEASE);
  if (c->now_ps >= timing_g.window_end_ps) {
    uint64_t from = timing_g.window;
    timing_contention_cross(); /* timing_g.window: the clock's new window */
    timing_sensor_lookahead(from, timing_g.window);
  }
}

/* Computation since the last exit, counted: the P54C cycles of the blocks
 * entered, time_compute_bb_cycles for each block without its own, and the
 * waits on the caches. */
static void charge_counted(void) {
  double cycles = (double)(timing_fast.bb_cycles - timing_g.left_cycles) +
                  (double)(timing_fast.bb_unpriced - timing_g.left_unpriced) * timing_g.chip->time.compute_bb_cycles;
  timing_advance((uint64_t)(cycles * timing_ps_per_cycle() + 0.5), TIMING_COMPUTE, TIMING_EXECUTING);
  timing_cache_charge();
}

void timing_compute_checkpoint(void) {
  if (!timing_enabled || timing_g.depth > 0 || !timing_g.counted) return;
  charge_counted();
  timing_g.left_cycles = timing_fast.bb_cycles;
  timing_g.left_unpriced = timing_fast.bb_unpriced;
}

void timing_enter(void) {
  if (timing_g.depth++ > 0) return;
  timing_g.reads_in_flight = 0;
  int after_empty_poll = timing_g.poll_empty;
  timing_g.poll_empty = 0;
  if (timing_measuring_library) timing_library_measure_enter();
  if (timing_g.counted) {
    charge_counted();
    return;
  }
  if (timing_g.chip->time.compute_slowdown == 0 || after_empty_poll) return;
  uint64_t now = host_ns();
  uint64_t ns = now > timing_g.left_ns + timing_g.probe_ns ? now - timing_g.left_ns - timing_g.probe_ns : 0;
  /* Shorter intervals are the glue between two calls (returning, the
   * caller's loop, calling again): host noise of tens of nanoseconds that
   * the slowdown would magnify; the call's cost is sw_call_cycles. */
  if (ns <= timing_g.chip->time.compute_min_ns) return;
  const struct chip_timing *t = &timing_g.chip->time;
  /* compute_slowdown is the P54C's time at compute_ref_mhz over the host's;
   * at another tile clock computation takes proportionally longer. */
  double ps = (double)ns * 1000.0 * t->compute_slowdown * t->compute_ref_mhz / timing_tile_mhz();
  timing_advance((uint64_t)(ps + 0.5), TIMING_COMPUTE, TIMING_EXECUTING);
}

void timing_leave(void) {
  if (--timing_g.depth > 0) return;
  if (timing_measuring_library) timing_library_measure_leave(timing_g.poll_empty);
  if (timing_g.counted) {
    timing_g.left_cycles = timing_fast.bb_cycles;
    timing_g.left_unpriced = timing_fast.bb_unpriced;
  } else if (timing_g.chip->time.compute_slowdown != 0) timing_g.left_ns = host_ns();
}

void timing_poll_empty(void) {
  if (timing_enabled) timing_g.poll_empty = 1;
}

/* A counted build does not see the MPI library's instructions (a binary from
 * a package registry): its measured work per message call is charged here.
 * A plain build measures that work as host time between runtime calls. */
static double mpi_library_call_cycles(void) {
  if (!timing_g.counted) return 0;
  switch (timing_g.job->hdr->set.mpi_library) {
    case 1: return timing_g.chip->time.mpi_openmpi_call_cycles;
    case 2: return timing_g.chip->time.mpi_mpich_call_cycles;
    default: return 0;
  }
}

void timing_message_call(void) {
  if (timing_enabled) timing_charge(timing_g.chip->time.sw_call_cycles + mpi_library_call_cycles());
}

double timing_wtime(void) {
  struct timing_vclock *c = timing_g.clock;
  /* The program's first and last clock reads bound what it measures
   * (docs/model.md "Measured region"); reads after RCCE_finalize do not. */
  if (c->running) {
    if (c->clock_reads++ == 0) c->first_read_ps = c->now_ps;
    c->last_read_ps = c->now_ps;
  }
  return (double)c->now_ps * 1e-12;
}

/* The domain's master appends a state (the log's only writer): the entry
 * first, then the count that makes it visible. */
static void log_dvfs(int domain, uint64_t t, int vlevel, int divider) {
  struct timing_vlog *log = &timing_g.vlogs[domain];
  int n = __atomic_load_n(&log->n, __ATOMIC_RELAXED);
  if (n >= TIMING_VLOG_ENTRIES) {
    __atomic_store_n(&log->full, 1, __ATOMIC_RELEASE);
    return;
  }
  log->e[n].t_ps = t;
  log->e[n].vlevel = vlevel;
  log->e[n].divider = divider;
  __atomic_store_n(&log->n, n + 1, __ATOMIC_RELEASE);
}

void timing_frequency_change(int domain, int divider) {
  if (!timing_enabled) return;
  timing_charge(timing_g.chip->time.dvfs_frequency_cycles);
  int vlevel, old;
  timing_domain_state(timing_g.job, domain, timing_g.clock->now_ps, &vlevel, &old);
  log_dvfs(domain, timing_g.clock->now_ps, vlevel, divider);
}

uint64_t timing_voltage_request(void) { return timing_enabled ? timing_g.clock->now_ps : 0; }

void timing_voltage_wait(uint64_t requested_ps, int domain, int vlevel) {
  if (!timing_enabled) return;
  uint64_t done = requested_ps + (uint64_t)(timing_g.chip->time.dvfs_voltage_cycles * timing_ps_per_cycle());
  timing_wait_until(done);
  int old, divider;
  timing_domain_state(timing_g.job, domain, done, &old, &divider);
  log_dvfs(domain, done, vlevel, divider);
}

/* A UE that runs only the runtime's code (a copy core, copy layer): it is
 * counted with no blocks of its own, so no host time is computation and its
 * shared resources are taken in virtual-time order as a counted program's. */
void timing_runtime_only(void) {
  if (!timing_enabled) return;
  timing_g.counted = 1;
  timing_g.clock->counted = 1;
  timing_g.probe_ns = 0;
  timing_cache_init();
}

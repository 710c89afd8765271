/* timing layer: what model mode charges, one unit at a time, on a private
 * segment where this process is UE 0 on core 0 and plays the other UEs by
 * writing their stamps and loads (docs/model.md). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/wait.h"
#include "timing/energy.h"
#include "timing/timing_internal.h"
#include "unit.h"

#define TILE_MHZ 533 /* divider 3 */

static struct hw_job job;

static void start(int nue) {
  struct hw_job_params p;
  char err[256];
  memset(&p, 0, sizeof p);
  p.nue = nue;
  if (chip_preset("scc", &p.chip, err, sizeof err) != 0) abort();
  for (int u = 0; u < nue; u++) p.ue_core[u] = u;
  p.shared_bytes = 64 << 20;
  p.set.initial_divider = 3;
  p.set.model = 1;
  if (hw_job_create_private(&p, &job, err, sizeof err) != 0 || timing_init(&job, 0) != 0) {
    fprintf(stderr, "setup: %s\n", err);
    exit(2);
  }
}

static void stop(void) {
  timing_finalize();
  hw_job_detach(&job);
}

static uint64_t now(void) { return timing_clock_of(&job, 0)->now_ps; }
static double cycles_ps(double cycles) { return cycles * 1e6 / TILE_MHZ; }
static int near(double a, double b) { return fabs(a - b) <= 2.0; } /* ps, rounding */
static const struct chip_desc *chip(void) { return &job.hdr->chip; }

/* A flag written into core 47's MPB costs a library step and a remote line
 * write; its line carries the writer's time and the value's low byte. */
static void test_flag_write(void) {
  start(2);
  volatile uint32_t *flag = (volatile uint32_t *)(hw_mpb(&job, 47) + 64 * 32);
  uint64_t t0 = now();
  timing_flag_write(flag, 0, 0x1234);
  double want = chip()->time.sw_step_cycles + chip_mpb_write_line_cycles(chip(), 0, 47, TILE_MHZ);
  CHECK(near((double)(now() - t0), cycles_ps(want)));
  uint64_t stamp = __atomic_load_n(timing_stamp_of(&job, 47, 64, 0), __ATOMIC_RELAXED);
  CHECK_EQ(stamp >> 8, now());
  CHECK_EQ(stamp & 0xff, 0x34);
  stop();
}

/* A reader that sees the value a stamp belongs to moves to the stamp, then
 * pays the read; a stamp of another value (a newer write) is not waited for. */
static void test_flag_seen(void) {
  start(2);
  volatile uint32_t *flag = (volatile uint32_t *)(hw_mpb(&job, 0) + 10 * 32);
  uint64_t later = now() + 5000000;
  __atomic_store_n(timing_stamp_of(&job, 0, 10, 0), timing_stamp_pack(later, 7), __ATOMIC_RELAXED);
  double read = chip()->time.sw_step_cycles + chip()->lat.mpb_read_local;
  timing_flag_seen(flag, 0, 8); /* not the stamped value */
  CHECK(now() < later);
  uint64_t t1 = now();
  timing_flag_seen(flag, 0, 7);
  CHECK(near((double)(now() - later), cycles_ps(read)));
  CHECK_EQ(timing_clock_of(&job, 0)->wait_ps, later - t1);
  /* Single-bit flags: one stamp per bit. */
  __atomic_store_n(timing_stamp_of(&job, 0, 11, 200), timing_stamp_pack(now() + 1000000, 1), __ATOMIC_RELAXED);
  uint64_t t2 = now();
  timing_flag_seen(hw_mpb(&job, 0) + 11 * 32, 199, 1); /* another bit: no stamp there */
  CHECK(near((double)(now() - t2), cycles_ps(read)));
  stop();
}

/* Latency by distance: a 100-byte copy from core 2's MPB (one hop) is four
 * line reads; from core 47's (eight hops) each line costs more. */
static void test_mpb_copy_by_distance(void) {
  start(2);
  uint64_t t0 = now();
  timing_mpb_copy(hw_mpb(&job, 2), 100, 0);
  uint64_t near_cost = now() - t0;
  CHECK(near((double)near_cost, cycles_ps(4 * chip_mpb_read_cycles(chip(), 0, 2, TILE_MHZ))));
  t0 = now();
  timing_mpb_copy(hw_mpb(&job, 47), 100, 0);
  uint64_t far_cost = now() - t0;
  CHECK(near((double)far_cost, cycles_ps(4 * chip_mpb_read_cycles(chip(), 0, 47, TILE_MHZ))));
  CHECK(far_cost > near_cost);
  t0 = now();
  timing_mpb_copy(hw_mpb(&job, 1), 32, 1); /* own tile, one line */
  CHECK(near((double)(now() - t0), cycles_ps(chip()->lat.mpb_write_local)));
  stop();
}

static uint64_t window_ps(void) { return (uint64_t)(chip()->lat.contention_window_ns * 1000); }

/* Move the clock to the start of contention window w. */
static void to_window(uint64_t w) { timing_advance(w * window_ps() - now(), TIMING_COMM, TIMING_STALLED); }

/* UE `ue`'s published busy time of resource r in window w (its slot, timing_shared.h). */
static uint64_t *busy_of(int ue, uint64_t w, uint64_t r) {
  uint64_t *slot = timing_window_slot(timing_windows_of(&job, ue), timing_resource_count(chip()), w);
  if (slot[0] != w + 1) {
    memset(slot, 0, (1 + timing_resource_count(chip())) * sizeof *slot);
    slot[0] = w + 1;
  }
  return &slot[1 + r];
}

/* Contention: an access waits what an M/D/1 queue at the other UEs'
 * utilisation waits, rho / (2 (1 - rho)) services; saturation is capped.
 * The others' window w counts in window w + TIMING_WINDOW_LAG. */
static void test_contention_queueing(void) {
  start(2);
  double service = chip()->lat.mc_service_ns * 1000;
  CHECK(timing_mc_queue_ps(0, 1) == 0); /* nobody else */
  *busy_of(1, 1, 0) = window_ps() / 2;  /* UE 1: rho 0.5 on MC0 in window 1 */
  to_window(TIMING_WINDOW_LAG);
  CHECK(timing_mc_queue_ps(0, 1) == 0); /* not before window 1 + lag */
  to_window(1 + TIMING_WINDOW_LAG);
  CHECK(fabs(timing_mc_queue_ps(0, 1) - service * 0.5) < 1e-6);
  CHECK(fabs(timing_mc_queue_ps(0, 4) - 4 * service * 0.5) < 1e-6);
  *busy_of(1, 2, 0) = 3 * window_ps(); /* overloaded */
  to_window(2 + TIMING_WINDOW_LAG);
  CHECK(fabs(timing_mc_queue_ps(0, 1) - service * 0.99 / 0.02) < 1e-3);
  /* Links count too: MC1 sits at tile (5,0), five hops east of core 0. */
  int links[16];
  CHECK_EQ(chip_route(chip(), 0, 5, links, 16), 5);
  uint64_t first_link = (uint64_t)(chip()->n_mc + chip_num_tiles(chip()));
  *busy_of(1, 3, first_link + (uint64_t)links[4]) = window_ps() / 2;
  to_window(3 + TIMING_WINDOW_LAG);
  double link_service = chip()->lat.link_service_cycles * 1e6 / chip()->mesh_mhz;
  CHECK(fabs(timing_mc_queue_ps(1, 1) - link_service * 0.5) < 1e-6);
  /* My own use is published when my clock leaves the window, for the others only. */
  uint64_t w = 4 + TIMING_WINDOW_LAG;
  to_window(w);
  for (int i = 0; i < 10; i++) timing_mc_queue_ps(2, 1);
  CHECK(timing_mc_queue_ps(2, 1) == 0);
  to_window(w + 1);
  const uint64_t *slot = timing_window_slot(timing_windows_of(&job, 0), timing_resource_count(chip()), w);
  CHECK_EQ(slot[0], w + 1);
  CHECK(fabs((double)slot[1 + 2] - 11 * service) <= 1);
  to_window(w + TIMING_WINDOW_LAG);
  CHECK(timing_mc_queue_ps(2, 1) == 0);
  stop();
}

/* Virtual-time order (floor.c): the floors the UEs publish. */
static uint64_t floor_word_of(int ue) { return __atomic_load_n(&timing_floor_of(&job, ue)->word, __ATOMIC_SEQ_CST); }
static void set_floor(int ue, enum timing_floor_state state, uint64_t window) {
  __atomic_store_n(&timing_floor_of(&job, ue)->word, timing_floor_word(state, window, 0), __ATOMIC_SEQ_CST);
}
static uint64_t lowerings(void) { return floor_word_of((int)job.hdr->nue); }
static int never(void *arg) { return (void)arg, 0; }
static int always(void *arg) { return (void)arg, 1; }

static void test_floors(void) {
  start(3); /* UE 0 is me; UEs 1 and 2 play the others */
  CHECK_EQ(timing_floor_state_of(floor_word_of(0)), FLOOR_AT);
  CHECK_EQ(timing_floor_state_of(floor_word_of(1)), FLOOR_ABSENT); /* not started: waited for by nobody */
  to_window(3);
  CHECK_EQ(timing_floor_window_of(floor_word_of(0)), 3); /* raised as the clock crosses windows */
  /* A wait announces me blocked unless its condition holds; acting again puts the floor back. */
  CHECK_EQ(hw_vt_hooks->block_unless(always, NULL), 1);
  CHECK_EQ(timing_floor_state_of(floor_word_of(0)), FLOOR_AT);
  CHECK_EQ(hw_vt_hooks->block_unless(never, NULL), 0);
  CHECK_EQ(timing_floor_state_of(floor_word_of(0)), FLOOR_BLOCKED);
  timing_charge(1);
  CHECK_EQ(timing_floor_state_of(floor_word_of(0)), FLOOR_AT);
  CHECK_EQ(timing_floor_window_of(floor_word_of(0)), 3);
  /* A flag written into blocked UE 1's MPB gives it a floor at the flag's stamp (woken, counted)... */
  set_floor(1, FLOOR_BLOCKED, 0);
  uint64_t count = lowerings();
  uint64_t stamp = now();
  timing_flag_write(hw_mpb(&job, 1) + 5 * 32, 0, 1);
  to_window(6);
  hw_ring(&job, 1);
  CHECK_EQ(timing_floor_state_of(floor_word_of(1)), FLOOR_WOKEN);
  CHECK_EQ(timing_floor_window_of(floor_word_of(1)), stamp / window_ps());
  CHECK_EQ(lowerings(), count + 1);
  /* ... a running UE keeps its own (the word still changes: an announcement racing it fails) ... */
  set_floor(1, FLOOR_AT, 9);
  timing_flag_write(hw_mpb(&job, 1) + 5 * 32, 0, 0);
  hw_ring(&job, 1);
  CHECK_EQ(timing_floor_state_of(floor_word_of(1)), FLOOR_AT);
  CHECK_EQ(timing_floor_window_of(floor_word_of(1)), 9);
  CHECK_EQ(timing_floor_changes_of(floor_word_of(1)), 1);
  CHECK_EQ(lowerings(), count + 1);
  hw_ring(&job, 2); /* not started: nothing */
  CHECK_EQ(floor_word_of(2), 0);
  /* A barrier's release gives its blocked members a floor at the latest arrival. */
  set_floor(1, FLOOR_BLOCKED, 0);
  unsigned char *line = hw_mpb(&job, 0) + 3 * 32;
  __atomic_store_n(timing_stamp_of(&job, 0, 3, 0), 8 * window_ps() + 5, __ATOMIC_RELAXED); /* generation 6: slot 0 */
  int members[] = {0, 1};
  timing_barrier_release(line, 6, members, 2);
  CHECK_EQ(timing_floor_state_of(floor_word_of(1)), FLOOR_WOKEN);
  CHECK_EQ(timing_floor_window_of(floor_word_of(1)), 8);
  timing_finalize();
  CHECK_EQ(timing_floor_state_of(floor_word_of(0)), FLOOR_DONE);
  hw_job_detach(&job);
}

/* A UE that wants window k - lag waits until every other floor is past it.
 * UE 1 (a thread here) is behind: it publishes its window and raises its
 * floor only later, and the queueing read then is what it published. */
static int raised;

static void *raise_later(void *arg) {
  (void)arg;
  struct timespec pause = {0, 20000000};
  nanosleep(&pause, NULL);
  *busy_of(1, 2, 0) = window_ps() / 2; /* rho 0.5 on MC0 in window 2 */
  __atomic_store_n(&raised, 1, __ATOMIC_SEQ_CST);
  set_floor(1, FLOOR_AT, 3);
  return NULL;
}

static void test_floor_wait(void) {
  start(2);
  timing_g.counted = 1; /* a counted build's UE waits; a plain one reads what is there */
  set_floor(1, FLOOR_AT, 0);
  to_window(2 + TIMING_WINDOW_LAG);
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, raise_later, NULL), 0);
  double q = timing_mc_queue_ps(0, 1); /* reads window 2: waits for UE 1 to be past it */
  CHECK_EQ(__atomic_load_n(&raised, __ATOMIC_SEQ_CST), 1);
  CHECK(fabs(q - chip()->lat.mc_service_ns * 1000 * 0.5) < 1e-6);
  pthread_join(t, NULL);
  stop();
}

/* Shared-memory pages are dealt to the controllers in turn. */
static void test_shared_pages(void) {
  start(1);
  double page = chip()->lat.mc_page_bytes;
  CHECK_EQ(chip_shared_mc(chip(), 0), 0);
  CHECK_EQ(chip_shared_mc(chip(), (unsigned long long)page), 1);
  CHECK_EQ(chip_shared_mc(chip(), (unsigned long long)(5 * page) + 8), 1);
  stop();
}

/* A barrier leaves at the latest arrival, plus one read of the counter line. */
static void test_barrier(void) {
  start(2);
  unsigned char *line = hw_mpb(&job, 0) + 3 * 32;
  timing_barrier_arrive(line, 6);
  uint64_t mine = now(), theirs = mine + 777000;
  __atomic_store_n(timing_stamp_of(&job, 0, 3, 0), theirs, __ATOMIC_RELAXED); /* generation 6: slot 0 */
  timing_barrier_leave(line, 6);
  CHECK(near((double)(now() - theirs), cycles_ps(chip()->lat.mpb_read_local)));
  stop();
}

/* A lock is not acquired before its holder released it. */
static void test_lock(void) {
  start(2);
  uint64_t before = now();
  _Atomic uint64_t *free_ps = timing_lock_free_of(&job, 5);
  *free_ps = before + 123000;
  timing_tas_acquired(5);
  CHECK_EQ(now(), before + 123000);
  timing_tas_acquired(5); /* released long ago: no wait */
  CHECK_EQ(now(), before + 123000);
  timing_advance(1000, TIMING_COMM, TIMING_STALLED);
  timing_tas_released(5);
  CHECK_EQ(*free_ps, now());
  stop();
}

/* DVFS: the voltage change takes its modeled latency from the request on,
 * and the domain's log records when the new level counts. */
static void test_dvfs(void) {
  start(2);
  uint64_t asked = timing_voltage_request();
  timing_advance(1000, TIMING_COMPUTE, TIMING_EXECUTING);
  timing_voltage_wait(asked, 0, 0);
  uint64_t done = asked + (uint64_t)cycles_ps(chip()->time.dvfs_voltage_cycles);
  CHECK(now() == done);
  CHECK_EQ(timing_vlog_of(&job, 0)->n, 1);
  CHECK_EQ(timing_vlog_of(&job, 0)->e[0].t_ps, done);
  CHECK_EQ(timing_vlog_of(&job, 0)->e[0].vlevel, 0);
  uint64_t t0 = now();
  timing_frequency_change(0, 5);
  CHECK(near((double)(now() - t0), cycles_ps(chip()->time.dvfs_frequency_cycles)));
  /* the new divider counts from the master's clock on, for every core of the domain */
  const struct timing_vlog *log = timing_vlog_of(&job, 0);
  CHECK_EQ(log->n, 2);
  CHECK_EQ(log->e[1].t_ps, now());
  CHECK_EQ(log->e[1].divider, 5);
  CHECK_EQ(log->e[1].vlevel, 0);
  int vlevel = -1, divider = -1;
  timing_vlog_state(log, now() - 1, &vlevel, &divider);
  CHECK_EQ(divider, 3); /* the voltage change kept the initial divider */
  timing_vlog_state(log, now(), &vlevel, &divider);
  CHECK_EQ(divider, 5);
  CHECK(near(timing_ps_per_cycle(), 1e6 / chip_tile_mhz(chip(), 5)));
  stop();
}

/* One window's record of UE u (timing.energy): its core at `activity`
 * (0.8 V, 533 MHz: the job's start) for the whole window, its clock past it. */
static void record_window(int u, uint64_t k, double activity) {
  double window_s = chip()->lat.contention_window_ns * 1e-9;
  struct timing_window_energy *e = &timing_energy_of(&job, u)[k % TIMING_ENERGY_WINDOWS];
  e->joules = chip_core_power(chip(), 0.8, 533, activity) * window_s;
  e->tag = k + 1;
  timing_clock_of(&job, u)->now_ps = (k + 1) * (uint64_t)(chip()->lat.contention_window_ns * 1000);
}

/* The power fit (make calibrate): 2 and 48 cores running at Share's
 * activity in the model (0.8608, docs/model.md "Power model") at 0.8 V /
 * 533 MHz draw Share's published 31.616 W and 50.768 W (the other cores
 * idle); 48 executing at 1.3 V / 800 MHz the chip's 125 W. */
static void test_power_fit(void) {
  start(48);
  uint64_t window_ps = (uint64_t)(chip()->lat.contention_window_ns * 1000), k = 7;
  for (int u = 0; u < 48; u++) record_window(u, k, u < 2 ? 0.8608 : chip()->power.idle_activity);
  CHECK(fabs(timing_window_power(&job, k, window_ps) - 31.616) < 0.01);
  for (int u = 0; u < 48; u++) record_window(u, k, 0.8608);
  CHECK(fabs(timing_window_power(&job, k, window_ps) - 50.768) < 0.01);
  const struct chip_desc *c = chip();
  double top = c->power.uncore + chip_num_voltage_domains(c) * chip_domain_static_power(c, 1.3) +
               48 * chip_core_power(c, 1.3, 800, 1.0);
  CHECK(fabs(top - 125.0) < 0.05);
  stop();
}

/* The sensor's records: a UE's energy per window adds up to its dynamic
 * energy, split in proportion where a step spans windows; a UE blocked
 * before a window's end counts as polling to its end, a finished one as
 * idle; the chip at rest has every core idle. */
static void test_window_energy(void) {
  start(2);
  uint64_t window_ps = (uint64_t)(chip()->lat.contention_window_ns * 1000);
  const struct timing_window_energy *ring = timing_energy_of(&job, 0);
  timing_advance(window_ps / 2, TIMING_COMPUTE, TIMING_EXECUTING);
  timing_advance(2 * window_ps, TIMING_WAIT, TIMING_POLLING); /* half of window 0, window 1, half of 2 */
  const struct timing_vclock *k = timing_clock_of(&job, 0);
  CHECK_EQ(ring[2].tag, 3);
  CHECK(fabs(ring[0].joules + ring[1].joules + ring[2].joules - k->dynamic_j) < 1e-15);
  const struct chip_desc *c = chip();
  double executing = chip_core_power(c, 0.8, 533, 1.0), polling = chip_core_power(c, 0.8, 533, c->power.poll_activity);
  double window_s = (double)window_ps * 1e-12;
  CHECK(fabs(ring[1].joules - polling * window_s) < 1e-15);
  CHECK(fabs(ring[0].joules - (executing + polling) * window_s / 2) < 1e-15);
  /* UE 1 blocked at 0 (its clock stands there): polling in every window */
  double rest = timing_rest_power(&job), idle = chip_core_power(c, 0.8, 533, c->power.idle_activity);
  CHECK(fabs(timing_window_power(&job, 1, window_ps) - (rest - 2 * idle + 2 * polling)) < 1e-9);
  timing_clock_of(&job, 1)->end_ps = 1; /* finished: its core idle */
  CHECK(fabs(timing_window_power(&job, 1, window_ps) - (rest - idle + polling)) < 1e-9);
  CHECK(fabs(rest - (c->power.uncore + chip_num_voltage_domains(c) * chip_domain_static_power(c, 0.8) + 48 * idle)) <
        1e-9);
  stop();
}

/* Energy: the power trace's buckets hold the core's dynamic energy, also
 * after they have been widened; the job's energy adds static and uncore. */
static void test_energy_trace(void) {
  start(1);
  for (int i = 0; i < 3000; i++)
    timing_advance(1000000 + (uint64_t)i, i % 2 ? TIMING_COMPUTE : TIMING_COMM, TIMING_EXECUTING);
  const struct timing_vclock *k = timing_clock_of(&job, 0);
  CHECK(k->bucket_shift > 0);
  double sum = 0;
  for (int b = 0; b < TIMING_POWER_BUCKETS; b++) sum += k->bucket_j[b];
  CHECK(fabs(sum - k->dynamic_j) < 1e-9 * k->dynamic_j + 1e-12);
  struct timing_energy e;
  timing_job_energy(&job, &e);
  CHECK(fabs(e.seconds - (double)k->now_ps * 1e-12) < 1e-15);
  CHECK(fabs(e.energy_j - (e.dynamic_j + e.static_j + e.uncore_j)) < 1e-12);
  CHECK(fabs(e.average_w - 31.267) < 0.01); /* one executing core at 0.8 V / 533 MHz */
  static double w[TIMING_POWER_BUCKETS];
  double width;
  int n = timing_power_trace(&job, w, TIMING_POWER_BUCKETS, &width);
  CHECK(n > 1);
  CHECK(fabs(w[0] - 31.267) < 0.05);
  stop();
}

/* A running core's power follows what it does: stalled and polling time
 * cost their activities' share of executing time's energy. */
static void test_power_by_activity(void) {
  start(1);
  const struct timing_vclock *k = timing_clock_of(&job, 0);
  const struct chip_power *p = &chip()->power;
  double before = k->dynamic_j;
  timing_advance(1000000, TIMING_COMPUTE, TIMING_EXECUTING);
  double executing = k->dynamic_j - before;
  CHECK(executing > 0);
  before = k->dynamic_j;
  timing_advance(1000000, TIMING_COMM, TIMING_STALLED);
  CHECK(fabs((k->dynamic_j - before) / executing - p->stall_activity) < 1e-9);
  before = k->dynamic_j;
  timing_advance(1000000, TIMING_WAIT, TIMING_POLLING);
  CHECK(fabs((k->dynamic_j - before) / executing - p->poll_activity) < 1e-9);
  CHECK(p->stall_activity < p->poll_activity && p->poll_activity < 1.0);
  stop();
}

/* Counted computation: the cycles of priced blocks, time_compute_bb_cycles
 * for each block without a price. */
static void test_counted_compute(void) {
  timing_fast.bb_count = 1; /* as if the program had been instrumented */
  start(1);
  timing_leave();
  timing_fast.bb_count += 1000;
  timing_fast.bb_unpriced += 1000;
  uint64_t t0 = now();
  timing_enter();
  CHECK(near((double)(now() - t0), cycles_ps(1000 * chip()->time.compute_bb_cycles)));
  CHECK_EQ(timing_clock_of(&job, 0)->compute_ps, now() - t0);
  timing_leave();
  timing_fast.bb_count += 10;
  timing_fast.bb_cycles += 5000;
  t0 = now();
  timing_enter();
  CHECK(near((double)(now() - t0), cycles_ps(5000)));
  stop();
  timing_fast.bb_count = timing_fast.bb_cycles = timing_fast.bb_unpriced = 0;
}

/* Host time outside the runtime: spin for ms milliseconds (longer than compute_min_ns). */
static void host_work(double ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
}

/* A poll that found nothing (an MPI library's progress loop): the host time
 * until the next runtime call is not computation, once; a counted build
 * still charges the blocks run meanwhile. */
static void test_empty_poll(void) {
  start(1);
  uint64_t *compute = &timing_clock_of(&job, 0)->compute_ps;
  timing_leave();
  host_work(2);
  timing_enter();
  uint64_t charged = *compute;
  CHECK(charged > 0);
  timing_poll_empty();
  timing_leave();
  host_work(2);
  timing_enter();
  CHECK_EQ(*compute, charged);
  timing_leave();
  host_work(2);
  timing_enter();
  CHECK(*compute > charged);
  stop();
  timing_fast.bb_count = 1;
  start(1);
  timing_poll_empty();
  timing_leave();
  timing_fast.bb_count += 1000;
  timing_fast.bb_cycles += 3000;
  uint64_t t0 = now();
  timing_enter();
  CHECK(near((double)(now() - t0), cycles_ps(3000)));
  stop();
  timing_fast.bb_count = timing_fast.bb_cycles = 0;
}

/* An asynchronous handler works at its trigger's time -- before or after
 * the core's own clock -- and the interrupted program keeps its own clock
 * plus the handler's work; nested handlers do the same. */
static void test_interrupt(void) {
  start(2);
  timing_enter();
  timing_cycles(1000);
  uint64_t own = now(), wait0 = timing_clock_of(&job, 0)->wait_ps;
  struct timing_interrupt outer, inner;
  timing_interrupt_enter(&outer);
  timing_interrupt_at(own + 5000000); /* a mail from the virtual future */
  CHECK_EQ(now(), own + 5000000);
  timing_cycles(533); /* 1 us of handler work */
  timing_interrupt_enter(&inner);
  timing_interrupt_at(own / 2); /* first trigger of the inner handler: its clock may go back */
  CHECK_EQ(now(), own / 2);
  timing_cycles(533);
  timing_interrupt_at(own / 4); /* a later trigger cannot move it back again */
  CHECK_EQ(now(), own / 2 + (uint64_t)cycles_ps(533) + 0);
  timing_interrupt_leave(&inner);
  CHECK(near((double)now(), (double)own + 5000000 + 2 * cycles_ps(533)));
  timing_interrupt_leave(&outer);
  CHECK(near((double)now(), (double)own + 2 * cycles_ps(533)));
  CHECK_EQ(timing_clock_of(&job, 0)->wait_ps, wait0);
  /* A consumer that waits keeps its wait. */
  timing_wait_for(now() + 777);
  CHECK_EQ(timing_clock_of(&job, 0)->wait_ps, wait0 + 777);
  timing_leave();
  stop();
}

int main(void) {
  test_interrupt();
  test_flag_write();
  test_flag_seen();
  test_mpb_copy_by_distance();
  test_contention_queueing();
  test_floors();
  test_floor_wait();
  test_shared_pages();
  test_barrier();
  test_lock();
  test_dvfs();
  test_power_fit();
  test_window_energy();
  test_energy_trace();
  test_power_by_activity();
  test_counted_compute();
  test_empty_poll();
  return unit_report("test_timing");
}

/* The private data caches of a UE in a counted build (docs/model.md
 * "Caches"): the memory hooks (memory_access.c) pass every load and store
 * outside the off-chip shared region and the job segment here.
 *
 * Level 1 and level 2 hold lines of line_bytes, least recently used
 * replaced, write-back, and allocate on a read miss only (ref 1 "L1 / L2":
 * no allocation on a write miss).  A load that hits level 1 costs nothing
 * beyond its block's price; one that misses waits for level 2
 * (lat_l2_read) or for the core's memory controller (the DDR3 latency of
 * chip_latency.c and its queue).  A store that hits a level marks its line
 * dirty there; one that misses level 1 goes to level 2 or to memory as a
 * posted write.  A dirty line that makes room for another is written back,
 * level 1's to level 2 (or memory, if level 2 does not hold it), level 2's
 * to memory, also as posted writes.  The core has one write outstanding
 * (ref 1), so a write waits only while the one before it is in flight.
 * The time spent is computation (the program's own memory).
 *
 * A window of shared memory (the SVM pages, tagged MPBT as MetalSVM does)
 * is cached in level 1 only and written through the write-combine buffer
 * (ref 1 "MPBT type"): stores to one line merge there, and the line goes to
 * the shared region's controller for that offset when a store touches
 * another line or the program flushes (svm_flush).  A level-1 miss reads
 * from that controller. */
#include <stdint.h>
#include <stdlib.h>

#include "timing_internal.h"

struct cache_level {
  uint32_t sets, ways;
  uint64_t *tag; /* sets x ways, most recently used first; line + 1 (| TIMING_CACHE_DIRTY), 0 empty */
};

static struct {
  struct cache_level l1, l2;
  int mc;              /* the controller of the core's private memory */
  double stall;        /* cycles the caches have made the core wait */
  double charged;      /* those of them on the clock */
  double write_done;   /* the core cycle the write in flight completes */
  uint64_t window_off; /* the window's offset in the shared region */
  uint64_t combining;  /* the line in the write-combine buffer + 1, or 0 */
} cache_g;

int timing_caches_on;
struct timing_cache_fast timing_cache_fast;

static int level_init(struct cache_level *c, int bytes, int ways, int line_bytes) {
  c->ways = (uint32_t)ways;
  c->sets = bytes ? (uint32_t)(bytes / line_bytes / ways) : 0;
  free(c->tag);
  c->tag = c->sets ? calloc((size_t)c->sets * c->ways, sizeof *c->tag) : NULL;
  return c->sets && !c->tag ? -1 : 0;
}

int timing_cache_init(void) {
  const struct chip_desc *c = timing_g.chip;
  timing_caches_on = 0;
  if (c->cache.l1_bytes == 0) return 0;
  if (level_init(&cache_g.l1, c->cache.l1_bytes, c->cache.l1_ways, c->line_bytes) != 0 ||
      level_init(&cache_g.l2, c->cache.l2_bytes, c->cache.l2_ways, c->line_bytes) != 0)
    return -1;
  timing_cache_fast.l1 = cache_g.l1.tag;
  timing_cache_fast.set_mask = cache_g.l1.sets - 1;
  timing_cache_fast.ways = cache_g.l1.ways;
  timing_cache_fast.line_shift = (unsigned)__builtin_ctz((unsigned)c->line_bytes);
  cache_g.mc = chip_nearest_mc(c, timing_g.core);
  cache_g.stall = cache_g.charged = cache_g.write_done = 0;
  timing_caches_on = timing_g.counted;
  return 0;
}

/* Whether line is in c (made most recently used, and dirty if write); if
 * not and allocate, it replaces the set's least recently used line, whose
 * tag goes to *evicted (0: none).  (Loops, not memmove: sets have a few
 * ways, and this runs at every access that is not a repeat.) */
static int lookup(struct cache_level *c, uint64_t line, int write, int allocate, uint64_t *evicted) {
  *evicted = 0;
  if (!c->sets) return 0;
  uint64_t *set = c->tag + (size_t)(line & (c->sets - 1)) * c->ways, tag = line + 1;
  uint32_t w = 0;
  while (w < c->ways && (set[w] & ~TIMING_CACHE_DIRTY) != tag) w++;
  int hit = w < c->ways;
  if (!hit && !allocate) return 0;
  if (hit) tag = set[w];
  else w = c->ways - 1, *evicted = set[w];
  for (; w > 0; w--) set[w] = set[w - 1];
  set[0] = tag | (write ? TIMING_CACHE_DIRTY : 0);
  return hit;
}

static int dirty(uint64_t tag) { return (tag & TIMING_CACHE_DIRTY) != 0; }

/* Waits reach the clock lazily, with the blocks' cycles (timing_cache_charge
 * at the next runtime call), or before a memory access reads the clock for
 * its controller's queue. */
static void charge_stall(void) {
  double due = cache_g.stall - cache_g.charged;
  if (due <= 0) return;
  cache_g.charged = cache_g.stall;
  uint64_t ps = (uint64_t)(due * timing_ps_per_cycle() + 0.5);
  timing_g.clock->cache_wait_ps += ps;
  timing_advance(ps, TIMING_COMPUTE, TIMING_STALLED);
}

void timing_cache_charge(void) {
  if (timing_caches_on) charge_stall();
}

static struct {
  int divider, core;
  double cycles[CHIP_MAX_MC];
} ddr = {.divider = -1};

double timing_ddr_cycles(int mc) {
  timing_ps_per_cycle(); /* brings cached_divider up to date */
  if (ddr.divider != timing_g.cached_divider || ddr.core != timing_g.core) {
    int mhz = chip_tile_mhz(timing_g.chip, timing_g.cached_divider);
    for (int m = 0; m < chip_num_mcs(timing_g.chip); m++)
      ddr.cycles[m] = chip_ddr_read_cycles(timing_g.chip, timing_g.core, m, mhz);
    ddr.divider = timing_g.cached_divider;
    ddr.core = timing_g.core;
  }
  return ddr.cycles[mc];
}

static double memory_cycles(int mc) {
  charge_stall();
  return timing_ddr_cycles(mc) + timing_mc_queue_ps(mc, 1) / timing_ps_per_cycle();
}

/* What an access to the level below level 1 takes: level 2's latency if it
 * holds the line, else memory's. */
static double below_l1_cycles(int in_l2) { return in_l2 ? timing_g.chip->lat.l2_read : memory_cycles(cache_g.mc); }

/* The line a tag holds. */
static uint64_t tag_line(uint64_t tag) { return (tag & ~TIMING_CACHE_DIRTY) - 1; }

static void wait_cycles(double cycles) {
  if (cycles > 0) cache_g.stall += cycles;
}

/* A posted write taking `latency`: it waits while the one before is in flight. */
static void post_write(double latency) {
  double now = (double)timing_bb_cycles + cache_g.stall;
  double wait = cache_g.write_done > now ? cache_g.write_done - now : 0;
  wait_cycles(wait);
  cache_g.write_done = now + wait + latency;
}

/* A dirty line level 2 gives up goes to memory. */
static void write_back_l2(uint64_t evicted) {
  if (!dirty(evicted)) return;
  timing_g.clock->write_backs++;
  post_write(memory_cycles(cache_g.mc));
}

/* A dirty line level 1 gives up goes to level 2 if it holds the line
 * (dirty there now), else to memory. */
static void write_back_l1(uint64_t evicted) {
  if (!dirty(evicted)) return;
  timing_g.clock->write_backs++;
  uint64_t none;
  post_write(below_l1_cycles(lookup(&cache_g.l2, tag_line(evicted), 1, 0, &none)));
}

static void access_line(uint64_t line, int write) {
  uint64_t evicted_l1, evicted_l2;
  if (lookup(&cache_g.l1, line, write, !write, &evicted_l1)) return;
  int in_l2 = lookup(&cache_g.l2, line, write, !write, &evicted_l2);
  struct timing_vclock *k = timing_g.clock;
  if (write) k->l1_write_misses++;
  else k->l1_read_misses++, k->l2_read_misses += !in_l2;
  double latency = below_l1_cycles(in_l2);
  if (write) post_write(latency);
  else wait_cycles(latency);
  write_back_l2(evicted_l2);
  write_back_l1(evicted_l1);
}

static double window_memory_cycles(uint64_t line) {
  uint64_t off = cache_g.window_off + ((line << timing_cache_fast.line_shift) - timing_cache_fast.window_lo);
  return memory_cycles(chip_shared_mc(timing_g.chip, off));
}

static void access_window_line(uint64_t line, int write) {
  uint64_t evicted;
  int hit = lookup(&cache_g.l1, line, 0, !write, &evicted);
  write_back_l1(evicted);
  if (!write) {
    if (!hit) {
      timing_g.clock->l1_read_misses++, timing_g.clock->l2_read_misses++; /* level 1 only: memory next */
      wait_cycles(window_memory_cycles(line));
    }
    return;
  }
  if (cache_g.combining == line + 1) return;
  timing_cache_window_flush();
  cache_g.combining = line + 1;
}

void timing_cache_window_flush(void) {
  if (!timing_caches_on || !cache_g.combining) return; /* nothing buffered, or the clock has stopped */
  post_write(window_memory_cycles(cache_g.combining - 1));
  cache_g.combining = 0;
}

void timing_cache_access(uintptr_t addr, size_t size, int write) {
  uint64_t first = addr >> timing_cache_fast.line_shift,
           last = (addr + (size ? size : 1) - 1) >> timing_cache_fast.line_shift;
  int window = addr - timing_cache_fast.window_lo < timing_cache_fast.window_len;
  for (uint64_t line = first; line <= last; line++) window ? access_window_line(line, write) : access_line(line, write);
}

void timing_cache_window(uintptr_t lo, size_t len, uint64_t shared_off) {
  timing_cache_fast.window_lo = lo;
  timing_cache_fast.window_len = len;
  cache_g.window_off = shared_off;
}

void timing_cache_window_invalidate(void) {
  struct cache_level *c = &cache_g.l1;
  if (!timing_caches_on || !c->sets) return;
  uint64_t lo = timing_cache_fast.window_lo >> timing_cache_fast.line_shift,
           hi = (timing_cache_fast.window_lo + timing_cache_fast.window_len) >> timing_cache_fast.line_shift;
  for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
    if (c->tag[i] && tag_line(c->tag[i]) >= lo && tag_line(c->tag[i]) < hi) c->tag[i] = 0;
}

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
 * from that controller.
 *
 * The lookup table's windows (scc_lut.h) say per 16 MB entry where a line's
 * memory is (a controller, or a tile's MPB) and how it is cached: cached as
 * private memory, MPBT as the SVM window, or uncached (every access goes to
 * the memory, a read waiting for it, a write posted). */
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

/* What each LUT entry maps (timing_lut_entry). */
static struct lut_slot {
  uint8_t kind, attr;
  uint64_t home;
} lut_g[256];

static int level_init(struct cache_level *c, int bytes, int ways, int line_bytes) {
  c->ways = (uint32_t)ways;
  c->sets = bytes ? (uint32_t)(bytes / line_bytes / ways) : 0;
  free(c->tag);
  c->tag = c->sets ? calloc((size_t)c->sets * c->ways, sizeof *c->tag) : NULL;
  return c->sets && !c->tag ? -1 : 0;
}

int timing_cache_init(void) {
  const struct chip_desc *c = timing_g.chip;
  timing_fast.caches_on = 0;
  if (c->cache.l1_bytes == 0) return 0;
  if (level_init(&cache_g.l1, c->cache.l1_bytes, c->cache.l1_ways, c->line_bytes) != 0 ||
      level_init(&cache_g.l2, c->cache.l2_bytes, c->cache.l2_ways, c->line_bytes) != 0)
    return -1;
  timing_fast.l1 = cache_g.l1.tag;
  timing_fast.set_mask = cache_g.l1.sets - 1;
  timing_fast.ways = cache_g.l1.ways;
  timing_fast.line_shift = (unsigned)__builtin_ctz((unsigned)c->line_bytes);
  cache_g.mc = chip_nearest_mc(c, timing_g.core);
  cache_g.stall = cache_g.charged = cache_g.write_done = 0;
  timing_fast.caches_on = timing_g.counted;
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
  if (timing_fast.caches_on) charge_stall();
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

/* A line of the MPB of core's tile, read (a word's latency: the line comes
 * with it) or written. */
static double mpb_cycles(int core, int write) {
  charge_stall();
  const struct chip_desc *c = timing_g.chip;
  int mhz = timing_tile_mhz();
  double cycles = write ? chip_mpb_write_line_cycles(c, timing_g.core, core, mhz)
                        : chip_mpb_read_cycles(c, timing_g.core, core, mhz);
  return cycles + timing_mpb_queue_ps(core, 1) / timing_ps_per_cycle();
}

static const struct lut_slot *lut_slot_of(uintptr_t addr) {
  return addr - timing_fast.lut_lo < timing_fast.lut_len ? &lut_g[(addr - timing_fast.lut_lo) / TIMING_LUT_PAGE] : NULL;
}

/* How a line is cached (enum timing_lut_attr): the SVM window is MPBT, a
 * LUT window what its entry says, other memory cached. */
static int line_attr(uint64_t line) {
  uintptr_t addr = (uintptr_t)(line << timing_fast.line_shift);
  if (addr - timing_fast.window_lo < timing_fast.window_len) return TIMING_LUT_MPBT;
  const struct lut_slot *e = lut_slot_of(addr);
  return e ? e->attr : TIMING_LUT_CACHED;
}

/* What reading (or writing) a line at its memory takes: the SVM window's
 * and shared frames' controllers by shared-region offset, a private
 * frame's controller, an MPB, or the core's own private memory. */
static double home_cycles(uint64_t line, int write) {
  uintptr_t addr = (uintptr_t)(line << timing_fast.line_shift);
  const struct chip_desc *c = timing_g.chip;
  if (addr - timing_fast.window_lo < timing_fast.window_len)
    return memory_cycles(chip_shared_mc(c, cache_g.window_off + (addr - timing_fast.window_lo)));
  const struct lut_slot *e = lut_slot_of(addr);
  if (!e) return memory_cycles(cache_g.mc);
  switch (e->kind) {
    case TIMING_LUT_SHARED:
      return memory_cycles(chip_shared_mc(c, e->home + (addr - timing_fast.lut_lo) % TIMING_LUT_PAGE));
    case TIMING_LUT_MPB: return mpb_cycles((int)e->home, write);
    default: return memory_cycles((int)e->home);
  }
}

/* What an access to the level below level 1 takes: level 2's latency if it
 * holds the line, else memory's. */
static double below_l1_cycles(uint64_t line, int in_l2) {
  return in_l2 ? timing_g.chip->lat.l2_read : home_cycles(line, 0);
}

/* The line a tag holds. */
static uint64_t tag_line(uint64_t tag) { return (tag & ~TIMING_CACHE_DIRTY) - 1; }

static void wait_cycles(double cycles) {
  if (cycles > 0) cache_g.stall += cycles;
}

/* A posted write taking `latency`: it waits while the one before is in flight. */
static void post_write(double latency) {
  double now = (double)timing_fast.bb_cycles + cache_g.stall;
  double wait = cache_g.write_done > now ? cache_g.write_done - now : 0;
  wait_cycles(wait);
  cache_g.write_done = now + wait + latency;
}

/* A dirty line level 2 gives up goes to memory. */
static void write_back_l2(uint64_t evicted) {
  if (!dirty(evicted)) return;
  timing_g.clock->write_backs++;
  post_write(home_cycles(tag_line(evicted), 1));
}

/* A dirty line level 1 gives up goes to level 2 if it holds the line
 * (dirty there now), else to memory. */
static void write_back_l1(uint64_t evicted) {
  if (!dirty(evicted)) return;
  timing_g.clock->write_backs++;
  uint64_t none;
  uint64_t line = tag_line(evicted);
  post_write(lookup(&cache_g.l2, line, 1, 0, &none) ? timing_g.chip->lat.l2_read : home_cycles(line, 1));
}

static void access_line(uint64_t line, int write) {
  uint64_t evicted_l1, evicted_l2;
  if (lookup(&cache_g.l1, line, write, !write, &evicted_l1)) return;
  int in_l2 = lookup(&cache_g.l2, line, write, !write, &evicted_l2);
  struct timing_vclock *k = timing_g.clock;
  if (write) k->l1_write_misses++;
  else k->l1_read_misses++, k->l2_read_misses += !in_l2;
  double latency = below_l1_cycles(line, in_l2);
  if (write) post_write(latency);
  else wait_cycles(latency);
  write_back_l2(evicted_l2);
  write_back_l1(evicted_l1);
}

/* A line cached in level 1 only, written through the write-combine buffer. */
static void access_mpbt_line(uint64_t line, int write) {
  uint64_t evicted;
  int hit = lookup(&cache_g.l1, line, 0, !write, &evicted);
  write_back_l1(evicted);
  if (!write) {
    if (!hit) {
      timing_g.clock->l1_read_misses++, timing_g.clock->l2_read_misses++; /* level 1 only: memory next */
      wait_cycles(home_cycles(line, 0));
    }
    return;
  }
  if (cache_g.combining == line + 1) return;
  timing_cache_window_flush();
  cache_g.combining = line + 1;
}

/* (The runtime's own copies, timing_copy, use the buffer in plain builds
 * too: whether the clock runs is what counts.) */
void timing_cache_window_flush(void) {
  if (!timing_enabled || !cache_g.combining) return; /* nothing buffered, or the clock has stopped */
  post_write(home_cycles(cache_g.combining - 1, 1));
  cache_g.combining = 0;
}

/* An uncached access: a read waits for the memory, a write is posted. */
static void access_uncached_line(uint64_t line, int write) {
  if (write) {
    timing_g.clock->l1_write_misses++;
    post_write(home_cycles(line, 1));
  } else {
    timing_g.clock->l1_read_misses++, timing_g.clock->l2_read_misses++;
    wait_cycles(home_cycles(line, 0));
  }
}

void timing_cache_access(uintptr_t addr, size_t size, int write) {
  uint64_t first = addr >> timing_fast.line_shift, last = (addr + (size ? size : 1) - 1) >> timing_fast.line_shift;
  for (uint64_t line = first; line <= last; line++) switch (line_attr(line)) {
      case TIMING_LUT_MPBT: access_mpbt_line(line, write); break;
      case TIMING_LUT_UNCACHED: access_uncached_line(line, write); break;
      default: access_line(line, write);
    }
}

void timing_cache_window(uintptr_t lo, size_t len, uint64_t shared_off) {
  timing_fast.window_lo = lo;
  timing_fast.window_len = len;
  cache_g.window_off = shared_off;
}

/* CL1INVMB: every MPBT line leaves level 1 (the SVM window's and the MPBT
 * LUT entries'), unwritten (ref 1 "MPBT type"). */
void timing_cache_window_invalidate(void) {
  struct cache_level *c = &cache_g.l1;
  if (!timing_enabled || !c->sets) return;
  for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
    if (c->tag[i] && line_attr(tag_line(c->tag[i])) == TIMING_LUT_MPBT) c->tag[i] = 0;
}

void timing_lut_window(uintptr_t lo, int entries) {
  timing_fast.lut_lo = lo;
  timing_fast.lut_len = (uintptr_t)entries * TIMING_LUT_PAGE;
}

/* The lines of [lo, hi) leave level c, unwritten. */
static void drop_range(struct cache_level *c, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; c->tag && i < (size_t)c->sets * c->ways; i++)
    if (c->tag[i] && tag_line(c->tag[i]) >= lo && tag_line(c->tag[i]) < hi) c->tag[i] = 0;
}

/* A rewritten entry's lines no longer name the memory they came from; on
 * the chip they would stay (and be wrong): programs flush before they remap
 * ([SVP-SCC] sec. III.B), so the model drops them. */
void timing_lut_entry(int entry, enum timing_lut_kind kind, uint64_t home, enum timing_lut_attr attr) {
  if (entry < 0 || entry >= (int)(sizeof lut_g / sizeof lut_g[0])) return;
  if (cache_g.combining) timing_cache_window_flush();
  lut_g[entry] = (struct lut_slot){.kind = (uint8_t)kind, .attr = (uint8_t)attr, .home = home};
  uint64_t lo = (timing_fast.lut_lo + (uint64_t)entry * TIMING_LUT_PAGE) >> timing_fast.line_shift;
  uint64_t hi = lo + (TIMING_LUT_PAGE >> timing_fast.line_shift);
  drop_range(&cache_g.l1, lo, hi);
  drop_range(&cache_g.l2, lo, hi);
}

/* The P54C cannot flush its level 2 (WBINVD reaches level 1 only), so the
 * SCC's software evicts it by reading as many lines of its own memory as
 * level 2 holds, one outstanding read at a time ([SVP-SCC] sec. III.B
 * calls it expensive; an assumption of docs/data-movement.md): every dirty
 * line is written back on the way, and the reads fill both levels. */
void timing_l2_flush(void) {
  if (!timing_enabled) return;
  const struct chip_desc *c = timing_g.chip;
  double lines = c->cache.l2_bytes / c->line_bytes;
  if (timing_fast.caches_on) {
    timing_cache_window_flush();
    struct cache_level *levels[] = {&cache_g.l1, &cache_g.l2};
    for (int l = 0; l < 2; l++)
      for (size_t i = 0; levels[l]->tag && i < (size_t)levels[l]->sets * levels[l]->ways; i++) {
        if (dirty(levels[l]->tag[i])) {
          timing_g.clock->write_backs++;
          post_write(home_cycles(tag_line(levels[l]->tag[i]), 1));
        }
        levels[l]->tag[i] = 0;
      }
    charge_stall();
  }
  uint64_t ps = (uint64_t)(lines * timing_ddr_cycles(cache_g.mc) * timing_ps_per_cycle() +
                           timing_mc_queue_ps(cache_g.mc, lines) + 0.5);
  timing_g.clock->cache_wait_ps += ps;
  timing_advance(ps, TIMING_COMPUTE, TIMING_STALLED);
}

/* A copy loop of this core (scc_copy_local, the copy cores): REP MOVSD's
 * loads and stores word by word through the caches as the addresses'
 * mappings say -- an MPBT source costs one miss a line, an MPBT
 * destination one posted line write (the write-combine buffer), a cached
 * one a posted write a word (no allocation on a write miss, ref 1) -- and
 * its clocks a word.  Charged whether or not the program is a counted build:
 * the copy is the runtime's. */
void timing_copy(uintptr_t dst, uintptr_t src, size_t bytes) {
  if (!timing_enabled || !cache_g.l1.tag) return;
  for (size_t i = 0; i < bytes; i += 4) {
    size_t n = bytes - i < 4 ? bytes - i : 4;
    timing_access(src + i, n, 0);
    timing_access(dst + i, n, 1);
  }
  wait_cycles((double)((bytes + 3) / 4) * timing_g.chip->time.copy_word_cycles);
  charge_stall();
}

/* Time travelling with the emulated hardware (timing.h): stamps on MPB
 * lines for flags and barriers, line copies, test-and-set registers.  Costs
 * come from the chip's latency model (chip_latency.c,
 * docs/references.md ref 3) plus the library's work per protocol step. */
#include "timing_internal.h"

/* The core whose MPB holds addr, and the line within it. */
static int mpb_owner(const volatile void *addr, uint64_t *line) {
  const struct hw_header *h = timing_g.job->hdr;
  uint64_t off = (uint64_t)((const unsigned char *)addr - (timing_g.job->base + h->mpb_off));
  uint64_t per_core = (uint64_t)h->chip.mpb_bytes_per_core;
  if (line) *line = off % per_core / (uint64_t)h->chip.line_bytes;
  return (int)(off / per_core);
}

/* One word read from / one line written to each core's MPB, and how much
 * later than the writer's stall a line written there arrives (another
 * board's), in cycles at the tile's present clock: a table rebuilt when
 * DVFS changes the clock. */
static struct {
  int divider, core;
  double read[CHIP_MAX_CORES], write[CHIP_MAX_CORES], arrival[CHIP_MAX_CORES];
} lines = {.divider = -1};

static const double *line_cycles(int write) {
  timing_ps_per_cycle(); /* brings cached_divider up to date */
  if (lines.divider != timing_g.cached_divider || lines.core != timing_g.core) {
    int mhz = chip_tile_mhz(timing_g.chip, timing_g.cached_divider);
    for (int core = 0; core < chip_num_cores(timing_g.chip); core++) {
      lines.read[core] = chip_mpb_read_cycles(timing_g.chip, timing_g.core, core, mhz);
      lines.write[core] = chip_mpb_write_line_cycles(timing_g.chip, timing_g.core, core, mhz);
      lines.arrival[core] = chip_write_arrival_cycles(timing_g.chip, timing_g.core, core, mhz);
    }
    lines.divider = timing_g.cached_divider;
    lines.core = timing_g.core;
  }
  return write ? lines.write : lines.read;
}

/* n line accesses to owner's MPB: latency per line plus queueing on the
 * way, and other waits of extra_cycles; the core is stalled meanwhile. */
static void charge_lines(int owner, double n, double cycles_per_line, double extra_cycles) {
  double ps = (n * cycles_per_line + extra_cycles) * timing_ps_per_cycle() + timing_mpb_queue_ps(owner, n);
  timing_advance((uint64_t)(ps + 0.5), TIMING_COMM, TIMING_STALLED);
}

/* When a line I have just written into owner's MPB is there. */
static uint64_t arrival_ps(int owner) {
  line_cycles(1); /* brings the table up to date */
  return timing_g.clock->now_ps + (uint64_t)(lines.arrival[owner] * timing_ps_per_cycle() + 0.5);
}

void timing_flag_write(const volatile void *word, int slot, uint32_t value) {
  if (!timing_enabled) return;
  uint64_t line;
  int owner = mpb_owner(word, &line);
  timing_charge(timing_g.chip->time.sw_step_cycles);
  charge_lines(owner, 1, line_cycles(1)[owner], 0);
  uint64_t there = arrival_ps(owner);
  __atomic_store_n(timing_stamp(owner, line, (uint64_t)slot), timing_stamp_pack(there, value), __ATOMIC_RELEASE);
  timing_floor_stamped(there);
}

void timing_flag_seen(const volatile void *word, int slot, uint32_t value) {
  if (!timing_enabled) return;
  uint64_t line;
  int owner = mpb_owner(word, &line);
  uint64_t s = __atomic_load_n(timing_stamp(owner, line, (uint64_t)slot), __ATOMIC_ACQUIRE);
  /* A stamp with another value's tag belongs to a newer write whose value
   * is not visible yet: the value seen is older, and already accounted. */
  if ((s & 0xffu) == (value & 0xffu)) timing_wait_until(s >> TIMING_STAMP_TAG_BITS);
  timing_charge(timing_g.chip->time.sw_step_cycles);
  charge_lines(owner, 1, line_cycles(0)[owner], 0);
}

uint64_t timing_flag_stamp(const volatile void *word, int slot, uint32_t value) {
  if (!timing_enabled) return 0;
  uint64_t line;
  int owner = mpb_owner(word, &line);
  uint64_t s = __atomic_load_n(timing_stamp(owner, line, (uint64_t)slot), __ATOMIC_ACQUIRE);
  return (s & 0xffu) == (value & 0xffu) ? s >> TIMING_STAMP_TAG_BITS : 0;
}

uint64_t timing_line_stamp(const volatile void *word, uint32_t value) { return timing_flag_stamp(word, 0, value); }

void timing_mpb_copy(const volatile void *mpb, size_t bytes, int write) {
  if (!timing_enabled || bytes == 0) return;
  int owner = mpb_owner(mpb, NULL);
  size_t n = (bytes + (size_t)timing_g.chip->line_bytes - 1) / (size_t)timing_g.chip->line_bytes;
  /* The P54C has one outstanding access: every line pays the full latency. */
  charge_lines(owner, (double)n, line_cycles(write)[owner], 0);
}

void timing_bulk_transfer(int sender_core, int buffer_core, size_t size, size_t chunk, int handshakes) {
  if (!timing_enabled || size == 0 || chunk == 0) return;
  const struct chip_desc *c = timing_g.chip;
  const double *read = line_cycles(0); /* also brings the tile clock up to date */
  int mhz = chip_tile_mhz(c, timing_g.cached_divider), me = timing_g.core;
  size_t line = (size_t)c->line_bytes, chunks = (size + chunk - 1) / chunk;
  size_t lines = (size - (chunks - 1) * chunk + line - 1) / line + (chunks - 1) * (chunk / line);
  /* per line: the sender's write into the buffer, the receiver's read from it */
  double per_line = chip_mpb_write_line_cycles(c, sender_core, buffer_core, mhz) + read[buffer_core];
  /* per chunk handshake: flag and acknowledgement, each written remotely and read locally */
  double handshake_lines = chip_mpb_write_line_cycles(c, sender_core, me, mhz) +
                           chip_mpb_write_line_cycles(c, me, sender_core, mhz) + 2 * c->lat.mpb_read_local;
  double handshakes_left = chunks > (size_t)handshakes ? (double)(chunks - (size_t)handshakes) : 0;
  timing_charge(handshakes_left * 4 * c->time.sw_step_cycles);
  charge_lines(buffer_core, (double)lines, per_line, handshakes_left * handshake_lines);
}

/* --- barriers: the latest arrival of generation g, in slot g % 2 ----------
 * Slots are never cleared: what an older generation left there lies before
 * every member's clock (they all passed that barrier), so max() ignores it. */

static _Atomic uint64_t *barrier_slot(const volatile void *line_addr, uint32_t gen) {
  uint64_t line;
  int owner = mpb_owner(line_addr, &line);
  return timing_stamp(owner, line, gen & 1u);
}

static void stamp_max(_Atomic uint64_t *s, uint64_t t) {
  uint64_t cur = __atomic_load_n(s, __ATOMIC_RELAXED);
  while (cur < t && !__atomic_compare_exchange_n(s, &cur, t, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {}
}

void timing_barrier_arrive(const volatile void *line, uint32_t gen) {
  if (!timing_enabled) return;
  int owner = mpb_owner(line, NULL);
  /* Counting in is an atomic update of the counter line: a read and a write. */
  timing_charge(timing_g.chip->time.sw_step_cycles);
  timing_charge_stall(line_cycles(0)[owner] + line_cycles(1)[owner]);
  stamp_max(barrier_slot(line, gen), arrival_ps(owner));
}

void timing_barrier_release(const volatile void *line, uint32_t gen, const int *ues, int n) {
  if (timing_enabled) timing_floor_release(ues, n, __atomic_load_n(barrier_slot(line, gen), __ATOMIC_ACQUIRE));
}

void timing_barrier_leave(const volatile void *line, uint32_t gen) {
  if (!timing_enabled) return;
  timing_wait_until(__atomic_load_n(barrier_slot(line, gen), __ATOMIC_ACQUIRE));
  /* ... and sees the new generation with one read of the counter line. */
  timing_charge_stall(line_cycles(0)[mpb_owner(line, NULL)]);
}

/* --- test-and-set registers ------------------------------------------------ */

void timing_tas_access(int core) {
  if (timing_enabled) timing_charge_stall(line_cycles(0)[core]);
}

void timing_tas_acquired(int core) {
  if (timing_enabled) timing_wait_until(__atomic_load_n(&timing_g.lock_free[core], __ATOMIC_ACQUIRE));
}

void timing_tas_released(int core) {
  if (timing_enabled) __atomic_store_n(&timing_g.lock_free[core], timing_g.clock->now_ps, __ATOMIC_RELEASE);
}

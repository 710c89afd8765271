/*
 * timing layer: the virtual SCC clock of one UE in model mode (rccerun
 * --model, docs/model.md).  Between hw (the emulated hardware) and rcce (the
 * protocols): rcce tells it what the emulated hardware just did -- a flag
 * written or seen, lines copied, a barrier passed -- and it charges what the
 * chip's latency model says, in core cycles of the UE's tile at its current
 * frequency.  Time travels with flags: a writer stamps the flag's line with
 * its clock, a reader moves to max(own clock, stamp) (docs/architecture.md, principle 4).
 * Host time spent outside the runtime is the UE's computation, scaled by the
 * chip's compute_slowdown.  Every function is a no-op in native mode.
 */
#ifndef OPENSCC_TIMING_H
#define OPENSCC_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "../hw/segment.h"

/* Whether this UE runs in model mode (set by timing_init). */
extern int timing_enabled;

/* Start the clock of UE `ue` at virtual time 0 (from RCCE_init); -1 when
 * the model's tables cannot be allocated. */
int timing_init(struct hw_job *job, int ue);
/* After timing_init: this UE runs only the runtime's code (a copy core):
 * its clock moves only by what the runtime charges (clock.c). */
void timing_runtime_only(void);
/* RCCE_finalize: record the end time; the core goes idle. */
void timing_finalize(void);

/* Entry to and exit from a runtime call that touches the emulated hardware;
 * nested calls count once.  Host time between exit and the next entry is
 * computation.  TIMING_SCOPE() brackets the rest of the enclosing public
 * function, and at the timeline trace level records the call and its return
 * (record.c). */
void timing_enter(void);
void timing_leave(void);

/* Monitoring records with both clocks (record.c, hw/trace.h): set up for
 * UE ue of a job; whether calls are recorded (the timeline level). */
void timing_record_init(struct hw_job *job, int ue);
extern int timing_record_calls;
/* A public call `name` begins (its id cached in *id) / returns. */
int timing_record_call(const char *name, int *id);
void timing_record_return(int id);
/* A message sent to / received from peer (targets level and above). */
void timing_record_message(int sending, int peer, size_t size);

struct timing_scope {
  int on, id;
};
static inline void timing_scope_end(struct timing_scope *s) {
  if (s->id >= 0) timing_record_return(s->id);
  if (s->on) timing_leave();
}
static inline struct timing_scope timing_scope_begin(const char *name, int *id) {
  struct timing_scope s = {timing_enabled, -1};
  if (s.on) timing_enter();
  if (timing_record_calls) s.id = timing_record_call(name, id);
  return s;
}
#define TIMING_SCOPE()                                                                   \
  static int timing_name_id_ = -1;                                                       \
  struct timing_scope timing_scope_ __attribute__((cleanup(timing_scope_end), unused)) = \
      timing_scope_begin(__func__, &timing_name_id_)

/* The runtime call under way is a poll that found nothing to do (an MPI
 * library's progress loop reading an empty completion queue): the host time
 * from its return to the next runtime call is that loop spinning, which is
 * not charged -- polling that finds nothing costs no virtual time, as in
 * RCCE's waits; the clock moves on the stamp of what the poll waits for.  A
 * counted build still charges the program's blocks run meanwhile. */
void timing_poll_empty(void);

/* The library work of one message call (send, receive, request). */
void timing_message_call(void);
/* A flag word at `word` (in some core's MPB) is about to receive `value` in
 * bit `slot` (0 for a whole-line flag): charge the line write, stamp the line.
 * Call before the store, so a reader that sees the value sees the stamp. */
void timing_flag_write(const volatile void *word, int slot, uint32_t value);
/* The flag at `word` / `slot` was seen holding `value`: wait for the writer's
 * stamp if it belongs to that value, then charge the read. */
void timing_flag_seen(const volatile void *word, int slot, uint32_t value);
/* `bytes` copied to (write) or from the MPB at `mpb`, in whole lines. */
void timing_mpb_copy(const volatile void *mpb, size_t bytes, int write);

/* The receiver of a message that the host moved in one copy (rcce's single
 * copy) pays what the chunks through the MPB of core `buffer_core` would
 * have cost: every line written by the sender and read by the receiver, and
 * the handshakes of the chunks beyond the `handshakes` the copy made. */
void timing_bulk_transfer(int sender_core, int buffer_core, size_t size, size_t chunk, int handshakes);

/* A barrier whose counter lives in the MPB line at `line`, generation `gen`:
 * every member arrives (before counting itself in) and leaves at the latest
 * arrival; the last to count in releases the others (the n UEs ues), after
 * storing the new generation. */
void timing_barrier_arrive(const volatile void *line, uint32_t gen);
void timing_barrier_release(const volatile void *line, uint32_t gen, const int *ues, int n);
void timing_barrier_leave(const volatile void *line, uint32_t gen);

/* Test-and-set register of `core`: one access; acquired (wait for the last
 * release); released. */
void timing_tas_access(int core);
void timing_tas_acquired(int core);
void timing_tas_released(int core);

/* DVFS (rcce/power.c): a frequency register write (every tile of domain
 * gets divider); a voltage request started now, and the wait for it to take
 * effect (domain reaches vlevel).  Both count for the domain's cores from
 * then on in virtual time. */
void timing_frequency_change(int domain, int divider);
uint64_t timing_voltage_request(void);
void timing_voltage_wait(uint64_t requested_ps, int domain, int vlevel);

/* For the layers above rcce (mailbox, svm; docs/svm.md "Model mode"). */
/* Core cycles of runtime work. */
void timing_cycles(double cycles);
/* One uncached word at offset off of the off-chip shared memory. */
void timing_ddr_word(uint64_t off, int write);
/* Shared memory mapped at [lo, lo + len), whose bytes lie at shared_off of
 * the off-chip shared region: cached in level 1 only, written through the
 * write-combine buffer (MetalSVM's SVM pages, [SVM-2012] sec. 3;
 * docs/model.md "Caches").  timing_cache_window_flush empties the buffer;
 * timing_cache_window_invalidate drops the window's lines from level 1
 * (CL1INVMB). */
void timing_cache_window(uintptr_t lo, size_t len, uint64_t shared_off);
void timing_cache_window_flush(void);
void timing_cache_window_invalidate(void);
/* The lookup table's windows (lut layer, scc_lut.h): entry e's 16 MB at
 * lo + e * TIMING_LUT_PAGE.  timing_lut_entry says what an entry now maps
 * (home: the memory controller of a private frame, the shared-region
 * offset of a shared frame, or the core whose tile's MPB it is) and how it
 * is cached; the entry's lines leave the caches. */
#define TIMING_LUT_PAGE (16ull << 20)
enum timing_lut_kind { TIMING_LUT_NONE = 0, TIMING_LUT_DDR = 1, TIMING_LUT_SHARED = 2, TIMING_LUT_MPB = 3 };
enum timing_lut_attr { TIMING_LUT_CACHED = 0, TIMING_LUT_MPBT = 1, TIMING_LUT_UNCACHED = 2 };
void timing_lut_window(uintptr_t lo, int entries);
void timing_lut_entry(int entry, enum timing_lut_kind kind, uint64_t home, enum timing_lut_attr attr);
/* Level 2's dirty lines written back by reading an L2-sized region of the
 * UE's private memory (docs/data-movement.md "Model"). */
void timing_l2_flush(void);
/* This core copying bytes from src to dst (REP MOVSD), charged through its
 * caches and the addresses' mappings (cache.c). */
void timing_copy(uintptr_t dst, uintptr_t src, size_t bytes);
/* The virtual time the line of word was stamped at with `value` (slot 0),
 * or 0 when its stamp belongs to another write. */
uint64_t timing_line_stamp(const volatile void *word, uint32_t value);
/* The same for the flag in `slot` of the line (timing_flag_write's slot). */
uint64_t timing_flag_stamp(const volatile void *word, int slot, uint32_t value);
/* A server of requests from UEs 0..n-1 (a copy core) about to serve the
 * one stamped t_ps: wait until none of them can still send one stamped in
 * t_ps's window or before, so that it serves them in virtual-time order
 * whatever the host's order (floor.c); no-op natively. */
void timing_order_wait(uint64_t t_ps, int n);
/* This UE's virtual time (0 in native mode); wait until virtual time t. */
uint64_t timing_now(void);
void timing_wait_for(uint64_t t_ps);
/* An asynchronous handler on this core (the owner serving a page request,
 * a mail handler): it works at the virtual time its mail arrived -- UEs run
 * in host order, not in virtual-time order, so that may lie before or after
 * the core's own clock -- and replies carry that time; on return the
 * interrupted program keeps its own clock plus the handler's work. */
struct timing_interrupt {
  int on, started;
  uint64_t now_ps, comm_ps, compute_ps, wait_ps;
  struct timing_interrupt *outer;
};
void timing_interrupt_enter(struct timing_interrupt *s);
/* The handler works on a trigger that arrived at t_ps (the first one sets
 * the handler's clock, later ones can only move it on). */
void timing_interrupt_at(uint64_t t_ps);
void timing_interrupt_leave(struct timing_interrupt *s);

/* Virtual seconds (RCCE_wtime in model mode; after timing_finalize the end time). */
double timing_wtime(void);
/* The power sensor's reading in W (sensor.c; docs/model.md "Power sensor"). */
double timing_sensor_read(void);

#endif

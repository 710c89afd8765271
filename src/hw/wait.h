/*
 * Waiting on emulated hardware: spin briefly, then (when UEs outnumber host
 * CPUs, or other processes load the host) yield a few times, then sleep on a
 * futex (docs/architecture.md, principle 3), so oversubscribed jobs make progress.  The
 * spin budget adapts to host load (wait.c, "adaptive budgets").
 *
 * Doorbell protocol.  A UE only ever sleeps on words in its own MPB (RCCE
 * polls flags in the local MPB, [SCC-2BOARD] sec. IV (docs/references.md)), so each UE has one
 * doorbell.  Waiter: read seq, set sleeping, full fence, re-check the
 * condition, futex_wait(seq).  Writer: store, full fence, if sleeping then
 * bump seq and futex_wake.  The two fences make it impossible for the waiter
 * to miss the store while the writer misses the sleeper.
 *
 * When UEs do not outnumber host CPUs they rarely sleep, so the writer's
 * fence is moved to the sleeper: writers use a compiler barrier only and the
 * sleeper issues membarrier(GLOBAL_EXPEDITED), which runs a full barrier on
 * every CPU running a UE (an asymmetric Dekker fence).
 */
#ifndef OPENSCC_HW_WAIT_H
#define OPENSCC_HW_WAIT_H

#include <stdint.h>

#include "segment.h"

typedef int (*hw_cond_fn)(void *arg);

/* Block UE `me` until cond(arg) is true.  cond must only depend on memory
 * that is written together with a hw_ring(me). */
void hw_wait_cond(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why);

/* Block until (*word & mask) == want; word lies in the MPB of UE `me`. */
void hw_wait_bits(struct hw_job *j, int me, volatile uint32_t *word, uint32_t mask, uint32_t want,
                  const struct hw_wait_desc *why);

/* Block until *word != old, sleeping on the word itself; pair with hw_wake_word. */
void hw_wait_change(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, const struct hw_wait_desc *why);
void hw_wake_word(volatile uint32_t *word);
/* The same with a count of the UEs that may sleep on the word (zero when
 * none does), so that the waker makes the futex system call only when
 * someone may sleep (the barrier's fast path: its waiters usually still
 * spin). */
void hw_wait_change_asleep(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, volatile uint32_t *asleep,
                           const struct hw_wait_desc *why);
void hw_wake_word_asleep(volatile uint32_t *word, volatile uint32_t *asleep);
/* hw_wait_change_asleep that sleeps at most ns once: it returns when *word
 * changed or the sleep timed out (the caller checks again). */
void hw_wait_change_for(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, volatile uint32_t *asleep,
                        long ns, const struct hw_wait_desc *why);

/* The CPUs this process may run on (its affinity mask; at least 1). */
int hw_usable_cpus(void);

void hw_ring_slow(struct hw_job *j, int ue);

/* Model mode: wake UE ue if it is asleep in a wait (not one for virtual
 * time), on whatever word it sleeps, so that it checks its condition again;
 * returns whether it was asleep. */
int hw_wake_sleeper(struct hw_job *j, int ue);

/* Polling calls: after a poll that found nothing done and moved nothing,
 * hw_poll_idle spends one unit of the wait budget (spin, then yield, then a
 * bounded nap until cond holds or the doorbell rings); hw_poll_fruitful
 * starts the count again.  Call it whenever anything was done -- data
 * moved, or an operation completed without the MPB (the MPI provider: a
 * receive served from an unexpected message, a send to oneself) -- so that
 * a stretch of fruitless polls means nothing at all happened in it. */
void hw_poll_idle(struct hw_job *j, int me, hw_cond_fn cond, void *arg);
void hw_poll_fruitful(void);
/* The same for a library that polls while it waits for other UEs (the MPI
 * channel's progress loop, mpi_channel_idle).  The rule: an idle stretch
 * yields for its first 20 ms, whatever the budget, and for up to 1 s while
 * no other UE of the job runs (the library may be working through steps of
 * its own, one empty poll each); then naps, bounded
 * (20 ms: the library may wait for something that rings no doorbell, e.g.
 * a program's MPI_Test loop with its own deadline, seen at most that late);
 * once one idle stretch (the fruitless polls since the last
 * hw_poll_fruitful) has lasted 5 naps (100 ms), its naps show the UE
 * HW_UE_BLOCKED on why, so the launcher's deadlock check sees it; a nap that
 * begins where the previous one timed out with the doorbell unchanged
 * continues the same sleep (`sleeps` is not bumped), while a fruitful poll
 * or a ring starts a new one.  A program's own polls (its MPI_Test loop)
 * look the same as a blocked wait unless the caller tells them apart
 * (hw_poll_set_program_poll, below); the launcher declares a deadlock only
 * after every rank has been blocked for 2 s.  why NULL: a nap not shown blocked (hw_poll_idle's, 1 ms).  cond is
 * called once, right before the nap, and only then: when it returns 0 the
 * thread sleeps (so a caller may release its own lock inside cond, having
 * tested the condition under it).  The budget and the idle stretch are per
 * thread. */
void hw_poll_idle_blocked(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why);
/* For hw_poll_idle_blocked's caller (the MPI provider): program_poll says
 * whether the thread's current poll is a program's own nonblocking test
 * (MPI_Test in a loop between steps of its own work) rather than the
 * library waiting.  Asked only once the spin budget is spent (it may be
 * costly).  Such a poll is not a wait: it yields the CPU and returns, and
 * only once its idle stretch has lasted PROGRAM_POLL_PATIENCE (20 ms)
 * naps as hw_poll_idle does (1 ms, never shown blocked).  NULL: none. */
void hw_poll_set_program_poll(int (*program_poll)(void));

/* Whether the kernel offers the asymmetric fence (launcher side). */
int hw_asym_fence_available(void);
/* Register this UE for the asymmetric fence; returns 0 or -1. */
int hw_asym_fence_register(void);

/* Model mode: the timing layer's part in waits (set by it, NULL natively;
 * docs/model.md "Contention").  A UE that blocks announces it, so that the
 * others do not wait for its virtual time meanwhile, and a writer that may
 * wake a UE says so before its doorbell rings.
 *   block_unless(cond, arg): 1 if cond holds; else the UE is announced
 *     blocked and 0 is returned (cond NULL: announced without a check).
 *   woken(ue): called by hw_ring after the store that may wake ue.
 * A wait for another UE's virtual time (HW_WAIT_VTIME) is not announced. */
struct hw_vt_hooks {
  int (*block_unless)(hw_cond_fn cond, void *arg);
  void (*woken)(int ue);
};
extern const struct hw_vt_hooks *hw_vt_hooks;

/* Call after storing into the MPB of UE `ue` (or anything it waits on). */
static inline void hw_ring(struct hw_job *j, int ue) {
  if (hw_vt_hooks) hw_vt_hooks->woken(ue);
  if (j->hdr->set.asym_fence) __atomic_signal_fence(__ATOMIC_SEQ_CST);
  else __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&hw_ue(j, ue)->sleeping, __ATOMIC_RELAXED)) hw_ring_slow(j, ue);
}

static inline void hw_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#endif

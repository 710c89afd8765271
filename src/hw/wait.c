/* Spin-then-futex waiting; see wait.h for the doorbell protocol. */
#define _GNU_SOURCE
#include "wait.h"

#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

static void futex_wait(volatile uint32_t *addr, uint32_t val) {
  /* Shared futex: the word is in a MAP_SHARED segment used by several processes. */
  syscall(SYS_futex, addr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(volatile uint32_t *addr, int n) { syscall(SYS_futex, addr, FUTEX_WAKE, n, NULL, NULL, 0); }

int hw_asym_fence_available(void) {
  long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  return q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) && (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
}

int hw_asym_fence_register(void) {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}

/* The sleeper's half of the Dekker pair (see wait.h). */
static void sleeper_fence(const struct hw_job *j) {
  if (j->hdr->asym_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
  else __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Publish what this UE sleeps on before every futex_wait (the launcher's
 * deadlock check compares the futex word with futex_val); returns the state
 * to restore on waking. */
static int32_t enter_sleep(struct hw_job *j, struct hw_ue *u, const struct hw_wait_desc *why, volatile uint32_t *word,
                           uint32_t val, int first) {
  int32_t before = __atomic_load_n(&u->state, __ATOMIC_RELAXED);
  if (first) u->wait = *why;
  u->wait.futex_off = (uint64_t)((unsigned char *)word - j->base);
  u->wait.futex_val = val;
  u->counters.sleeps++;
  __atomic_store_n(&u->state, HW_UE_BLOCKED, __ATOMIC_RELEASE);
  return before;
}

static void leave_sleep(struct hw_ue *u, int32_t state) { __atomic_store_n(&u->state, state, __ATOMIC_RELEASE); }

void hw_wait_cond(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why) {
  int spins = j->hdr->spin_limit;
  for (int i = 0; i < spins; i++) {
    if (cond(arg)) return;
    hw_cpu_relax();
  }
  /* Oversubscribed: the UE we wait for needs this CPU; a few yields let it
   * run without paying for a sleep and a wake-up. */
  for (int i = 0; i < j->hdr->yield_limit; i++) {
    if (cond(arg)) return;
    sched_yield();
  }
  struct hw_ue *u = hw_ue(j, me);
  volatile uint32_t *seq = (volatile uint32_t *)&u->doorbell_seq;
  int slept = 0;
  int32_t state = 0;
  for (;;) {
    uint32_t s = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
    __atomic_store_n(&u->sleeping, 1, __ATOMIC_RELAXED);
    sleeper_fence(j);
    if (cond(arg)) break;
    int32_t st = enter_sleep(j, u, why, seq, s, !slept);
    if (!slept) state = st;
    slept = 1;
    futex_wait(seq, s);
    if (cond(arg)) break;
  }
  __atomic_store_n(&u->sleeping, 0, __ATOMIC_RELAXED);
  if (slept) leave_sleep(u, state);
}

struct bits_arg {
  volatile uint32_t *word;
  uint32_t mask, want;
};

static int bits_match(void *p) {
  struct bits_arg *a = p;
  return (__atomic_load_n(a->word, __ATOMIC_ACQUIRE) & a->mask) == a->want;
}

void hw_wait_bits(struct hw_job *j, int me, volatile uint32_t *word, uint32_t mask, uint32_t want,
                  const struct hw_wait_desc *why) {
  struct bits_arg a = {word, mask, want};
  hw_wait_cond(j, me, bits_match, &a, why);
}

void hw_wait_change(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, const struct hw_wait_desc *why) {
  int spins = j->hdr->spin_limit;
  for (int i = 0; i < spins; i++) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != old) return;
    hw_cpu_relax();
  }
  for (int i = 0; i < j->hdr->yield_limit; i++) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != old) return;
    sched_yield();
  }
  struct hw_ue *u = hw_ue(j, me);
  int slept = 0;
  int32_t state = 0;
  while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == old) {
    int32_t st = enter_sleep(j, u, why, word, old, !slept);
    if (!slept) state = st;
    slept = 1;
    futex_wait(word, old);
  }
  if (slept) leave_sleep(u, state);
}

void hw_wake_word(volatile uint32_t *word) { futex_wake(word, INT_MAX); }

void hw_ring_slow(struct hw_job *j, int ue) {
  struct hw_ue *u = hw_ue(j, ue);
  __atomic_fetch_add(&u->doorbell_seq, 1, __ATOMIC_RELEASE);
  futex_wake((volatile uint32_t *)&u->doorbell_seq, 1);
}

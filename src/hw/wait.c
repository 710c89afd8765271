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

/* Bookkeeping of one wait, for the launcher's reports and deadlock check. */
struct sleep_record {
  int slept;
  int32_t state_before;
};

/* Publish what this UE sleeps on before every futex_wait: the deadlock check
 * compares the futex word with futex_val, and a UE woken by an unrelated
 * flag write sleeps again on a new value. */
static void note_sleep(struct hw_job *j, struct hw_ue *u, const struct hw_wait_desc *why, volatile uint32_t *word,
                       uint32_t val, struct sleep_record *rec) {
  if (!rec->slept) {
    rec->slept = 1;
    rec->state_before = __atomic_load_n(&u->state, __ATOMIC_RELAXED);
    u->wait = *why;
  }
  u->wait.futex_off = (uint64_t)((unsigned char *)word - j->base);
  u->wait.futex_val = val;
  u->counters.sleeps++;
  __atomic_store_n(&u->state, HW_UE_BLOCKED, __ATOMIC_RELEASE);
}

static void note_wake(struct hw_ue *u, const struct sleep_record *rec) {
  if (rec->slept) __atomic_store_n(&u->state, rec->state_before, __ATOMIC_RELEASE);
}

/* The cheap phase of every wait: poll, then, when UEs outnumber host CPUs,
 * yield a few times (the UE we wait for needs this CPU; this avoids paying
 * for a sleep and a wake-up).  Returns 1 as soon as cond holds. */
static int poll_briefly(const struct hw_job *j, hw_cond_fn cond, void *arg) {
  for (int i = 0; i < j->hdr->spin_limit; i++) {
    if (cond(arg)) return 1;
    hw_cpu_relax();
  }
  for (int i = 0; i < j->hdr->yield_limit; i++) {
    if (cond(arg)) return 1;
    sched_yield();
  }
  return 0;
}

void hw_wait_cond(struct hw_job *j, int me, hw_cond_fn cond, void *arg, const struct hw_wait_desc *why) {
  if (poll_briefly(j, cond, arg)) return;
  struct hw_ue *u = hw_ue(j, me);
  volatile uint32_t *seq = (volatile uint32_t *)&u->doorbell_seq;
  struct sleep_record rec = {0, 0};
  for (;;) {
    uint32_t s = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
    __atomic_store_n(&u->sleeping, 1, __ATOMIC_RELAXED);
    sleeper_fence(j);
    if (cond(arg)) break;
    note_sleep(j, u, why, seq, s, &rec);
    futex_wait(seq, s);
    if (cond(arg)) break;
  }
  __atomic_store_n(&u->sleeping, 0, __ATOMIC_RELAXED);
  note_wake(u, &rec);
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

static int word_changed(void *p) {
  struct bits_arg *a = p;
  return __atomic_load_n(a->word, __ATOMIC_ACQUIRE) != a->want;
}

void hw_wait_change(struct hw_job *j, int me, volatile uint32_t *word, uint32_t old, const struct hw_wait_desc *why) {
  struct bits_arg a = {word, ~0u, old};
  if (poll_briefly(j, word_changed, &a)) return;
  struct hw_ue *u = hw_ue(j, me);
  struct sleep_record rec = {0, 0};
  while (!word_changed(&a)) {
    note_sleep(j, u, why, word, old, &rec);
    futex_wait(word, old);
  }
  note_wake(u, &rec);
}

void hw_wake_word(volatile uint32_t *word) { futex_wake(word, INT_MAX); }

void hw_ring_slow(struct hw_job *j, int ue) {
  struct hw_ue *u = hw_ue(j, ue);
  __atomic_fetch_add(&u->doorbell_seq, 1, __ATOMIC_RELEASE);
  futex_wake((volatile uint32_t *)&u->doorbell_seq, 1);
}

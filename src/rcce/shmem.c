/* Off-chip shared memory (RCCE_shmalloc) and the test-and-set locks. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rcce_internal.h"

t_vcharp RCCE_shmalloc(size_t size) {
  if (hw_hosts_many(&rcce_g.job)) { /* each host has its own replica of the region (hw/hosts.h) */
    fprintf(stderr, "RCCE_shmalloc (UE %d): off-chip shared memory is not shared between hosts (rccerun --hosts)\n",
            rcce_g.ue);
    return NULL;
  }
  return rcce_alloc_lines(&rcce_g.shm_alloc, hw_shared(&rcce_g.job), size, "RCCE_shmalloc",
                          "shared (rccerun --shm-size)");
}

/* The line of the shared region where ptr lies, or -1 when ptr is not a
 * line of it (RCCE_shmalloc gives line-aligned blocks). */
static int64_t shared_line(t_vcharp ptr) {
  unsigned char *base = hw_shared(&rcce_g.job);
  uint64_t off = (uint64_t)((unsigned char *)ptr - base);
  if (!ptr || (unsigned char *)ptr < base || off >= rcce_g.job.hdr->shared_bytes || off % rcce_g.line) return -1;
  return (int64_t)(off / rcce_g.line);
}

void RCCE_shfree(t_vcharp ptr) {
  int64_t line = shared_line(ptr);
  if (line < 0 || rcce_range_free(&rcce_g.shm_alloc, (uint64_t)line) < 0)
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_shfree", "pointer was not returned by RCCE_shmalloc");
}

/* RCCE 2.0: a new block with the old one's bytes (as many as fit), the old
 * one freed; NULL (and the old block kept) when there is no room. */
t_vcharp RCCE_shrealloc(t_vcharp ptr, size_t size) {
  if (!ptr) return RCCE_shmalloc(size);
  int64_t line = shared_line(ptr);
  uint64_t lines = line < 0 ? 0 : rcce_range_used_len(&rcce_g.shm_alloc, (uint64_t)line);
  if (!lines) {
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_shrealloc", "pointer was not returned by RCCE_shmalloc");
    return NULL;
  }
  t_vcharp fresh = RCCE_shmalloc(size);
  if (!fresh) return NULL;
  size_t old = (size_t)lines * rcce_g.line;
  memcpy((void *)fresh, (const void *)ptr, old < size ? old : size);
  RCCE_shfree(ptr);
  return fresh;
}

/* On the SCC this flushes the write-combine buffer so uncached writes reach
 * DDR3 (docs/references.md ref 1, "MPBT type"); here a full fence. */
void RCCE_shflush(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
int RCCE_DCMflush(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return RCCE_SUCCESS;
}

/* A lock whose register is on another host (rccerun --hosts) is asked for
 * again after this long; its home's agent wakes the waiters of its host. */
#define REMOTE_LOCK_RETRY_NS 50000L

/* One test-and-set register per core (docs/references.md ref 1).  Both
 * return int, as RCCE declares them: RCCE_SUCCESS or RCCE_ERROR_ID. */
int RCCE_acquire_lock(int ID) {
  TIMING_SCOPE();
  int rc = rcce_check_ue(ID, "RCCE_acquire_lock");
  if (rc != RCCE_SUCCESS) return rc;
  struct hw_tas *t = hw_tas(&rcce_g.job, hw_ue(&rcce_g.job, ID)->core);
  volatile uint32_t *w = (volatile uint32_t *)&t->locked;
  struct hw_wait_desc why = {.kind = HW_WAIT_LOCK, .peer = ID};
  timing_tas_access(hw_ue(&rcce_g.job, ID)->core);
  while (hw_mpb_rmw32(&rcce_g.job, w, HW_RMW_XCHG, 1) != 0) {
    if (hw_home_of(&rcce_g.job, w) != rcce_g.job.hdr->set.host) { /* on another host: ask again soon */
      nanosleep(&(struct timespec){0, REMOTE_LOCK_RETRY_NS}, NULL);
      continue;
    }
    __atomic_fetch_add(&t->waiters, 1, __ATOMIC_SEQ_CST);
    hw_wait_change(&rcce_g.job, rcce_g.ue, w, 1, &why);
    __atomic_fetch_sub(&t->waiters, 1, __ATOMIC_RELAXED);
  }
  timing_tas_acquired(hw_ue(&rcce_g.job, ID)->core); /* model mode: not before the holder let go */
  return RCCE_SUCCESS;
}

int RCCE_release_lock(int ID) {
  TIMING_SCOPE();
  int rc = rcce_check_ue(ID, "RCCE_release_lock");
  if (rc != RCCE_SUCCESS) return rc;
  struct hw_tas *t = hw_tas(&rcce_g.job, hw_ue(&rcce_g.job, ID)->core);
  volatile uint32_t *w = (volatile uint32_t *)&t->locked;
  timing_tas_access(hw_ue(&rcce_g.job, ID)->core);
  timing_tas_released(hw_ue(&rcce_g.job, ID)->core); /* before the store: the next holder sees it */
  hw_mpb_store32(&rcce_g.job, w, 0);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&t->waiters, __ATOMIC_SEQ_CST)) hw_wake_word(w);
  return RCCE_SUCCESS;
}

/*
 * locks.c - off-chip shared memory (RCCE_shmalloc) under the per-core
 * test-and-set locks (RCCE_acquire_lock / RCCE_release_lock).
 *
 * usage: locks [iterations=200] [shm_bytes=0]
 *
 * All UEs RCCE_shmalloc the same two counters.  Each UE increments counter 0
 * `iterations` times under the lock of UE 0 and counter 1 under the lock of
 * UE np-1, with a deliberately racy read-yield-write, so a broken lock loses
 * updates.  After a barrier every UE checks both counters equal
 * np*iterations.  The shared allocation and the MPBs are at the same
 * addresses in every UE (docs/rcce.md), checked with MIN/MAX allreduces.  With shm_bytes > 0, every UE then tries
 * RCCE_shmalloc(shm_bytes) and UE 0 prints "locks: RCCE_shmalloc(N) ok" or
 * "... NULL" (the size of the region is rccerun --shm-size).
 * UE 0 prints "locks: OK" at the end.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"
#include "RCCE_lib.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues();
  long iterations = argc > 1 ? atol(argv[1]) : 200;
  long shm_bytes = argc > 2 ? atol(argv[2]) : 0;
  volatile long *c = (volatile long *)RCCE_shmalloc(2 * sizeof(long));
  if (!c) {
    fprintf(stderr, "locks: UE %d: RCCE_shmalloc(16) returned NULL\n", me);
    return 1;
  }
  if (me == 0) {
    c[0] = c[1] = 0;
    RCCE_shflush();
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  for (long i = 0; i < iterations; i++) {
    for (int k = 0; k < 2; k++) {
      int lock = k == 0 ? 0 : np - 1;
      RCCE_acquire_lock(lock);
      long v = c[k];
      if ((i + me) % 7 == 0) sched_yield();
      c[k] = v + 1;
      RCCE_shflush();
      RCCE_release_lock(lock);
    }
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  int bad = 0;
  for (int k = 0; k < 2; k++)
    if (c[k] != np * iterations) {
      fprintf(stderr, "locks: UE %d: counter %d is %ld, expected %ld\n", me, k, c[k], np * iterations);
      bad = 1;
    }
  long addr[2] = {(long)(uintptr_t)c, (long)(uintptr_t)RCCE_comm_buffer[np - 1]}, lo[2], hi[2];
  RCCE_allreduce((char *)addr, (char *)lo, 2, RCCE_LONG, RCCE_MIN, RCCE_COMM_WORLD);
  RCCE_allreduce((char *)addr, (char *)hi, 2, RCCE_LONG, RCCE_MAX, RCCE_COMM_WORLD);
  if (lo[0] != hi[0] || lo[1] != hi[1]) {
    fprintf(stderr, "locks: UE %d: addresses differ between UEs: shared %lx..%lx, MPB of UE %d %lx..%lx\n", me, lo[0],
            hi[0], np - 1, lo[1], hi[1]);
    bad = 1;
  }
  if (shm_bytes > 0) {
    t_vcharp p = RCCE_shmalloc((size_t)shm_bytes);
    if (me == 0) printf("locks: RCCE_shmalloc(%ld) %s\n", shm_bytes, p ? "ok" : "NULL");
    if (p) RCCE_shfree(p);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  RCCE_shfree((t_vcharp)c);
  if (!bad && me == 0) printf("locks: OK (%d UEs, %ld iterations)\n", np, iterations);
  fflush(NULL);
  RCCE_finalize();
  return bad;
}

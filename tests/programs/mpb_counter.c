/*
 * mpb_counter.c - RCCE's test-and-set locks guarding a counter that lives in
 * UE 0's MPB, so that it also runs on boards of several hosts (rccerun
 * --hosts), where off-chip shared memory is not shared.
 *
 * usage: mpb_counter [iterations=20]      (build with -DGORY)
 *
 * Every UE increments the counter `iterations` times under the lock of UE 0:
 * RCCE_get it from UE 0's MPB, yield, RCCE_put it back plus one (a broken
 * lock loses updates).  After a barrier UE 0 checks that it holds
 * np * iterations and prints "mpb_counter: OK (N UEs, M increments)".
 */
#include <sched.h>
#include <stdlib.h>

#include "RCCE.h"
#include "testprog.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "mpb_counter";
  testprog_ue = RCCE_ue();
  int iterations = argc > 1 ? atoi(argv[1]) : 20, np = RCCE_num_ues();
  t_vcharp line = RCCE_malloc(RCCE_LINE_SIZE); /* at the same offset in every MPB */
  if (!line) fail("RCCE_malloc of one line failed");
  int count[RCCE_LINE_SIZE / sizeof(int)] = {0};
  if (RCCE_ue() == 0 && RCCE_put(line, (t_vcharp)count, RCCE_LINE_SIZE, 0) != RCCE_SUCCESS) fail("RCCE_put");
  RCCE_barrier(&RCCE_COMM_WORLD);
  for (int i = 0; i < iterations; i++) {
    if (RCCE_acquire_lock(0) != RCCE_SUCCESS) fail("RCCE_acquire_lock(0)");
    if (RCCE_get((t_vcharp)count, line, RCCE_LINE_SIZE, 0) != RCCE_SUCCESS) fail("RCCE_get");
    sched_yield();
    count[0]++;
    if (RCCE_put(line, (t_vcharp)count, RCCE_LINE_SIZE, 0) != RCCE_SUCCESS) fail("RCCE_put");
    if (RCCE_release_lock(0) != RCCE_SUCCESS) fail("RCCE_release_lock(0)");
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (RCCE_ue() == 0) {
    RCCE_get((t_vcharp)count, line, RCCE_LINE_SIZE, 0);
    if (count[0] != np * iterations) fail("counter %d, expected %d", count[0], np * iterations);
    printf("mpb_counter: OK (%d UEs, %d increments)\n", np, count[0]);
  }
  RCCE_finalize();
  return 0;
}

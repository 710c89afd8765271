/*
 * barrier_storm.c - many RCCE_barrier calls back to back, with uneven work
 * between them, so that waiters go to sleep and the last arrival of one
 * barrier may still be waking them while they already sleep in the next
 * (the barrier's count of sleepers, src/hw/wait.c hw_wake_word_asleep).
 *
 * usage: barrier_storm [barriers=20000]
 * After the loop every UE checks, through the MPB, that all UEs passed as
 * many barriers; UE 0 prints "barrier_storm: OK (N UEs, B barriers)".
 * A lost wake-up hangs the job (rccerun --timeout reports it).
 */
#include <stdlib.h>

#include "RCCE.h"
#include "testprog.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues();
  testprog_name = "barrier_storm";
  testprog_ue = me;
  long barriers = argc > 1 ? atol(argv[1]) : 20000, passed = 0;
  unsigned seed = 12345u + (unsigned)me;
  for (long b = 0; b < barriers; b++) {
    for (volatile unsigned spin = rand_r(&seed) % 2000; spin > 0; spin--) continue;
    if (RCCE_barrier(&RCCE_COMM_WORLD) != RCCE_SUCCESS) fail("RCCE_barrier %ld failed", b);
    passed++;
  }
  long total = 0;
  RCCE_allreduce((char *)&passed, (char *)&total, 1, RCCE_LONG, RCCE_SUM, RCCE_COMM_WORLD);
  if (total != barriers * np) fail("%ld barriers passed in all, expected %ld", total, barriers * np);
  if (me == 0) printf("barrier_storm: OK (%d UEs, %ld barriers)\n", np, barriers);
  RCCE_finalize();
  return 0;
}

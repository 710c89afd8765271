/*
 * model.c - model-mode behaviour seen from a program (tests/integration/
 * test_model.py).  Build counted (rccecc --model-build) for exact times.
 *
 *   model barrier   UE u computes u units, then a barrier: prints
 *                   "ue U before B after A" (RCCE_wtime, virtual seconds)
 *   model lock      UE 0 takes lock 0, computes, releases; then UE 1 takes
 *                   it: prints "ue U acquired T released R"
 *   model dvfs      the master of power domain 0 lowers its divider to 8 and
 *                   waits: prints "dvfs before B after A watts W0 W1"
 *   model dvfs_later  UE 0, master of domain 0, lowers the divider to 16
 *                   after 100 units of work; UE 1 (core 1, same domain)
 *                   first sleeps on the host, then times 1 unit, and one
 *                   more after a barrier: prints "ue 1 units U1 U2"
 *   model sensor    prints "sensor W" (scc_power_read)
 *   model sensor_busy  three rounds: UE u computes (u + 1) x 20 units and puts
 *                   32 lines into the next UE's MPB, a barrier; the last UE
 *                   (alone in its power domain) lowers its domain's clock in
 *                   round 1; UE 0 reads the sensor in the middle of its work
 *                   and after each barrier: prints "sensor R mid W" and
 *                   "sensor R end W"
 *   model put       UE 0 puts 96 bytes into UE 1's MPB: prints "put T"
 *   model spin      UE 0 spins on a word of shared memory, without a runtime
 *                   call, until UE 1 has put 2000 lines into its MPB and
 *                   sets the word: prints "spin puts N"
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RC_POWER_MANAGEMENT 1 /* RCCE's power API, as programs built with -DRC_POWER_MANAGEMENT */
#include "RCCE.h"
#include "scc_power.h"

static volatile double sink;

static void compute(int units) {
  for (int i = 0; i < units * 1000; i++) sink += i * 0.5;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  int me = RCCE_ue();
  if (!strcmp(mode, "barrier")) {
    compute(me);
    double before = RCCE_wtime();
    RCCE_barrier(&RCCE_COMM_WORLD);
    printf("ue %d before %.9f after %.9f\n", me, before, RCCE_wtime());
  } else if (!strcmp(mode, "lock")) {
    if (me == 1) RCCE_barrier(&RCCE_COMM_WORLD);
    RCCE_acquire_lock(0);
    double acquired = RCCE_wtime();
    compute(me == 0 ? 50 : 1);
    double released = RCCE_wtime();
    RCCE_release_lock(0);
    if (me == 0) RCCE_barrier(&RCCE_COMM_WORLD);
    printf("ue %d acquired %.9f released %.9f\n", me, acquired, released);
  } else if (!strcmp(mode, "dvfs")) {
    if (RCCE_power_domain() == 0 && RCCE_power_domain_master() == me) {
      RCCE_REQUEST req;
      double w0 = scc_power_read(), before = RCCE_wtime();
      int rc = RCCE_iset_power(8, &req, NULL, NULL);
      if (rc == RCCE_SUCCESS) rc = RCCE_wait_power(&req);
      printf("dvfs rc %d before %.9f after %.9f watts %.4f %.4f\n", rc, before, RCCE_wtime(), w0, scc_power_read());
    }
  } else if (!strcmp(mode, "dvfs_later")) {
    double before = 0;
    if (me == 0) {
      compute(100);
      RCCE_set_frequency_divider(16, NULL);
    } else if (me == 1) {
      usleep(300000); /* host time: UE 0 has changed the divider by now, at a later virtual time */
      double t0 = RCCE_wtime();
      compute(1);
      before = RCCE_wtime() - t0;
    }
    RCCE_barrier(&RCCE_COMM_WORLD); /* past UE 0's change */
    double t1 = RCCE_wtime();
    compute(1);
    if (me == 1) printf("ue 1 units %.9f %.9f\n", before, RCCE_wtime() - t1);
  } else if (!strcmp(mode, "sensor")) {
    if (me == 0) printf("sensor %.4f\n", scc_power_read());
  } else if (!strcmp(mode, "sensor_busy")) {
    t_vcharp buf = RCCE_malloc(32 * 32);
    char data[32 * 32] = {0};
    int next = (me + 1) % RCCE_num_ues();
    for (int round = 0; round < 3; round++) {
      compute((me + 1) * 10);
      if (me == 0) printf("sensor %d mid %.6f\n", round, scc_power_read());
      compute((me + 1) * 10);
      RCCE_put(buf, (t_vcharp)data, sizeof data, next);
      if (me == RCCE_num_ues() - 1 && round == 1) RCCE_set_frequency_divider(6, NULL);
      RCCE_barrier(&RCCE_COMM_WORLD);
      if (me == 0) printf("sensor %d end %.6f\n", round, scc_power_read());
    }
  } else if (!strcmp(mode, "put")) {
    t_vcharp buf = RCCE_malloc(96);
    char data[96] = {0};
    RCCE_barrier(&RCCE_COMM_WORLD);
    if (me == 0) {
      double t0 = RCCE_wtime();
      RCCE_put(buf, (t_vcharp)data, 96, 1);
      printf("put %.12f\n", RCCE_wtime() - t0);
    }
    RCCE_barrier(&RCCE_COMM_WORLD);
  } else if (!strcmp(mode, "spin")) {
    volatile int *flag = (volatile int *)RCCE_shmalloc(sizeof(int));
    t_vcharp buf = RCCE_malloc(32);
    char data[32] = {0};
    int puts = 0;
    if (me == 0) *flag = 0;
    RCCE_barrier(&RCCE_COMM_WORLD);
    if (me == 0) {
      while (!*flag) {}
    } else if (me == 1) {
      for (; puts < 2000; puts++) RCCE_put(buf, (t_vcharp)data, 32, 0);
      *flag = 1;
    }
    RCCE_barrier(&RCCE_COMM_WORLD);
    if (me == 1) printf("spin puts %d\n", puts);
  } else {
    fprintf(stderr, "model: unknown mode '%s'\n", mode);
    RCCE_finalize();
    return 2;
  }
  RCCE_finalize();
  return 0;
}

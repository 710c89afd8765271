/*
 * probe.c - what a UE can observe of its placement and clock.
 *
 * usage: probe
 *
 * In UE order (one barrier per UE), every UE prints
 *   "probe: UE u of n: power domain d (size s, master m)"
 * and every power-domain master then reads the domain's current frequency
 * divider as RCCE_iset_power reports it (old_frequency_divider), restores it
 * and prints "probe: domain d divider k".  UE 0 ends with "probe: OK".
 */
#define RC_POWER_MANAGEMENT
#include <stdio.h>

#include "RCCE.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues(), bad = 0;
  for (int u = 0; u < np; u++) {
    if (u == me) {
      printf("probe: UE %d of %d: power domain %d (size %d, master %d)\n", me, np, RCCE_power_domain(),
             RCCE_power_domain_size(), RCCE_power_domain_master());
      fflush(stdout);
    }
    RCCE_barrier(&RCCE_COMM_WORLD);
  }
  for (int u = 0; u < np; u++) {
    if (u == me && RCCE_power_domain_master() == me) {
      RCCE_REQUEST req;
      int div = -1, vl = -1;
      int rc = RCCE_iset_power(8, &req, &div, &vl);
      if (rc == RCCE_SUCCESS) rc = RCCE_wait_power(&req);
      int old = req.old_frequency_divider;
      if (rc == RCCE_SUCCESS) rc = RCCE_iset_power(old, &req, &div, &vl);
      if (rc == RCCE_SUCCESS) rc = RCCE_wait_power(&req);
      if (rc != RCCE_SUCCESS || div != old || req.old_frequency_divider != 8) {
        fprintf(stderr, "probe: UE %d: power calls failed (rc %d, divider %d, old %d)\n", me, rc, div,
                req.old_frequency_divider);
        bad = 1;
      }
      printf("probe: domain %d divider %d\n", RCCE_power_domain(), old);
      fflush(stdout);
    }
    RCCE_barrier(&RCCE_COMM_WORLD);
  }
  if (me == 0 && !bad) printf("probe: OK\n");
  fflush(stdout);
  RCCE_finalize();
  return bad;
}

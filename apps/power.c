/*
 * power.c - a user of RCCE's power-management API (DVFS per power domain).
 *
 * Every UE reports its power domain (a voltage domain of 2x2 tiles, 8 cores
 * on the SCC), the domain's size and master, and checks them against
 * RCCE_P_COMM and against the other members.  The master of each domain
 * then asks for frequency divider 4 (400 MHz) with RCCE_iset_power +
 * RCCE_wait_power and checks the divider and voltage level it got; after a
 * barrier the other UEs call RCCE_set_frequency_divider(4) (in RCCE only
 * the master acts; the others return RCCE_SUCCESS).  Finally each master
 * tries the illegal divider 1, which must fail with RCCE_ERROR_FDIVIDER.
 *
 * Mirrors the power API of Intel's RCCE (RCCE_power_management.c) as used
 * by the DVFS experiments of [PERFPOWER-2011] (docs/references.md) (performance/power model vs frequency
 * divider) and [FURST-2011] (power of message passing).
 *
 * usage: power
 */
#define RC_POWER_MANAGEMENT
#include "RCCE.h"

#define APP_NAME "power"
#include "app_common.h"

#define DIVIDER 4

/* Minimum and maximum of v over communicator comm. */
static void min_max(int v, RCCE_COMM comm, int out[2]) {
  app_rc(RCCE_allreduce((char *)&v, (char *)&out[0], 1, RCCE_INT, RCCE_MIN, comm), "RCCE_allreduce(MIN)");
  app_rc(RCCE_allreduce((char *)&v, (char *)&out[1], 1, RCCE_INT, RCCE_MAX, comm), "RCCE_allreduce(MAX)");
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int rc = app_args(argc, argv, NULL, 0, NULL);
  if (rc >= 0) {
    RCCE_finalize();
    return rc;
  }
  int me = RCCE_ue(), np = RCCE_num_ues();
  int domain = RCCE_power_domain(), size = RCCE_power_domain_size();
  int master = RCCE_power_domain_master(), is_master = (me == master);
  printf("power: UE %d in power domain %d (%d UE(s), master UE %d)\n", me, domain, size, master);
  fflush(stdout);

  /* The domain communicator holds the domain's UEs, the master first. */
  int psize = -1, prank = -1, dom[2], mst[2];
  app_rc(RCCE_comm_size(RCCE_P_COMM, &psize), "RCCE_comm_size(RCCE_P_COMM)");
  app_rc(RCCE_comm_rank(RCCE_P_COMM, &prank), "RCCE_comm_rank(RCCE_P_COMM)");
  if (size < 1 || size > np || master < 0 || master > me || psize != size || (prank == 0) != is_master)
    app_error("inconsistent domain: size %d, master %d, RCCE_P_COMM rank %d of %d", size, master, prank, psize);
  min_max(domain, RCCE_P_COMM, dom);
  min_max(master, RCCE_P_COMM, mst);
  if (dom[0] != domain || dom[1] != domain || mst[0] != master || mst[1] != master)
    app_error("members of my domain disagree: domains %d..%d, masters %d..%d", dom[0], dom[1], mst[0], mst[1]);

  /* Summary: the domains' sizes must add up to the number of UEs. */
  int mine[2] = {is_master, is_master ? size : 0}, total[2] = {0, 0};
  app_rc(RCCE_allreduce((char *)mine, (char *)total, 2, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), "RCCE_allreduce(SUM)");
  if (total[1] != np) app_error("domain sizes add up to %d, not %d", total[1], np);
  if (me == 0) printf("power: %d UE(s) in %d power domain(s)\n", np, total[0]);

  if (is_master) {
    RCCE_REQUEST req;
    int new_div = -1, new_vl = -1;
    app_rc(RCCE_iset_power(DIVIDER, &req, &new_div, &new_vl), "RCCE_iset_power");
    app_rc(RCCE_wait_power(&req), "RCCE_wait_power");
    if (new_div != DIVIDER || new_vl < 0 || new_vl > 6)
      app_error("RCCE_iset_power(%d) gave divider %d, voltage level %d", DIVIDER, new_div, new_vl);
    else
      printf("power: domain %d now at divider %d (%d MHz), voltage level %d\n", domain, new_div, 1600 / new_div,
             new_vl);
    fflush(stdout);
  }
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");

  if (!is_master) { /* RCCE: a no-op returning RCCE_SUCCESS that may leave new_div as is */
    int new_div = -1;
    app_rc(RCCE_set_frequency_divider(DIVIDER, &new_div), "RCCE_set_frequency_divider");
    if (new_div != -1 && new_div != DIVIDER)
      app_error("RCCE_set_frequency_divider(%d) gave divider %d", DIVIDER, new_div);
  }
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");

  if (is_master) {
    int new_div = -1;
    int err = RCCE_set_frequency_divider(1, &new_div);
    if (err != RCCE_ERROR_FDIVIDER)
      app_error("RCCE_set_frequency_divider(1) returned %d, expected RCCE_ERROR_FDIVIDER (%d)", err,
                RCCE_ERROR_FDIVIDER);
  }
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

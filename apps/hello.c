/*
 * hello.c - the smallest RCCE program: every UE says hello, then all UEs
 * meet at a barrier and sum (ue+1) with RCCE_allreduce, which must give
 * N(N+1)/2 on every UE.  Mirrors the "hello" starter of Intel's RCCE
 * distribution; a first smoke test of init, barrier and a collective.
 *
 * usage: hello
 */
#define APP_NAME "hello"
#include "app_common.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int rc = app_args(argc, argv, NULL, 0, NULL);
  if (rc >= 0) {
    RCCE_finalize();
    return rc;
  }

  int me = RCCE_ue(), np = RCCE_num_ues();
  printf("Hello from UE %d of %d\n", me, np);
  fflush(stdout);

  /* RCCE_COMM_WORLD must agree with RCCE_ue / RCCE_num_ues. */
  int size = -1, rank = -1;
  app_rc(RCCE_comm_size(RCCE_COMM_WORLD, &size), "RCCE_comm_size");
  app_rc(RCCE_comm_rank(RCCE_COMM_WORLD, &rank), "RCCE_comm_rank");
  if (size != np || rank != me) app_error("RCCE_COMM_WORLD says rank %d of %d", rank, size);

  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");

  int mine = me + 1, sum = 0;
  app_rc(RCCE_allreduce((char *)&mine, (char *)&sum, 1, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), "RCCE_allreduce");
  if (sum != np * (np + 1) / 2) app_error("allreduce sum of (ue+1) is %d, expected %d", sum, np * (np + 1) / 2);
  else if (me == 0) printf("hello: sum of (ue+1) over %d UEs = %d\n", np, sum);

  rc = app_finish();
  RCCE_finalize();
  return rc;
}

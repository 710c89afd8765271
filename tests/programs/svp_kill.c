/* svp_kill.c - SVP's kill (scc_rpc.h, docs/svp.md "Kill"): a family of
 * many slow threads killed at once runs only some of them and its sync says
 * SCC_RPC_KILLED; the place then serves the next family in full; a plain
 * create and a create on the creator's own place run to their end whatever
 * the kill; a second kill does nothing; a kill without a create is an
 * error.  UE 0 creates, UE 1 is the place.  prints "svp_kill: OK" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_rpc.h"
#include "testprog.h"

enum { SLOW = 1, SQUARE = 2 };
#define THREADS 1000L

/* Each thread counts itself in the shared channel, slowly (50 us). */
static void slow(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)index, (void)data, (void)ndata, (void)shared_bytes;
  double until = RCCE_wtime() + 50e-6;
  while (RCCE_wtime() < until) continue;
  ++*(long *)shared;
}

static void *square(const void *args, size_t size, size_t *result_size) {
  long *r = malloc(sizeof *r), v;
  memcpy(&v, args, size < sizeof v ? size : sizeof v);
  *r = v * v;
  *result_size = sizeof *r;
  return r;
}

static void expect(int rc, int want, const char *what) {
  if (rc != want) fail("%s returned %d, expected %d", what, rc, want);
}

/* A family of n slow threads on place; killed at once when kill is set.  Returns the threads that ran. */
static long family(int place, long n, int kill, int want) {
  scc_rpc_handle h;
  long ran = 0;
  expect(scc_rpc_create_family(place, SLOW, (scc_rpc_range){0, n, 1}, NULL, 0, &ran, sizeof ran, SCC_RPC_MESSAGES, &h),
         RCCE_SUCCESS, "scc_rpc_create_family");
  if (kill) {
    expect(scc_rpc_kill(&h), RCCE_SUCCESS, "scc_rpc_kill");
    expect(scc_rpc_kill(&h), RCCE_SUCCESS, "a second scc_rpc_kill");
  }
  expect(scc_rpc_sync(&h, NULL, 0, NULL), want, "scc_rpc_sync");
  return ran;
}

static void check_plain_create(int place) {
  scc_rpc_handle h;
  long v = 12, r = 0;
  expect(scc_rpc_create(place, SQUARE, &v, sizeof v, &h), RCCE_SUCCESS, "scc_rpc_create");
  expect(scc_rpc_kill(&h), RCCE_SUCCESS, "scc_rpc_kill of a plain create");
  expect(scc_rpc_sync(&h, &r, sizeof r, NULL), RCCE_SUCCESS, "its sync");
  if (r != 144) fail("a killed plain create on UE %d gave %ld, expected 144", place, r);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "svp_kill";
  int me = testprog_ue = RCCE_ue();
  if (RCCE_num_ues() != 2) fail("needs 2 UEs");
  scc_rpc_register_thread(SLOW, slow);
  scc_rpc_register(SQUARE, square);
  if (me == 1) {
    int served = 0;
    expect(scc_rpc_serve(1, &served), RCCE_SUCCESS, "scc_rpc_serve");
    if (served != 3) fail("the place served %d creates, expected 3", served);
  } else {
    scc_rpc_handle none = {-1, 0};
    expect(scc_rpc_kill(&none), RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, "scc_rpc_kill without a create");
    long ran = family(1, THREADS, 1, SCC_RPC_KILLED);
    if (ran < 0 || ran >= THREADS) fail("the killed family ran %ld of its %ld threads", ran, THREADS);
    long after = family(1, 3, 0, RCCE_SUCCESS);
    if (after != 3) fail("the family after the killed one ran %ld of its 3 threads", after);
    check_plain_create(1);
    long here = family(0, 5, 1, RCCE_SUCCESS); /* my own place: it ran inside the create */
    if (here != 5) fail("a killed family on my own place ran %ld of its 5 threads", here);
    check_plain_create(0);
    expect(scc_rpc_stop(1), RCCE_SUCCESS, "scc_rpc_stop");
    printf("svp_kill: killed after %ld of %ld threads\n", ran, THREADS);
  }
  RCCE_finalize();
  if (me == 0) printf("svp_kill: OK\n");
  return 0;
}

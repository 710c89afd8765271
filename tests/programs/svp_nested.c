/* SVP's hierarchy ([SVP-SCC] sec. II: any thread may create a family):
 * UE 0 creates a family of 4 threads on UE 1; each of them creates a family
 * of 3 threads on UE 2 and syncs on it; the shared channels carry a sum
 * back up.  Prints "svp_nested: sum S" on UE 0 and OK. */
#include <stdio.h>

#include "RCCE.h"
#include "scc_rpc.h"
#include "testprog.h"

enum { INNER = 1, OUTER = 2 };

static void inner(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)data, (void)ndata, (void)shared_bytes;
  *(long *)shared += index;
}

static void outer(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)data, (void)ndata, (void)shared_bytes;
  long sum = 100 * index; /* the inner family adds 0 + 1 + 2 to it */
  scc_rpc_handle h;
  if (scc_rpc_create_family(2, INNER, (scc_rpc_range){0, 3, 1}, NULL, 0, &sum, sizeof sum, SCC_RPC_MESSAGES, &h) !=
          RCCE_SUCCESS ||
      scc_rpc_sync(&h, NULL, 0, NULL) != RCCE_SUCCESS)
    fail("thread %ld: the inner family failed", index);
  *(long *)shared += sum;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "svp_nested";
  int me = testprog_ue = RCCE_ue();
  if (RCCE_num_ues() != 3) fail("needs 3 UEs");
  scc_rpc_register_thread(INNER, inner);
  scc_rpc_register_thread(OUTER, outer);
  if (me == 2) {
    scc_rpc_serve(1, NULL); /* UE 1 creates here, UE 1 stops */
  } else if (me == 1) {
    scc_rpc_serve(1, NULL);
    scc_rpc_stop(2);
  } else {
    long total = 0;
    scc_rpc_handle h;
    if (scc_rpc_create_family(1, OUTER, (scc_rpc_range){0, 4, 1}, NULL, 0, &total, sizeof total, SCC_RPC_MESSAGES,
                              &h) != RCCE_SUCCESS ||
        scc_rpc_sync(&h, NULL, 0, NULL) != RCCE_SUCCESS)
      fail("the outer family failed");
    scc_rpc_stop(1);
    printf("svp_nested: sum %ld\n", total);
    if (total != 100 * (0 + 1 + 2 + 3) + 4 * 3) fail("sum %ld, expected 612", total);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("svp_nested: OK\n");
  RCCE_finalize();
  return 0;
}

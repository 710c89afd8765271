/* SVP families (scc_rpc.h): UE 0 creates families on the last UE (the
 * place), and on its own place (where the create runs them), over an index range, with input, output and in-out buffers and a
 * shared channel, each way the data can move (argv[1]: messages, remap or
 * copy); every other UE creates families on the place too, whose threads
 * bump a count the place keeps (an exclusive place runs one family at a
 * time and each sees what the ones before left: the service pattern); every
 * error code.  The place prints how many families it ran. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "RCCE.h"
#include "scc_copy.h"
#include "scc_lut.h"
#include "scc_rpc.h"
#include "testprog.h"

enum { SQUARES = 3, COUNT = 4, NOT_REGISTERED = 9 };

static long served_threads; /* the place's state across families */

/* data[0] in: long scale; data[1] out: squares by index; data[2] in-out: add the index.
 * shared: a running sum of the indices, in index order. */
static void squares(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  if (ndata != 3 || shared_bytes != sizeof(long)) return;
  long scale = *(const long *)data[0].ptr;
  ((long *)data[1].ptr)[index] = scale * index * index;
  ((long *)data[2].ptr)[index] += index;
  *(long *)shared = *(long *)shared * 10 + index; /* order matters: a different order gives another number */
}

static void count(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes) {
  (void)index, (void)data, (void)ndata, (void)shared_bytes;
  *(long *)shared = ++served_threads;
}

static void expect(int rc, int want, const char *what) {
  if (rc != want) fail("%s returned %d, expected %d", what, rc, want);
}

static int transfer_of(const char *way) {
  return !strcmp(way, "remap") ? SCC_RPC_REMAP : !strcmp(way, "copy") ? SCC_RPC_COPY_CORES : SCC_RPC_MESSAGES;
}

static void check_errors(int place, int transfer) {
  scc_rpc_handle h;
  long x = 1, heap_like[4];
  scc_rpc_data ok = {&x, sizeof x, SCC_RPC_IN}, bad_dir = {&x, sizeof x, 7}, null_buf = {NULL, 8, SCC_RPC_IN};
  expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 0}, &ok, 1, NULL, 0, SCC_RPC_MESSAGES, &h),
         RCCE_ERROR_VAL_UNDEFINED, "a range with step 0");
  expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 1}, &ok, 1, NULL, 0, 9, &h),
         RCCE_ERROR_ILLEGAL_TYPE, "transfer 9");
  expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 1}, &bad_dir, 1, NULL, 0, SCC_RPC_MESSAGES, &h),
         RCCE_ERROR_SOURCE, "direction 7");
  expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 1}, &null_buf, 1, NULL, 0, SCC_RPC_MESSAGES, &h),
         RCCE_ERROR_SOURCE, "a NULL buffer");
  expect(
      scc_rpc_create_family(RCCE_num_ues(), SQUARES, (scc_rpc_range){0, 4, 1}, &ok, 1, NULL, 0, SCC_RPC_MESSAGES, &h),
      RCCE_ERROR_ID, "a place beyond the UEs");
  if (transfer != SCC_RPC_MESSAGES) { /* remapped data must be LUT-mappable: a stack buffer is not */
    scc_rpc_data stack = {heap_like, sizeof heap_like, SCC_RPC_IN};
    expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 1}, &stack, 1, NULL, 0, transfer, &h),
           RCCE_ERROR_SOURCE, "a remapped stack buffer");
  }
  if (scc_copy_cores() == 0)
    expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){0, 4, 1}, &ok, 1, NULL, 0, SCC_RPC_COPY_CORES, &h),
           RCCE_ERROR_ILLEGAL_TYPE, "copy cores in a job without them");
  /* A thread function the place has not registered: the sync says so. */
  expect(scc_rpc_create_family(place, NOT_REGISTERED, (scc_rpc_range){0, 2, 1}, &ok, 1, NULL, 0, SCC_RPC_MESSAGES, &h),
         RCCE_SUCCESS, "a family of an unregistered thread");
  expect(scc_rpc_sync(&h, NULL, 0, NULL), RCCE_ERROR_RPC_NOT_ALLOCATED, "its sync");
}

/* A family of squares on place over the indices 3, 7, ..., 19: inputs in,
 * outputs and in-out buffers back, the shared channel in index order. */
static void check_squares(int place, int transfer) {
  scc_rpc_handle h;
  /* The buffers in private memory, so that every transfer can move them. */
  long *mem = scc_private_base(), *scale = mem, *sq = mem + 8, *acc = mem + 64, sum = 0;
  *scale = 3;
  for (int i = 0; i < 40; i++) sq[i] = -1, acc[i] = 1000 + i;
  scc_rpc_data data[] = {
      {scale, sizeof *scale, SCC_RPC_IN}, {sq, 40 * sizeof *sq, SCC_RPC_OUT}, {acc, 40 * sizeof *acc, SCC_RPC_INOUT}};
  expect(scc_rpc_create_family(place, SQUARES, (scc_rpc_range){3, 20, 4}, data, 3, &sum, sizeof sum, transfer, &h),
         RCCE_SUCCESS, "scc_rpc_create_family");
  expect(scc_rpc_sync(&h, NULL, 0, NULL), RCCE_SUCCESS, "scc_rpc_sync");
  for (long i = 0; i < 40; i++) {
    int in_range = i >= 3 && i < 20 && (i - 3) % 4 == 0;
    long want_sq = in_range ? 3 * i * i : 0, want_acc = 1000 + i + (in_range ? i : 0);
    if (sq[i] != want_sq || acc[i] != want_acc)
      fail("index %ld: square %ld (want %ld), accumulated %ld (want %ld)", i, sq[i], want_sq, acc[i], want_acc);
  }
  if (sum != 38269) fail("the shared channel ends at %ld, expected 38269 (3, 7, 11, 15, 19 in order)", sum);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "svp_family";
  int me = testprog_ue = RCCE_ue(), n = RCCE_num_ues(), place = n - 1;
  int transfer = transfer_of(argc > 1 ? argv[1] : "messages");
  scc_rpc_register_thread(SQUARES, squares);
  scc_rpc_register_thread(COUNT, count);
  if (me == place) {
    int served = 0;
    scc_rpc_serve(n - 1, &served);
    printf("svp_family: place ran %d families, %ld counting threads\n", served, served_threads);
  } else {
    scc_rpc_handle h;
    if (me == 0) {
      check_errors(place, transfer);
      check_squares(place, transfer);
      check_errors(0, transfer); /* my own place: the family runs in the create */
      check_squares(0, transfer);
    }
    long last = 0;
    for (int k = 0; k < 3; k++) { /* three families of two counting threads each */
      expect(scc_rpc_create_family(place, COUNT, (scc_rpc_range){0, 2, 1}, NULL, 0, &last, sizeof last,
                                   SCC_RPC_MESSAGES, &h),
             RCCE_SUCCESS, "a counting family");
      expect(scc_rpc_sync(&h, NULL, 0, NULL), RCCE_SUCCESS, "its sync");
    }
    if (last < 6 || last % 2) fail("the place's count after my three families is %ld", last);
    scc_rpc_stop(place);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("svp_family: OK\n");
  RCCE_finalize();
  return 0;
}

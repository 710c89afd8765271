/* svp.c - remote create and sync (include/scc_rpc.h): results, families,
 * creates from two UEs on one place, and the errors.  UE 0 and UE 1 create
 * on UE 2 (the place, serving both); UE 0 also checks each error code, on
 * UE 2 and on its own place (where a create runs at once).
 * prints "svp ue U: ..." lines and "svp: OK" (UE 0) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_rpc.h"
#include "testprog.h"

enum { SQUARE = 3, BIG = 4, UNREGISTERED = 5 };

static void *square(const void *args, size_t size, size_t *result_size) {
  long *r = malloc(sizeof *r);
  long v;
  memcpy(&v, args, sizeof v);
  *r = v * v + (long)size;
  *result_size = sizeof *r;
  return r;
}

static void *big(const void *args, size_t size, size_t *result_size) {
  (void)args, (void)size;
  char *r = malloc(100);
  memset(r, 'x', 100);
  *result_size = 100;
  return r;
}

static void expect(int rc, int want, const char *what) {
  if (rc != want) fail("%s: code %d, expected %d", what, rc, want);
}

/* Every error a creator can meet, creating on place. */
static void check_errors(int place) {
  scc_rpc_handle h, none = {-1, 0};
  long v = 3, r = 0;
  char small[10];
  size_t got = 0;
  expect(scc_rpc_create(place, SQUARE, &v, sizeof v, &h), RCCE_SUCCESS, "create");
  expect(scc_rpc_create(place, SQUARE, &v, sizeof v, &h), RCCE_ERROR_MULTIPLE_RPC_REQUESTS, "second create");
  expect(scc_rpc_sync(&h, &r, sizeof r, &got), RCCE_SUCCESS, "sync");
  if (got != sizeof r || r != 9 + (long)sizeof v) fail("on UE %d: square of 3 came back as %ld", place, r);
  expect(scc_rpc_sync(&none, &r, sizeof r, NULL), RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, "sync without create");
  expect(scc_rpc_create(place, UNREGISTERED, NULL, 0, &h), RCCE_SUCCESS, "create of an unregistered function");
  expect(scc_rpc_sync(&h, &r, sizeof r, NULL), RCCE_ERROR_RPC_NOT_ALLOCATED, "its sync");
  expect(scc_rpc_create(place, BIG, NULL, 0, &h), RCCE_SUCCESS, "create of a big result");
  expect(scc_rpc_sync(&h, small, sizeof small, &got), RCCE_ERROR_MESSAGE_LENGTH, "its sync into 10 bytes");
  if (got != 100 || memcmp(small, "xxxxxxxxxx", 10) != 0)
    fail("on UE %d: a big result: %zu bytes, first ten not kept", place, got);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "svp";
  int me = testprog_ue = RCCE_ue();
  if (RCCE_num_ues() != 3) fail("needs 3 UEs");
  scc_rpc_register(SQUARE, square);
  scc_rpc_register(BIG, big);
  if (me == 2) {
    int served = 0;
    expect(scc_rpc_serve(2, &served), RCCE_SUCCESS, "serve");
    printf("svp ue 2: served %d\n", served);
  } else {
    long sum = 0;
    for (long v = 1; v <= 20; v++) { /* creates from UEs 0 and 1 interleave at the place */
      scc_rpc_handle h;
      long r = 0;
      size_t got = 0;
      expect(scc_rpc_create(2, SQUARE, &v, sizeof v, &h), RCCE_SUCCESS, "create");
      expect(scc_rpc_sync(&h, &r, sizeof r, &got), RCCE_SUCCESS, "sync");
      if (got != sizeof r || r != v * v + (long)sizeof v) fail("square of %ld came back as %ld (%zu bytes)", v, r, got);
      sum += r;
    }
    printf("svp ue %d: sum %ld\n", me, sum);
    if (me == 0) {
      check_errors(2);
      check_errors(0);
      scc_rpc_handle h;
      long v = 3;
      expect(scc_rpc_create(7, SQUARE, &v, sizeof v, &h), RCCE_ERROR_ID, "create on UE 7");
      expect(scc_rpc_register(SCC_RPC_MAX_FUNCTIONS, square), RCCE_ERROR_RPC_INTERNAL, "register beyond the table");
      expect(scc_rpc_stop(0), RCCE_SUCCESS, "stop of my own place");
    }
    expect(scc_rpc_stop(2), RCCE_SUCCESS, "stop");
  }
  RCCE_finalize();
  if (me == 0) printf("svp: OK\n");
  return 0;
}

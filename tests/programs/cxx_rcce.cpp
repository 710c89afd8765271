/*
 * cxx_rcce.cpp - a C++ RCCE program built with `rccec++ -fpermissive`, as
 * Intel's NPB ports are: every public header compiles as C++ and the
 * library links with C linkage.
 *
 * Run with 3 UEs on cores 0-2 (one power domain, UE 0 its master):
 *   - a ring of RCCE_send/RCCE_recv whose data is checked;
 *   - RCCE_qsort with id_compare sorts every UE's ids;
 *   - every UE calls RCCE_iset_power(4) and RCCE_wait_power: the master gets
 *     divider 4, the others RCCE_SUCCESS with their outputs untouched;
 *   - UE 0 calls print_dividers().
 * Prints "cxx: OK" from UE 0; failures exit 1.
 */
#define RC_POWER_MANAGEMENT
#include "RCCE.h"
#include "RCCE_lib.h"
#include "iRCCE.h"
#include "iRCCE_lib.h"
#include "scc_mailbox.h"
#include "scc_power.h"
#include "scc_svm.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "testprog.h"

enum { N = 1000 };

static void check(int rc, const char *call) {
  if (rc != RCCE_SUCCESS) fail("%s returned %d", call, rc);
}

static void ring(int me, int np) {
  double *out = malloc(N * sizeof(double)); /* no cast: C style, accepted with -fpermissive */
  double *in = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) out[i] = me * 10000.0 + i;
  int right = (me + 1) % np, left = (me + np - 1) % np;
  /* Even UEs send first, odd ones receive first: RCCE_send is synchronous. */
  for (int step = 0; step < 2; step++) {
    if ((me % 2 == 0) == (step == 0)) check(RCCE_send((char *)out, N * sizeof(double), right), "RCCE_send");
    else check(RCCE_recv((char *)in, N * sizeof(double), left), "RCCE_recv");
  }
  for (int i = 0; i < N; i++)
    if (in[i] != left * 10000.0 + i) fail("ring: element %d is %g, expected %g", i, in[i], left * 10000.0 + i);
  free(out);
  free(in);
}

static void sort_ids(int me) {
  int ids[] = {47, 3, me, 12, -5, 0, 12};
  size_t n = sizeof ids / sizeof ids[0];
  check(RCCE_qsort((char *)ids, n, sizeof ids[0], id_compare), "RCCE_qsort");
  for (size_t i = 1; i < n; i++)
    if (ids[i - 1] > ids[i]) fail("RCCE_qsort: ids[%zu] = %d > ids[%zu] = %d", i - 1, ids[i - 1], i, ids[i]);
}

static void power(int me) {
  RCCE_REQUEST req;
  int div = -1, vlevel = -1;
  int master = RCCE_power_domain_master() == me;
  check(RCCE_iset_power(4, &req, &div, &vlevel), "RCCE_iset_power");
  check(RCCE_wait_power(&req), "RCCE_wait_power");
  if (master ? div != 4 || vlevel < 0 : div != -1 || vlevel != -1)
    fail("RCCE_iset_power(4) on %s: divider %d, voltage level %d", master ? "the master" : "a non-master", div, vlevel);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues();
  testprog_name = "cxx";
  testprog_ue = me;
  ring(me, np);
  sort_ids(me);
  power(me);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) print_dividers();
  RCCE_finalize();
  if (me == 0) std::printf("cxx: OK\n");
  return 0;
}

/*
 * flag_ring.c - RCCE_flag_alloc only reserves MPB space (RCCE 1.0.13): a UE
 * may set its neighbour's flag before the neighbour has allocated it.
 *
 * Every UE allocates one flag and at once sets the flag of its right
 * neighbour, then waits until its own flag is SET.  UE 0 is slow to allocate
 * (it sleeps first), so UE n-1's SET reaches UE 0's MPB before UE 0's
 * RCCE_flag_alloc: a flag_alloc that cleared the flag would lose it and the
 * ring would deadlock.  Then each UE frees its flag and allocates one again:
 * it gets the same line, still SET (RCCE_flag_free and RCCE_flag_alloc
 * clear nothing, as in RCCE).
 *
 * Builds: plain (basic interface), -DGORY, -DGORY -DSINGLEBITFLAGS, and
 * -DTAGGED (iRCCE tagged flags: the SET carries the sender's UE number).
 * Prints "flag_ring: UE u saw the flag SET" per UE, "flag_ring: realloc
 * keeps SET" per UE and "flag_ring: OK" from UE 0; failures exit 1.
 */
#include <stdio.h>
#include <unistd.h>

#include "RCCE.h"
#ifdef TAGGED
#include "iRCCE.h"
#endif

#include "testprog.h"

static void check(int rc, const char *call) {
  if (rc != RCCE_SUCCESS) fail("%s returned %d", call, rc);
}

#ifdef TAGGED
static void signal_and_wait(RCCE_FLAG *f, int me, int right) {
  int tag = me, got = -1;
  check(iRCCE_flag_write_tagged(f, RCCE_FLAG_SET, right, &tag, sizeof tag), "iRCCE_flag_write_tagged");
  check(iRCCE_wait_tagged(*f, RCCE_FLAG_SET, &got, sizeof got), "iRCCE_wait_tagged");
  int left = (me + RCCE_num_ues() - 1) % RCCE_num_ues();
  if (got != left) fail("the tag carries %d, expected my left neighbour %d", got, left);
}
#define ALLOC iRCCE_flag_alloc_tagged
#else
static void signal_and_wait(RCCE_FLAG *f, int me, int right) {
  (void)me;
  check(RCCE_flag_write(f, RCCE_FLAG_SET, right), "RCCE_flag_write");
  check(RCCE_wait_until(*f, RCCE_FLAG_SET), "RCCE_wait_until");
}
#define ALLOC RCCE_flag_alloc
#endif

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues();
  testprog_name = "flag_ring";
  testprog_ue = me;
  RCCE_FLAG f;
  if (me == 0) usleep(200000); /* UE 0 allocates after its left neighbour has set the flag */
  check(ALLOC(&f), "flag alloc");
  signal_and_wait(&f, me, (me + 1) % np);
  printf("flag_ring: UE %d saw the flag SET\n", me);
  fflush(stdout);

  /* Free and allocate again: the same MPB space, its value untouched. */
  RCCE_FLAG again;
  RCCE_FLAG_STATUS v = RCCE_FLAG_UNSET;
  check(RCCE_flag_free(&f), "RCCE_flag_free");
  check(ALLOC(&again), "flag alloc after free");
  check(RCCE_flag_read(again, &v, me), "RCCE_flag_read");
#ifdef SINGLEBITFLAGS
  int same = again.line_address == f.line_address && again.location == f.location;
#else
  int same = again == f;
#endif
  if (!same || v != RCCE_FLAG_SET) fail("reallocated flag: same space %d, value %d (expected 1, SET)", same, v);
  printf("flag_ring: UE %d realloc keeps SET\n", me);
  fflush(stdout);
  RCCE_finalize();
  if (me == 0) printf("flag_ring: OK\n");
  return 0;
}

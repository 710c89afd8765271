/* ircce_air.c - iRCCE's atomic increment registers (iRCCE.h with -DAIR;
 * docs/ircce.md "Atomic increment registers").  Every UE allocates both of
 * the job's first registers and then:
 *   - takes ROUNDS tickets from register A: every ticket 0 .. n*ROUNDS-1
 *     is taken exactly once (marked in shared memory), and each UE's own
 *     tickets rise;
 *   - counts in on register B; after a barrier all read n;
 *   - allocates until iRCCE_ERROR: exactly 2n registers in all;
 *   - a handle that iRCCE_atomic_alloc did not give is refused.
 * Prints "ircce_air: OK (N UEs)" on UE 0. */
#include "RCCE.h"
#include "iRCCE.h"
#include "testprog.h"

#define ROUNDS 200

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), n = RCCE_num_ues();
  testprog_name = "ircce_air";
  testprog_ue = me;
  iRCCE_AIR *a, *b;
  if (iRCCE_atomic_alloc(&a) != iRCCE_SUCCESS || iRCCE_atomic_alloc(&b) != iRCCE_SUCCESS) fail("alloc");
  volatile char *taken = (volatile char *)RCCE_shmalloc((size_t)n * ROUNDS);
  if (!taken) fail("RCCE_shmalloc");
  if (me == 0) memset((void *)taken, 0, (size_t)n * ROUNDS);
  RCCE_barrier(&RCCE_COMM_WORLD); /* every UE zeroed the registers at allocation */
  int last = -1;
  for (int i = 0; i < ROUNDS; i++) {
    int t = -1;
    if (iRCCE_atomic_inc(a, &t) != iRCCE_SUCCESS) fail("inc");
    if (t <= last || t >= n * ROUNDS) fail("ticket %d after %d", t, last);
    if (taken[t]) fail("ticket %d taken twice", t);
    taken[t] = 1;
    last = t;
  }
  iRCCE_atomic_inc(b, NULL);
  RCCE_barrier(&RCCE_COMM_WORLD);
  int v = -1;
  iRCCE_atomic_read(b, &v);
  if (v != n) fail("register B holds %d after %d increments", v, n);
  iRCCE_atomic_read(a, &v);
  if (v != n * ROUNDS) fail("register A holds %d, want %d", v, n * ROUNDS);
  for (int t = 0; t < n * ROUNDS; t++)
    if (!taken[t]) fail("ticket %d never taken", t);
  RCCE_barrier(&RCCE_COMM_WORLD);
  int more = 0;
  iRCCE_AIR *r;
  while (iRCCE_atomic_alloc(&r) == iRCCE_SUCCESS) more++;
  if (more + 2 != 2 * n) fail("%d registers in all, want %d", more + 2, 2 * n);
  iRCCE_AIR fake;
  if (iRCCE_atomic_write(&fake, 1) != iRCCE_ERROR) fail("a handle not from iRCCE_atomic_alloc was taken");
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("ircce_air: OK (%d UEs)\n", n);
  RCCE_finalize();
  return 0;
}

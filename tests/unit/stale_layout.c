/* A program as a stale (or newer) librcce.a builds it: the library's objects
 * plus a region declaration rccerun does not have (STALE_EXTRA_REGION: one
 * region more; STALE_REGION_VERSION: the rcce layer's per-UE block at another
 * version).  RCCE_init must refuse to run it (tests/integration/test_layout.py). */
#include <stdio.h>

#include "RCCE.h"
#include "rcce/rcce_shared.h"

#ifdef STALE_EXTRA_REGION
HW_REGION_DECLARE(stale_extra, "test.extra", 1, HW_REGION_PER_JOB, 64, NULL)
#endif
#ifdef STALE_REGION_VERSION
HW_REGION_DECLARE(stale_rcce_ue, RCCE_UE_REGION, RCCE_UE_VERSION + 1, HW_REGION_PER_UE, sizeof(struct rcce_ue_shared),
                  NULL)
#endif

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  printf("UE %d ran\n", RCCE_ue());
  RCCE_finalize();
  return 0;
}

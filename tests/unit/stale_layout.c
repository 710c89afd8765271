/* A program as a librcce.a of another layout builds it (tests/unit/CMakeLists.txt
 * links the variants): STALE_EXTRA_REGION declares a region rccerun does not
 * have; STALE_REGION_VERSION replaces the rcce layer's declarations (its
 * rcce_shared.c is left out) with the same two regions, the per-UE block at
 * another version; STALE_FEWER_REGIONS only leaves the svm layer's
 * declaration out.  RCCE_init must refuse each (tests/integration/test_layout.py). */
#include <stdio.h>

#include "RCCE.h"
#include "rcce/rcce_shared.h"

#ifdef STALE_EXTRA_REGION
HW_REGION_DECLARE(stale_extra, "test.extra", 1, HW_REGION_PER_JOB, 64, NULL)
#endif
#ifdef STALE_REGION_VERSION
HW_REGION_DECLARE(stale_rcce_job, RCCE_JOB_REGION, RCCE_JOB_VERSION, HW_REGION_PER_JOB, sizeof(struct rcce_job_shared),
                  NULL)
HW_REGION_DECLARE(stale_rcce_ue, RCCE_UE_REGION, RCCE_UE_VERSION + 1, HW_REGION_PER_UE, sizeof(struct rcce_ue_shared),
                  NULL)
#endif

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  printf("UE %d ran\n", RCCE_ue());
  RCCE_finalize();
  return 0;
}

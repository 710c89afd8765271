/* The rcce layer's regions of the job segment (rcce_shared.h). */
#include "rcce_shared.h"

/* UEs index the per-UE blocks as an array: each must fill whole host lines. */
_Static_assert(sizeof(struct rcce_ue_shared) % HW_HOST_LINE == 0, "rcce.ue blocks are not line-sized");

HW_REGION_DECLARE(rcce_job, RCCE_JOB_REGION, RCCE_JOB_VERSION, HW_REGION_PER_JOB, sizeof(struct rcce_job_shared), NULL)
HW_REGION_DECLARE(rcce_ue, RCCE_UE_REGION, RCCE_UE_VERSION, HW_REGION_PER_UE, sizeof(struct rcce_ue_shared), NULL)

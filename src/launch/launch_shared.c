/* The launch layer's region of the job segment (launch_shared.h). */
#include "launch_shared.h"

/* Each UE's wrapper writes only its own block: each fills whole host lines. */
_Static_assert(sizeof(struct launch_ue_shared) % HW_HOST_LINE == 0, "launch.ue blocks are not line-sized");

HW_REGION_DECLARE(launch_ue, LAUNCH_UE_REGION, LAUNCH_UE_VERSION, HW_REGION_PER_UE, sizeof(struct launch_ue_shared),
                  NULL)

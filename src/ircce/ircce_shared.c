/* The ircce layer's region of the job segment (ircce_shared.h). */
#include "ircce_shared.h"

/* UEs index the per-UE blocks as an array: each must fill whole host lines. */
_Static_assert(sizeof(struct ircce_air_shared) % HW_HOST_LINE == 0, "ircce.air blocks are not line-sized");

HW_REGION_DECLARE(ircce_air, IRCCE_AIR_REGION, IRCCE_AIR_VERSION, HW_REGION_PER_UE, sizeof(struct ircce_air_shared),
                  NULL)

/* The copy layer's region of the job segment (copy_shared.h). */
#include "copy_shared.h"

HW_REGION_DECLARE(copy_ue, COPY_UE_REGION, COPY_UE_VERSION, HW_REGION_PER_UE, sizeof(struct copy_ue_shared), NULL)

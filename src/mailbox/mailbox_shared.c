/* The mailbox layer's region of the job segment (mailbox_shared.h). */
#include "mailbox_shared.h"

/* UEs index the per-UE blocks as an array: each must fill whole host lines. */
_Static_assert(sizeof(struct mailbox_ue_shared) % HW_HOST_LINE == 0, "mailbox.ue blocks are not line-sized");

HW_REGION_DECLARE(mailbox_ue, MAILBOX_UE_REGION, MAILBOX_UE_VERSION, HW_REGION_PER_UE, sizeof(struct mailbox_ue_shared),
                  NULL)

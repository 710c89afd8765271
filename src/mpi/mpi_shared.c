/* The mpi layer's region of the job segment (mpi_shared.h). */
#include "mpi_shared.h"

/* UEs index the per-UE blocks as an array: each must fill whole host lines. */
_Static_assert(sizeof(struct mpi_ue_shared) % HW_HOST_LINE == 0, "mpi.ue blocks are not line-sized");

HW_REGION_DECLARE(mpi_ue, MPI_UE_REGION, MPI_UE_VERSION, HW_REGION_PER_UE, sizeof(struct mpi_ue_shared), NULL)

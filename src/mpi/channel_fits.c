/* Whether a channel's MPB layout fits a job (channel.h): the geometry the
 * provider lays out when it opens, asked by rccerun before it starts any
 * rank, so that a job that cannot fit fails once, with the reason, instead
 * of in every rank's MPI_Init. */
#include "channel_sccmpich.h"

int mpi_channel_fits(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, char *err, size_t errlen) {
  if (kind == MPI_CHANNEL_SCCMPICH || kind == MPI_CHANNEL_SCCMPICH_NORMAL) {
    struct sccm_geometry g;
    return sccm_geometry_of(kind, chip, nue, &g, err, errlen);
  }
  struct chan_geometry g;
  return chan_geometry_of(kind, chip, nue, &g, err, errlen);
}

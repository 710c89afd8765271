/* Manual progress (FI_PROGRESS_MANUAL): the channel moves data only inside
 * the provider's calls -- CQ and counter reads, sends, receives.  MPI
 * libraries spin in fi_cq_read; when a read finds nothing and moved nothing,
 * the channel spends one unit of its wait budget (spin, yield, then a
 * bounded sleep on the UE's doorbell with the UE shown as waiting in MPI),
 * so many ranks share few host CPUs and the launcher's deadlock detector
 * sees every rank waiting. */
#include "provider.h"

int prov_progress(void) { return prov_g.channel_open ? mpi_channel_progress() : 0; }

void prov_idle(void) {
  if (prov_g.channel_open) mpi_channel_idle();
}

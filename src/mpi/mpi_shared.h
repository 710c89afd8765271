/*
 * The mpi layer's state in the job segment (hw/region.h):
 *   mpi.ue  per UE  the channel's statistics, as RCKMPI's channel statistics
 *                   feature showed them ([RCKMPI-2011] sec. II-A), and its
 *                   process's start time (single copy), and its news bits
 * Written by the UE's channel (channel.c), read by the launcher for
 * summary.json (docs/mpi-channel.md, "Statistics").
 */
#ifndef OPENSCC_MPI_SHARED_H
#define OPENSCC_MPI_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise the version whenever struct mpi_ue_shared changes (the layout hash
 * then tells programs built against the old one to rebuild). */
#define MPI_UE_REGION "mpi.ue"
#define MPI_UE_VERSION 4
#define MPI_NEWS_WORDS ((HW_MAX_UES + 63) / 64)

struct mpi_ue_shared {
  /* Packets (the provider's header + payload) and their bytes, header included. */
  uint64_t packets_sent HW_ALIGNED;
  uint64_t bytes_sent;
  uint64_t packets_recv;
  uint64_t bytes_recv;
  uint64_t rounds_sent; /* EWS rounds written (a packet takes one or more) */
  uint64_t rounds_recv; /* EWS rounds read */
  uint64_t gews_rounds; /* rounds sent that carried part of their payload in the gEWS */
  uint64_t gews_chunks; /* 128-byte gEWS chunks those rounds used */
  uint64_t ews_busy;    /* rounds ready to go that found the receiver's EWS still busy */
  /* One-sided packets (provider, prov_rma*.c): requests this UE sent (a
   * write, read or atomic each), and requests it applied as the target. */
  uint64_t rma_requests;
  uint64_t rma_served;
  /* The channel's process: its start time (proc(5) /proc/pid/stat field
   * 22), which tells it from a later process with its pid (channel_copy.c). */
  uint64_t start_time;
  /* Who wrote a round into my MPB (rounds) or consumed one of mine
   * (consumed) since my channel last looked: bit u % 64 of word u / 64 for
   * UE u, set by u (channel.c, chan_tell), taken by my channel, which then
   * reads only those UEs' sequence words.  A host-side shortcut, not part
   * of the SCC's protocol; on lines of their own, as other UEs write them. */
  struct {
    _Atomic uint64_t rounds, consumed;
  } news[MPI_NEWS_WORDS] HW_ALIGNED;
};

/* UE ue's block; the blocks form an array (line-sized), so UE 0's indexes all. */
static inline struct mpi_ue_shared *mpi_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct mpi_ue_shared *)hw_region_ue(j, MPI_UE_REGION, ue);
}

#endif

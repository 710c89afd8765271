/* The MPB layouts of the channel's protocols (docs/mpi-channel.md, "MPB layout"). */
#include <stdio.h>

#include "channel_internal.h"

/* rckmpi ([RCKMPI-2011] sec. II, Fig. 1): the extended protocol's gEWS, 32
 * chunks of 128 B (4 KB: one P54C page, one 32-bit control word), then the
 * base protocol's EWSs of 64 B (16 B metadata + 48 B payload, sized for the
 * 32-byte MPICH2 header plus the small payloads that dominate), then what is
 * left for other uses (1 KB on the SCC). */
enum { RCKMPI_EWS_BYTES = 64, RCKMPI_META_BYTES = 16, GEWS_CHUNKS = 32, GEWS_CHUNK_BYTES = 128 };

static int rckmpi_geometry(const struct chip_desc *chip, int nue, struct chan_geometry *g, char *err, size_t errlen) {
  uint32_t gews = GEWS_CHUNKS * GEWS_CHUNK_BYTES, mpb = (uint32_t)chip->mpb_bytes_per_core;
  uint32_t cores = (uint32_t)chip_num_cores(chip);
  /* One EWS per core of the chip (48 on the SCC: a UE on any core may send);
   * a chip whose MPB cannot hold one per core gets one per UE of the job. */
  g->per_core = gews + cores * RCKMPI_EWS_BYTES <= mpb;
  g->sections = g->per_core ? cores : (uint32_t)nue;
  g->used_bytes = gews + g->sections * RCKMPI_EWS_BYTES;
  if (g->used_bytes > mpb) {
    snprintf(err, errlen,
             "the rckmpi channel needs %u bytes of MPB per core for %d UEs (a %u-byte gEWS and %d EWSs of %d bytes); "
             "this chip has %u; use --mpi-channel rckmpi-original or a chip with a larger MPB",
             g->used_bytes, nue, gews, nue, RCKMPI_EWS_BYTES, mpb);
    return -1;
  }
  g->gews_off = 0;
  g->gews_chunks = GEWS_CHUNKS;
  g->chunk_bytes = GEWS_CHUNK_BYTES;
  g->ews_off = gews;
  g->section_bytes = RCKMPI_EWS_BYTES;
  g->meta_bytes = RCKMPI_META_BYTES;
  return 0;
}

/* rckmpi-original (RCKMPI's first SCCMPB channel, [RCKMPI-2011] sec. II):
 * every receiver's MPB split evenly among the job's UEs, each section
 * rounded down to whole lines (160 B at 48 UEs on the SCC), 12 bytes of
 * metadata, no gEWS. */
static int original_geometry(const struct chip_desc *chip, int nue, struct chan_geometry *g, char *err, size_t errlen) {
  uint32_t mpb = (uint32_t)chip->mpb_bytes_per_core, line = (uint32_t)chip->line_bytes;
  g->per_core = 0;
  g->sections = (uint32_t)nue;
  g->section_bytes = mpb / (uint32_t)nue / line * line;
  if (g->section_bytes <= CHAN_META_BASE_BYTES) {
    snprintf(err, errlen,
             "the rckmpi-original channel splits each core's MPB (%u bytes) among %d UEs: %u-byte sections leave no "
             "room beyond the %d bytes of metadata; use fewer UEs or a chip with a larger MPB",
             mpb, nue, g->section_bytes, CHAN_META_BASE_BYTES);
    return -1;
  }
  g->ews_off = 0;
  g->meta_bytes = CHAN_META_BASE_BYTES;
  g->gews_off = g->gews_chunks = g->chunk_bytes = 0;
  g->used_bytes = g->sections * g->section_bytes;
  return 0;
}

int chan_geometry_of(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, struct chan_geometry *g,
                     char *err, size_t errlen) {
  int rc;
  switch (kind) {
    case MPI_CHANNEL_RCKMPI: rc = rckmpi_geometry(chip, nue, g, err, errlen); break;
    case MPI_CHANNEL_RCKMPI_ORIGINAL: rc = original_geometry(chip, nue, g, err, errlen); break;
    default: snprintf(err, errlen, "unknown MPI channel kind %d", (int)kind); return -1;
  }
  if (rc == 0) {
    uint32_t payload = g->section_bytes - g->meta_bytes;
    g->ews_payload = payload < CHAN_ROUND_MAX ? payload : CHAN_ROUND_MAX;
  }
  return rc;
}

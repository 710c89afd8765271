/* The MPB layout of the sccmpich channel (docs/mpi-channel.md, "sccmpich").
 *
 * Per UE of the job, in every core's MPB: a probe flag of 2 lines (the
 * receiver polls its own MPB only: [SCC-2BOARD] sec. V's nue probe flags per
 * core, each a big flag, i.e. a whole line) and an acknowledgement flag of
 * 1 line.  Three lines per peer are what [SCC-2BOARD] sec. VI reports for 64
 * cores: "6 kByte MPB space per core gets just allocated for synchronization
 * purpose (and of course for short messages that can be sent via Tagged
 * Flags), whereas merely 2 kByte are effectively left" (64 x 96 B = 6 KB).
 * The rest is the payload area: half of it split into per-sender eager
 * slots (whole lines; none when that leaves less than a line each, as at 64
 * UEs), the other half the rendezvous buffer in two halves for pipelining. */
#include <stdio.h>

#include "channel_sccmpich.h"

enum { PROBE_LINES = 2, ACK_LINES = 1, ROUND_CAP = 32768 /* a round's bytes fit the sync word's 16 bits */ };

static uint32_t lines_of(uint32_t bytes, uint32_t line, uint32_t cap) {
  uint32_t b = bytes < cap ? bytes : cap;
  return b / line * line;
}

int sccm_geometry_of(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, struct sccm_geometry *g,
                     char *err, size_t errlen) {
  uint32_t line = (uint32_t)chip->line_bytes, mpb = (uint32_t)chip->mpb_bytes_per_core, n = (uint32_t)nue;
  uint32_t flags = (PROBE_LINES + ACK_LINES) * line * n;
  uint32_t rest = flags < mpb ? mpb - flags : 0;
  g->slot_bytes = lines_of(rest / 2 / n, line, ROUND_CAP);
  g->half_bytes = lines_of((rest - n * g->slot_bytes) / 2, line, ROUND_CAP);
  /* At least one line per rendezvous half: a packet beyond one eager round must move. */
  if (g->half_bytes < line) {
    snprintf(err, errlen,
             "the sccmpich channel needs %u bytes of MPB per core for %d UEs (%u bytes of flags per UE and a "
             "2-line rendezvous buffer); this chip has %u; use fewer UEs or a chip with a larger MPB",
             flags + 2 * line, nue, (PROBE_LINES + ACK_LINES) * line, mpb);
    return -1;
  }
  g->line = line;
  g->probe_off = 0;
  g->ack_off = PROBE_LINES * line * n;
  g->slot_off = flags;
  g->rndv_off = g->slot_off + n * g->slot_bytes;
  g->inline_bytes = kind == MPI_CHANNEL_SCCMPICH ? PROBE_LINES * line - SCCM_SYNC_BYTES : 0;
  g->used_bytes = g->rndv_off + 2 * g->half_bytes;
  return 0;
}

/* Short: the packet fits the tagged probe flag (header + 28 B on the SCC);
 * eager: it fits one round of the flag and the eager slot; else rendezvous. */
enum sccm_kind sccm_protocol_of(const struct sccm_geometry *g, uint64_t bytes) {
  if (bytes <= g->inline_bytes) return SCCM_SHORT;
  if (bytes <= (uint64_t)g->inline_bytes + g->slot_bytes) return SCCM_EAGER;
  return SCCM_RTS;
}

/*
 * The ircce layer's state in the job segment (hw/region.h):
 *   ircce.air  per UE  the atomic increment registers of iRCCE's AIR API
 *                      (two per core on the SCC's FPGA; here two per UE)
 */
#ifndef OPENSCC_IRCCE_SHARED_H
#define OPENSCC_IRCCE_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise the version whenever the type below changes (hw/region.h). */
#define IRCCE_AIR_REGION "ircce.air"
#define IRCCE_AIR_VERSION 1
#define IRCCE_AIRS_PER_UE 2

struct ircce_air_shared {
  _Atomic int32_t reg[IRCCE_AIRS_PER_UE] HW_ALIGNED;
};

static inline struct ircce_air_shared *ircce_air_shared_of(const struct hw_job *j, int ue) {
  return (struct ircce_air_shared *)hw_region_ue(j, IRCCE_AIR_REGION, ue);
}

#endif

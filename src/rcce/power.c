/*
 * RCCE power management on the emulated configuration registers: one
 * frequency divider per tile, one voltage level per 2x2-tile domain
 * (scc-reference.md sections 1 and 2).  RCCE's rules: the master of a
 * voltage domain changes the domain; the lowest voltage level whose cap
 * admits the frequency is chosen; frequency goes down before voltage and up
 * after it; one voltage request per domain in flight.  Native mode applies
 * changes at once; model mode charges a divider write and makes
 * RCCE_wait_power wait for the voltage change's modeled latency (the new
 * voltage counts from then on), with the request's start time in start_cycle.
 */
#include "rcce_internal.h"

static const struct chip_desc *chip(void) { return &rcce_g.job.hdr->chip; }

static int my_domain(void) { return chip_voltage_domain(chip(), rcce_g.core); }

int RCCE_power_domain(void) { return my_domain(); }
int RCCE_power_domain_master(void) { return RCCE_P_COMM.member[0]; }
int RCCE_power_domain_size(void) { return RCCE_P_COMM.size; }

static void set_domain_dividers(int divider) {
  timing_frequency_change();
  struct hw_config *cfg = hw_config(&rcce_g.job);
  for (int i = 0; i < RCCE_P_COMM.size; i++) {
    int tile = chip_tile_of_core(chip(), hw_ue(&rcce_g.job, RCCE_P_COMM.member[i])->core);
    __atomic_store_n(&cfg->tile_divider[tile], divider, __ATOMIC_RELEASE);
  }
}

int RCCE_iset_power(int freq_div, RCCE_REQUEST *req, int *new_freq_div, int *new_voltage_level) {
  TIMING_SCOPE();
  const char *where = "RCCE_iset_power";
  if (RCCE_power_domain_master() != rcce_g.ue)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_ID, where, "UE %d is not the master of power domain %d", rcce_g.ue,
                      my_domain());
  int vl = chip_vlevel_for_divider(chip(), freq_div);
  if (vl < 0)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FDIVIDER, where, "divider %d outside %d..%d or above every cap",
                      freq_div, chip()->divider_min, chip()->divider_max);
  if (!req) return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_RPC_NOT_ALLOCATED, where, "NULL request");
  struct hw_config *cfg = hw_config(&rcce_g.job);
  int d = my_domain();
  int32_t idle = 0;
  if (!__atomic_compare_exchange_n(&cfg->domain_pending[d], &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_MULTIPLE_RPC_REQUESTS, where,
                      "power domain %d already has a request in flight", d);
  int my_tile = chip_tile_of_core(chip(), rcce_g.core);
  req->old_voltage_level = __atomic_load_n(&cfg->domain_vlevel[d], __ATOMIC_ACQUIRE);
  req->old_frequency_divider = __atomic_load_n(&cfg->tile_divider[my_tile], __ATOMIC_ACQUIRE);
  req->new_voltage_level = vl;
  req->new_frequency_divider = freq_div;
  req->start_cycle = (long long)timing_voltage_request(); /* model mode: picoseconds */
  req->release = 1;
  /* Lowering the frequency happens before the voltage drops. */
  if (freq_div >= req->old_frequency_divider) set_domain_dividers(freq_div);
  if (new_freq_div) *new_freq_div = freq_div;
  if (new_voltage_level) *new_voltage_level = vl;
  return RCCE_SUCCESS;
}

int RCCE_wait_power(RCCE_REQUEST *req) {
  TIMING_SCOPE();
  if (!req || !req->release)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, "RCCE_wait_power", "no request started");
  struct hw_config *cfg = hw_config(&rcce_g.job);
  int d = my_domain();
  timing_voltage_wait((uint64_t)req->start_cycle, d, req->new_voltage_level);
  __atomic_store_n(&cfg->domain_vlevel[d], req->new_voltage_level, __ATOMIC_RELEASE);
  /* Raising the frequency happens after the voltage has risen. */
  if (req->new_frequency_divider < req->old_frequency_divider) set_domain_dividers(req->new_frequency_divider);
  req->release = 0;
  __atomic_store_n(&cfg->domain_pending[d], 0, __ATOMIC_RELEASE);
  return RCCE_SUCCESS;
}

int RCCE_set_frequency_divider(int freq_div, int *new_freq_div) {
  TIMING_SCOPE();
  const char *where = "RCCE_set_frequency_divider";
  if (freq_div < chip()->divider_min || freq_div > chip()->divider_max)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FDIVIDER, where, "divider %d outside %d..%d", freq_div,
                      chip()->divider_min, chip()->divider_max);
  struct hw_config *cfg = hw_config(&rcce_g.job);
  int vl = __atomic_load_n(&cfg->domain_vlevel[my_domain()], __ATOMIC_ACQUIRE);
  if (chip_tile_mhz(chip(), freq_div) > chip()->vlevel[vl].max_tile_mhz)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FREQ_EXCEEDS_MHZ, where, "%d MHz is above the %d MHz cap of level %d",
                      chip_tile_mhz(chip(), freq_div), chip()->vlevel[vl].max_tile_mhz, vl);
  timing_frequency_change();
  __atomic_store_n(&cfg->tile_divider[chip_tile_of_core(chip(), rcce_g.core)], freq_div, __ATOMIC_RELEASE);
  if (new_freq_div) *new_freq_div = freq_div;
  return RCCE_SUCCESS;
}

/*
 * RCCE power management on the emulated configuration registers: one
 * frequency divider per tile, one voltage level per 2x2-tile domain
 * (docs/references.md refs 1 and 2).  RCCE's rules: the master of a
 * voltage domain changes the domain (the other UEs' calls do nothing), and
 * a frequency change sets every tile of it; the lowest voltage level whose cap
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

/* RCCE 1.0.13: only the master of a power domain acts; on every other UE
 * RCCE_iset_power, RCCE_wait_power and RCCE_set_frequency_divider return
 * RCCE_SUCCESS at once and change nothing (RCCE_wait_power does not even
 * read the request, which programs leave uninitialised there). */
static int is_domain_master(void) { return RCCE_power_domain_master() == rcce_g.ue; }

/* The master's voltage request in flight.  RCCE_wait_power applies these
 * values, not the caller's copy of the request, so a damaged request cannot
 * put an invalid level or divider into the configuration registers. */
static struct {
  int new_vlevel, old_divider, new_divider;
  uint64_t start_ps;
} in_flight;

static struct hw_config *config(void) { return hw_config(&rcce_g.job); }

static int request_pending(void) { return __atomic_load_n(&config()->domain_pending[my_domain()], __ATOMIC_ACQUIRE); }

/* The frequency of the whole power domain: every tile of my voltage domain,
 * whether or not a UE runs on it (RCCE writes the divider of each of the
 * domain's four tiles). */
static void set_domain_dividers(int divider) {
  int d = my_domain();
  timing_frequency_change(d, divider);
  for (int tile = 0; tile < chip_num_tiles(chip()); tile++)
    if (chip_voltage_domain(chip(), tile * chip()->cores_per_tile) == d)
      __atomic_store_n(&config()->tile_divider[tile], divider, __ATOMIC_RELEASE);
}

static int my_divider(void) {
  return __atomic_load_n(&config()->tile_divider[chip_tile_of_core(chip(), rcce_g.core)], __ATOMIC_ACQUIRE);
}

int RCCE_iset_power(int freq_div, RCCE_REQUEST *req, int *new_freq_div, int *new_voltage_level) {
  TIMING_SCOPE();
  const char *where = "RCCE_iset_power";
  if (!is_domain_master()) return RCCE_SUCCESS;
  int vl = chip_vlevel_for_divider(chip(), freq_div);
  if (vl < 0)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FDIVIDER, where, "divider %d outside %d..%d or above every cap",
                      freq_div, chip()->divider_min, chip()->divider_max);
  if (!req) return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_RPC_NOT_ALLOCATED, where, "NULL request");
  int d = my_domain();
  int32_t idle = 0;
  if (!__atomic_compare_exchange_n(&config()->domain_pending[d], &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_MULTIPLE_RPC_REQUESTS, where,
                      "power domain %d already has a request in flight", d);
  in_flight.new_vlevel = vl;
  in_flight.old_divider = my_divider();
  in_flight.new_divider = freq_div;
  in_flight.start_ps = timing_voltage_request(); /* model mode: picoseconds */
  req->old_voltage_level = __atomic_load_n(&config()->domain_vlevel[d], __ATOMIC_ACQUIRE);
  req->old_frequency_divider = in_flight.old_divider;
  req->new_voltage_level = vl;
  req->new_frequency_divider = freq_div;
  req->start_cycle = (long long)in_flight.start_ps;
  req->release = 0; /* RCCE: 0 while in flight, 1 once RCCE_wait_power has completed it */
  /* Lowering the frequency happens before the voltage drops. */
  if (freq_div >= in_flight.old_divider) set_domain_dividers(freq_div);
  if (new_freq_div) *new_freq_div = freq_div;
  if (new_voltage_level) *new_voltage_level = vl;
  return RCCE_SUCCESS;
}

int RCCE_wait_power(RCCE_REQUEST *req) {
  TIMING_SCOPE();
  const char *where = "RCCE_wait_power";
  if (!is_domain_master()) return RCCE_SUCCESS;
  if (!request_pending())
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, where, "no request started");
  if (!req) return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_RPC_NOT_ALLOCATED, where, "NULL request");
  if (req->release)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_STALE_RPC_REQUEST, where, "the request was already completed");
  int d = my_domain();
  timing_voltage_wait(in_flight.start_ps, d, in_flight.new_vlevel);
  __atomic_store_n(&config()->domain_vlevel[d], in_flight.new_vlevel, __ATOMIC_RELEASE);
  /* Raising the frequency happens after the voltage has risen. */
  if (in_flight.new_divider < in_flight.old_divider) set_domain_dividers(in_flight.new_divider);
  req->release = 1;
  __atomic_store_n(&config()->domain_pending[d], 0, __ATOMIC_RELEASE);
  return RCCE_SUCCESS;
}

int RCCE_set_frequency_divider(int freq_div, int *new_freq_div) {
  TIMING_SCOPE();
  const char *where = "RCCE_set_frequency_divider";
  if (!is_domain_master()) return RCCE_SUCCESS;
  if (freq_div < chip()->divider_min || freq_div > chip()->divider_max)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FDIVIDER, where, "divider %d outside %d..%d", freq_div,
                      chip()->divider_min, chip()->divider_max);
  /* RCCE: no frequency change while the domain's voltage request is in flight. */
  if (request_pending())
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_MULTIPLE_RPC_REQUESTS, where,
                      "power domain %d has a voltage request in flight", my_domain());
  int vl = __atomic_load_n(&config()->domain_vlevel[my_domain()], __ATOMIC_ACQUIRE);
  if (chip_tile_mhz(chip(), freq_div) > chip()->vlevel[vl].max_tile_mhz)
    return rcce_error(RCCE_DEBUG_RPC, RCCE_ERROR_FREQ_EXCEEDS_MHZ, where, "%d MHz is above the %d MHz cap of level %d",
                      chip_tile_mhz(chip(), freq_div), chip()->vlevel[vl].max_tile_mhz, vl);
  set_domain_dividers(freq_div);
  if (new_freq_div) *new_freq_div = freq_div;
  return RCCE_SUCCESS;
}

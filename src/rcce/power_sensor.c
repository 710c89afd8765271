/* The emulated power sensor (include/scc_power.h): the power model's
 * reading (src/timing/sensor.c), in model mode only. */
#include "../timing/energy.h"
#include "rcce_internal.h"
#include "scc_power.h"

double scc_power_read(void) {
  TIMING_SCOPE();
  if (!rcce_g.initialized || !timing_enabled) return -1.0;
  return timing_sensor_read();
}

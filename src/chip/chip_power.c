/* The power model of the chip layer (docs/model.md): dynamic power of a core
 * C V^2 f scaled by its activity ([PERFPOWER-2011], "P = C V^2
 * f"), and a static part per voltage domain proportional to its voltage.  The
 * constants are fitted in chip_preset.c to docs/references.md refs 1 and 4. */
#include "chip.h"

double chip_core_power(const struct chip_desc *c, double volts, int tile_mhz, double activity) {
  return c->power.core_dynamic * volts * volts * tile_mhz * activity;
}

double chip_domain_static_power(const struct chip_desc *c, double volts) {
  return c->power.domain_static * volts / c->power.static_ref_volts;
}

/* Each board has its own mesh, memory controllers and I/O. */
double chip_uncore_power(const struct chip_desc *c) { return c->power.uncore * c->boards; }

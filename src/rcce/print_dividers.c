/* print_dividers(): the tile clock dividers, one line per tile, as RCCE's
 * power-management library prints them (Intel's power examples call it after
 * changing a domain's frequency).  Weak: a program that defines a function of
 * that name links and uses its own, although librcce.a is one object
 * (docs/architecture.md "The library's surface"). */
#include <stdio.h>

#include "rcce_internal.h"

__attribute__((weak)) void print_dividers(void) {
  if (!rcce_g.initialized) return;
  const struct chip_desc *chip = &rcce_g.job.hdr->chip;
  struct hw_config *cfg = hw_config(&rcce_g.job);
  for (int tile = 0; tile < chip_num_tiles(chip); tile++)
    printf("Clock divider for tile %d is %d\n", tile, __atomic_load_n(&cfg->tile_divider[tile], __ATOMIC_ACQUIRE));
  fflush(stdout);
}

/* Geometry of a chip: core ids, XY-routing hop counts, domains, clocks. */
#include "chip.h"

#include <stdlib.h>

int chip_num_tiles(const struct chip_desc *c) { return c->tiles_x * c->tiles_y; }

int chip_num_cores(const struct chip_desc *c) { return chip_num_tiles(c) * c->cores_per_tile; }

/* ref 1 "core id": core = 2*(x + 6*y) + z on the SCC; generalised to the mesh. */
int chip_core_id(const struct chip_desc *c, int x, int y, int z) {
  return c->cores_per_tile * (x + c->tiles_x * y) + z;
}

struct chip_core_pos chip_core_pos(const struct chip_desc *c, int core) {
  int tile = core / c->cores_per_tile;
  return (struct chip_core_pos){tile % c->tiles_x, tile / c->tiles_x, core % c->cores_per_tile};
}

int chip_tile_of_core(const struct chip_desc *c, int core) { return core / c->cores_per_tile; }

/* ref 1 "routing": XY dimension-ordered, hops = |dx| + |dy| between routers. */
int chip_mesh_hops(const struct chip_desc *c, int core_a, int core_b) {
  struct chip_core_pos a = chip_core_pos(c, core_a), b = chip_core_pos(c, core_b);
  return abs(a.x - b.x) + abs(a.y - b.y);
}

int chip_mc_hops(const struct chip_desc *c, int core, int mc) {
  struct chip_core_pos p = chip_core_pos(c, core);
  return abs(p.x - c->mc[mc].tile_x) + abs(p.y - c->mc[mc].tile_y);
}

int chip_nearest_mc(const struct chip_desc *c, int core) {
  int best = 0;
  for (int m = 1; m < c->n_mc; m++)
    if (chip_mc_hops(c, core, m) < chip_mc_hops(c, core, best)) best = m;
  return best;
}

static int vdomains_x(const struct chip_desc *c) { return (c->tiles_x + c->vdomain_tiles_x - 1) / c->vdomain_tiles_x; }

int chip_num_voltage_domains(const struct chip_desc *c) {
  return vdomains_x(c) * ((c->tiles_y + c->vdomain_tiles_y - 1) / c->vdomain_tiles_y);
}

/* ref 1 "voltage domains": blocks of 2x2 tiles, numbered row-major. */
int chip_voltage_domain(const struct chip_desc *c, int core) {
  struct chip_core_pos p = chip_core_pos(c, core);
  return (p.y / c->vdomain_tiles_y) * vdomains_x(c) + p.x / c->vdomain_tiles_x;
}

/* ref 1 "frequency domains": one per tile. */
int chip_frequency_domain(const struct chip_desc *c, int core) { return chip_tile_of_core(c, core); }

/* ref 1 "clocks": tile MHz = 1600 / divider. */
int chip_tile_mhz(const struct chip_desc *c, int divider) { return c->global_clock_mhz / divider; }

/* ref 2: RCCE picks the lowest level whose cap is at least 1600/divider. */
int chip_vlevel_for_divider(const struct chip_desc *c, int divider) {
  if (divider < c->divider_min || divider > c->divider_max) return -1;
  int mhz = chip_tile_mhz(c, divider);
  for (int l = 0; l < c->n_vlevels; l++)
    if (c->vlevel[l].max_tile_mhz >= mhz) return l;
  return -1;
}

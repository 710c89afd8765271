/* Geometry of a chip: core ids, XY-routing hop counts, domains, clocks.
 * A system of several boards ([SCC-2BOARD]) numbers cores, tiles, memory
 * controllers and voltage domains board after board. */
#include "chip.h"

#include <stdlib.h>

int chip_tiles_per_board(const struct chip_desc *c) { return c->tiles_x * c->tiles_y; }

int chip_num_tiles(const struct chip_desc *c) { return chip_tiles_per_board(c) * c->boards; }

int chip_num_cores(const struct chip_desc *c) { return chip_num_tiles(c) * c->cores_per_tile; }

int chip_num_mcs(const struct chip_desc *c) { return c->n_mc * c->boards; }

/* ref 1 "core id": core = 2*(x + 6*y) + z on the SCC; generalised to the mesh (board 0). */
int chip_core_id(const struct chip_desc *c, int x, int y, int z) {
  return c->cores_per_tile * (x + c->tiles_x * y) + z;
}

struct chip_core_pos chip_core_pos(const struct chip_desc *c, int core) {
  int tile = core / c->cores_per_tile, local = tile % chip_tiles_per_board(c);
  return (struct chip_core_pos){local % c->tiles_x, local / c->tiles_x, core % c->cores_per_tile,
                                tile / chip_tiles_per_board(c)};
}

int chip_tile_of_core(const struct chip_desc *c, int core) { return core / c->cores_per_tile; }

int chip_board_of_core(const struct chip_desc *c, int core) { return chip_core_pos(c, core).board; }

static int xy_hops(int ax, int ay, int bx, int by) { return abs(ax - bx) + abs(ay - by); }

/* ref 1 "routing": XY dimension-ordered, hops = |dx| + |dy| between routers;
 * to another board, through both boards' system interfaces. */
static int hops_between(const struct chip_desc *c, struct chip_core_pos a, int board, int x, int y) {
  if (a.board == board) return xy_hops(a.x, a.y, x, y);
  return xy_hops(a.x, a.y, c->sif_tile_x, c->sif_tile_y) + xy_hops(c->sif_tile_x, c->sif_tile_y, x, y);
}

int chip_mesh_hops(const struct chip_desc *c, int core_a, int core_b) {
  struct chip_core_pos b = chip_core_pos(c, core_b);
  return hops_between(c, chip_core_pos(c, core_a), b.board, b.x, b.y);
}

int chip_mc_hops(const struct chip_desc *c, int core, int mc) {
  const struct chip_mc *m = &c->mc[mc % c->n_mc];
  return hops_between(c, chip_core_pos(c, core), mc / c->n_mc, m->tile_x, m->tile_y);
}

int chip_nearest_mc(const struct chip_desc *c, int core) {
  int first = chip_board_of_core(c, core) * c->n_mc, best = first;
  for (int m = first + 1; m < first + c->n_mc; m++)
    if (chip_mc_hops(c, core, m) < chip_mc_hops(c, core, best)) best = m;
  return best;
}

static int vdomains_x(const struct chip_desc *c) { return (c->tiles_x + c->vdomain_tiles_x - 1) / c->vdomain_tiles_x; }

static int vdomains_per_board(const struct chip_desc *c) {
  return vdomains_x(c) * ((c->tiles_y + c->vdomain_tiles_y - 1) / c->vdomain_tiles_y);
}

int chip_num_voltage_domains(const struct chip_desc *c) { return vdomains_per_board(c) * c->boards; }

/* ref 1 "voltage domains": blocks of 2x2 tiles, numbered row-major, board after board. */
int chip_voltage_domain(const struct chip_desc *c, int core) {
  struct chip_core_pos p = chip_core_pos(c, core);
  return p.board * vdomains_per_board(c) + (p.y / c->vdomain_tiles_y) * vdomains_x(c) + p.x / c->vdomain_tiles_x;
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

/* The latency model of the chip layer (docs/model.md): what one MPB or DDR3
 * access costs a core, from the constants in struct chip_latency.  Remote
 * accesses cross the mesh there and back under XY routing; mesh and memory
 * cycles are converted to the accessing tile's core cycles.  An access to
 * another board crosses both meshes to and from the system interfaces, and
 * the way between them ([SCC-2BOARD] sec. III-IV, docs/cluster.md "The link
 * model"): a read waits for the whole round trip (one outstanding request
 * per core); a write stalls the writer until its own interface acknowledges
 * it, and arrives later. */
#include "chip.h"

static double to_core_cycles(double cycles, int clock_mhz, int tile_mhz) { return cycles * tile_mhz / clock_mhz; }

static double ns_to_core_cycles(double ns, int tile_mhz) { return ns * tile_mhz / 1000.0; }

static int other_board(const struct chip_desc *c, int core, int owner) {
  return chip_board_of_core(c, core) != chip_board_of_core(c, owner);
}

/* ref 3 "model check": 8 mesh cycles per hop, 4 there and 4 back. */
double chip_mesh_round_trip_cycles(const struct chip_desc *c, int hops, int tile_mhz) {
  return to_core_cycles(2.0 * hops * c->lat.mesh_cycles_per_hop, c->mesh_mhz, tile_mhz);
}

static double mpb_access(const struct chip_desc *c, int core, int owner, int tile_mhz, double local, double remote) {
  if (chip_tile_of_core(c, core) == chip_tile_of_core(c, owner)) return local;
  return remote + chip_mesh_round_trip_cycles(c, chip_mesh_hops(c, core, owner), tile_mhz);
}

double chip_mpb_read_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz) {
  double board = other_board(c, core, owner) ? ns_to_core_cycles(c->lat.board_read_ns, tile_mhz) : 0;
  return mpb_access(c, core, owner, tile_mhz, c->lat.mpb_read_local, c->lat.mpb_read_remote) + board;
}

double chip_mpb_write_line_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz) {
  double board = other_board(c, core, owner) ? ns_to_core_cycles(c->lat.board_write_ack_ns, tile_mhz) : 0;
  return mpb_access(c, core, owner, tile_mhz, c->lat.mpb_write_local, c->lat.mpb_write_remote) + board;
}

double chip_write_arrival_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz) {
  if (!other_board(c, core, owner)) return 0;
  return ns_to_core_cycles(c->lat.board_write_ns - c->lat.board_write_ack_ns, tile_mhz);
}

/* ref 3 "DDR3 read" [PERFPOWER-2011] (docs/references.md): core cycles + the mesh
 * round trip to the controller + the DDR3 latency at the memory clock; a
 * controller of another board as a read there. */
double chip_ddr_read_cycles(const struct chip_desc *c, int core, int mc, int tile_mhz) {
  double board = mc / c->n_mc != chip_board_of_core(c, core) ? ns_to_core_cycles(c->lat.board_read_ns, tile_mhz) : 0;
  return c->lat.ddr_core + chip_mesh_round_trip_cycles(c, chip_mc_hops(c, core, mc), tile_mhz) +
         to_core_cycles(c->lat.ddr_memory, c->ddr_mhz, tile_mhz) + board;
}

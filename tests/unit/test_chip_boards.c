/* chip layer: systems of several boards ([SCC-2BOARD]; docs/cluster.md):
 * numbering across boards, routes and hops through the system interfaces,
 * the link's latencies, and the checks of the keys involved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip/chip.h"
#include "unit.h"

static struct chip_desc scc_boards(int boards) {
  struct chip_desc c;
  char err[256];
  if (chip_preset("scc", &c, err, sizeof err) != 0) abort();
  c.boards = boards;
  if (chip_validate(&c, err, sizeof err) != 0) abort();
  return c;
}

/* Cores, tiles, controllers and voltage domains numbered board after board. */
static void test_numbering(void) {
  struct chip_desc c = scc_boards(2);
  CHECK_EQ(chip_num_cores(&c), 96);
  CHECK_EQ(chip_num_tiles(&c), 48);
  CHECK_EQ(chip_num_mcs(&c), 8);
  CHECK_EQ(chip_num_voltage_domains(&c), 12);
  struct chip_core_pos p = chip_core_pos(&c, 48 + 2 * (4 + 6 * 3) + 1); /* board 1, tile (4,3), core 1 */
  CHECK(p.board == 1 && p.x == 4 && p.y == 3 && p.z == 1);
  CHECK_EQ(chip_board_of_core(&c, 47), 0);
  CHECK_EQ(chip_board_of_core(&c, 48), 1);
  CHECK_EQ(chip_tile_of_core(&c, 48), 24);
  CHECK_EQ(chip_voltage_domain(&c, 48), 6);
  CHECK_EQ(chip_voltage_domain(&c, 95), 11);
  CHECK_EQ(chip_nearest_mc(&c, 0), 0);
  CHECK_EQ(chip_nearest_mc(&c, 48 + 2 * 5), 5); /* board 1's controller at (5,0) */
}

/* Between boards a line goes to the system interface at (3,0), over, and on. */
static void test_hops_and_routes(void) {
  struct chip_desc c = scc_boards(2);
  CHECK_EQ(chip_mesh_hops(&c, 0, 48), 3 + 3);
  CHECK_EQ(chip_mesh_hops(&c, 2 * 5, 48 + 2 * 5), 2 + 2);
  CHECK_EQ(chip_mc_hops(&c, 0, 4), 3 + 3);
  CHECK_EQ(chip_num_links(&c), 48 * CHIP_LINK_DIRECTIONS + 2);
  int links[32];
  int n = chip_route(&c, 0, 24, links, 32); /* tile (0,0) of board 0 to tile (0,0) of board 1 */
  CHECK_EQ(n, 7);
  CHECK_EQ(links[0], 0 * CHIP_LINK_DIRECTIONS + CHIP_LINK_EAST);
  CHECK_EQ(links[3], chip_board_link(&c, 0));
  CHECK_EQ(links[4], (24 + 3) * CHIP_LINK_DIRECTIONS + CHIP_LINK_WEST);
  CHECK_EQ(links[6], (24 + 1) * CHIP_LINK_DIRECTIONS + CHIP_LINK_WEST);
  CHECK(chip_route(&c, 0, 24, links, 32) <= chip_max_route(&c));
  n = chip_mc_route(&c, 24 + 5, 0, links, 32); /* board 1's tile (5,0) to board 0's controller at (0,0) */
  CHECK_EQ(n, 2 + 1 + 3);
  CHECK_EQ(links[2], chip_board_link(&c, 1));
  /* One board: no board links, and the routes are the mesh's alone. */
  struct chip_desc one = scc_boards(1);
  CHECK_EQ(chip_num_links(&one), 24 * CHIP_LINK_DIRECTIONS);
  CHECK_EQ(chip_route(&one, 0, 23, links, 32), 8);
}

/* A read waits for the whole round trip over the link; a write stalls the
 * writer for the interface's acknowledge and arrives later. */
static void test_link_latency(void) {
  struct chip_desc c = scc_boards(2);
  int mhz = 533;
  double mesh6 = chip_mesh_round_trip_cycles(&c, 6, mhz);
  double read = chip_mpb_read_cycles(&c, 0, 48, mhz);
  CHECK(fabs(read - (c.lat.mpb_read_remote + mesh6 + c.lat.board_read_ns * mhz / 1000)) < 1e-9);
  double write = chip_mpb_write_line_cycles(&c, 0, 48, mhz);
  CHECK(fabs(write - (c.lat.mpb_write_remote + mesh6 + c.lat.board_write_ack_ns * mhz / 1000)) < 1e-9);
  double later = chip_write_arrival_cycles(&c, 0, 48, mhz);
  CHECK(fabs(later - (c.lat.board_write_ns - c.lat.board_write_ack_ns) * mhz / 1000) < 1e-9);
  CHECK(chip_write_arrival_cycles(&c, 0, 47, mhz) == 0);
  struct chip_desc one = scc_boards(1);
  CHECK(chip_mpb_read_cycles(&c, 0, 47, mhz) == chip_mpb_read_cycles(&one, 0, 47, mhz));
  /* [SCC-2BOARD] sec. IV: a remote read takes about twice a write. */
  CHECK(read > 1.9 * (write + later) && read < 2.1 * (write + later));
  /* Another board's controller: a read over the link too. */
  CHECK(chip_ddr_read_cycles(&c, 0, 4, mhz) > chip_ddr_read_cycles(&c, 48, 4, mhz) + c.lat.board_read_ns * mhz / 1000);
}

static void test_checks(void) {
  struct chip_desc c = scc_boards(8); /* 8 x 4 controllers: the most there is room for */
  char err[256];
  CHECK_EQ(chip_num_cores(&c), 384);
  c.boards = 2;
  c.sif_tile_x = 6;
  CHECK(chip_validate(&c, err, sizeof err) != 0 && strstr(err, "sif_tile_x") != NULL);
  c.boards = 1; /* one board never uses its interface */
  CHECK(chip_validate(&c, err, sizeof err) == 0);
  c = scc_boards(2);
  c.lat.board_write_ack_ns = c.lat.board_write_ns + 1;
  CHECK(chip_validate(&c, err, sizeof err) != 0 && strstr(err, "lat_board_write_ack_ns") != NULL);
  c = scc_boards(2);
  c.n_mc = 17;
  for (int m = 4; m < 17; m++) c.mc[m] = c.mc[0];
  CHECK(chip_validate(&c, err, sizeof err) != 0 && strstr(err, "per board x 2 boards is more than 32") != NULL);
  c = scc_boards(1);
  c.boards = 9;
  CHECK(chip_validate(&c, err, sizeof err) != 0 && strstr(err, "boards = 9") != NULL);
}

int main(void) {
  test_numbering();
  test_hops_and_routes();
  test_link_latency();
  test_checks();
  return unit_report("test_chip_boards");
}

/* Where traffic goes on the chip: the mesh links of an XY route (ref 1
 * "routing": X first, then Y), the way between boards through their system
 * interfaces ([SCC-2BOARD] sec. III), and the memory controller behind an
 * address of the off-chip shared region. */
#include "chip.h"

int chip_num_links(const struct chip_desc *c) {
  return chip_num_tiles(c) * CHIP_LINK_DIRECTIONS + (c->boards > 1 ? c->boards : 0);
}

int chip_board_link(const struct chip_desc *c, int board) { return chip_num_tiles(c) * CHIP_LINK_DIRECTIONS + board; }

/* XY on one board, from its tile (from_x, from_y) to (to_x, to_y). */
static int board_route(const struct chip_desc *c, int board, int from_x, int from_y, int to_x, int to_y, int *links,
                       int max) {
  int n = 0, x = from_x, y = from_y, first = board * chip_tiles_per_board(c);
  while (x != to_x && n < max) {
    links[n++] = (first + x + c->tiles_x * y) * CHIP_LINK_DIRECTIONS + (to_x > x ? CHIP_LINK_EAST : CHIP_LINK_WEST);
    x += to_x > x ? 1 : -1;
  }
  while (y != to_y && n < max) {
    links[n++] = (first + x + c->tiles_x * y) * CHIP_LINK_DIRECTIONS + (to_y > y ? CHIP_LINK_NORTH : CHIP_LINK_SOUTH);
    y += to_y > y ? 1 : -1;
  }
  return n;
}

/* Where tile t (numbered across boards) is: its first core's position. */
static struct chip_core_pos tile_pos(const struct chip_desc *c, int t) {
  return chip_core_pos(c, t * c->cores_per_tile);
}

/* From tile `from` to router (x, y) of board `board`. */
static int route_to(const struct chip_desc *c, int from, int board, int x, int y, int *links, int max) {
  struct chip_core_pos f = tile_pos(c, from);
  if (f.board == board) return board_route(c, board, f.x, f.y, x, y, links, max);
  int n = board_route(c, f.board, f.x, f.y, c->sif_tile_x, c->sif_tile_y, links, max);
  if (n < max) links[n++] = chip_board_link(c, f.board);
  return n + board_route(c, board, c->sif_tile_x, c->sif_tile_y, x, y, links + n, max - n);
}

int chip_route(const struct chip_desc *c, int from, int to, int *links, int max) {
  struct chip_core_pos t = tile_pos(c, to);
  return route_to(c, from, t.board, t.x, t.y, links, max);
}

int chip_mc_route(const struct chip_desc *c, int from, int mc, int *links, int max) {
  const struct chip_mc *m = &c->mc[mc % c->n_mc];
  return route_to(c, from, mc / c->n_mc, m->tile_x, m->tile_y, links, max);
}

/* Twice a board's diameter and the board link. */
int chip_max_route(const struct chip_desc *c) { return 2 * (c->tiles_x + c->tiles_y) + 1; }

/* ref 1 "LUT": cores reach memory in 16 MB pages; the shared region's pages
 * are dealt to board 0's controllers in turn (docs/model.md, an assumption). */
int chip_shared_mc(const struct chip_desc *c, unsigned long long offset) {
  return (int)((offset / (unsigned long long)c->lat.mc_page_bytes) % (unsigned long long)c->n_mc);
}

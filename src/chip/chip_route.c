/* Where traffic goes on the chip: the mesh links of an XY route (ref 1
 * "routing": X first, then Y) and the memory controller behind an address of
 * the off-chip shared region. */
#include "chip.h"

int chip_num_links(const struct chip_desc *c) { return chip_num_tiles(c) * CHIP_LINK_DIRECTIONS; }

static int tile_id(const struct chip_desc *c, int x, int y) { return x + c->tiles_x * y; }

int chip_xy_route(const struct chip_desc *c, int from_x, int from_y, int to_x, int to_y, int *links, int max) {
  int n = 0, x = from_x, y = from_y;
  while (x != to_x && n < max) {
    links[n++] = tile_id(c, x, y) * CHIP_LINK_DIRECTIONS + (to_x > x ? CHIP_LINK_EAST : CHIP_LINK_WEST);
    x += to_x > x ? 1 : -1;
  }
  while (y != to_y && n < max) {
    links[n++] = tile_id(c, x, y) * CHIP_LINK_DIRECTIONS + (to_y > y ? CHIP_LINK_NORTH : CHIP_LINK_SOUTH);
    y += to_y > y ? 1 : -1;
  }
  return n;
}

/* ref 1 "LUT": cores reach memory in 16 MB pages; the shared region's pages
 * are dealt to the controllers in turn (docs/model.md, an assumption). */
int chip_shared_mc(const struct chip_desc *c, unsigned long long offset) {
  return (int)((offset / (unsigned long long)c->lat.mc_page_bytes) % (unsigned long long)c->n_mc);
}

/* Contention at shared resources (docs/model.md "Contention"): memory
 * controllers, MPB ports and mesh links.  UEs run in host order, not in
 * virtual-time order, so one UE's busy-until time may lie far in another's
 * future; queueing is therefore taken from utilisation: every UE publishes,
 * per resource, the fraction of its virtual time it kept the resource busy
 * over the last window, and an access waits what an M/D/1 queue at the
 * other UEs' summed utilisation rho waits on average, rho / (2 (1 - rho))
 * service times.  A UE that waits longer uses resources less often, so a
 * saturated resource settles near its capacity.  The other UEs' utilisation
 * is read once per window and resource (a shared cache line each time). */
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

#define RHO_MAX 0.99 /* keeps the wait finite at and beyond saturation */
#define PPB 1e9      /* utilisation is published in parts per billion */

static struct {
  int n_res, first_port, first_link;
  double *busy_ps;       /* this window */
  int64_t *published;    /* my share of each resource's sum, ppb */
  int *active, n_active; /* resources used this window or published last time */
  unsigned char *listed; /* whether a resource is in `active` */
  double *others;        /* the other UEs' utilisation, as read in window `seen` */
  uint32_t *seen, window;
  uint64_t window_ps;
  uint64_t window_start;
  int *tile_route, *tile_hops; /* links from my tile to every tile */
  int *mc_route, *mc_hops;     /* and to every memory controller's router */
  int max_hops;
} cs;

static void route_table(int n, int *hops, int *route, const int *tx, const int *ty) {
  struct chip_core_pos me = chip_core_pos(timing_g.chip, timing_g.core);
  for (int i = 0; i < n; i++)
    hops[i] = chip_xy_route(timing_g.chip, me.x, me.y, tx[i], ty[i], route + (size_t)i * cs.max_hops, cs.max_hops);
}

int timing_contention_init(void) {
  const struct chip_desc *c = timing_g.chip;
  int tiles = chip_num_tiles(c);
  cs.n_res = (int)timing_g.n_resources;
  cs.first_port = c->n_mc;
  cs.first_link = c->n_mc + tiles;
  cs.max_hops = c->tiles_x + c->tiles_y;
  cs.busy_ps = calloc((size_t)cs.n_res, sizeof *cs.busy_ps);
  cs.published = calloc((size_t)cs.n_res, sizeof *cs.published);
  cs.active = calloc((size_t)cs.n_res, sizeof *cs.active);
  cs.listed = calloc((size_t)cs.n_res, sizeof *cs.listed);
  cs.others = calloc((size_t)cs.n_res, sizeof *cs.others);
  cs.seen = calloc((size_t)cs.n_res, sizeof *cs.seen);
  cs.tile_route = malloc(sizeof(int) * (size_t)tiles * (size_t)cs.max_hops);
  cs.tile_hops = malloc(sizeof(int) * (size_t)tiles);
  cs.mc_route = malloc(sizeof(int) * (size_t)c->n_mc * (size_t)cs.max_hops);
  cs.mc_hops = malloc(sizeof(int) * (size_t)c->n_mc);
  int *tx = malloc(sizeof(int) * (size_t)(tiles + c->n_mc)), *ty = malloc(sizeof(int) * (size_t)(tiles + c->n_mc));
  if (!cs.busy_ps || !cs.published || !cs.active || !cs.listed || !cs.others || !cs.seen || !cs.tile_route ||
      !cs.tile_hops || !cs.mc_route || !cs.mc_hops || !tx || !ty) {
    free(tx), free(ty);
    return -1;
  }
  for (int t = 0; t < tiles; t++) tx[t] = t % c->tiles_x, ty[t] = t / c->tiles_x;
  route_table(tiles, cs.tile_hops, cs.tile_route, tx, ty);
  for (int m = 0; m < c->n_mc; m++) tx[m] = c->mc[m].tile_x, ty[m] = c->mc[m].tile_y;
  route_table(c->n_mc, cs.mc_hops, cs.mc_route, tx, ty);
  free(tx), free(ty);
  cs.window_start = 0;
  cs.window = 1; /* seen[] starts at 0: nothing read yet */
  cs.window_ps = (uint64_t)(c->lat.contention_window_ns * 1000);
  return 0;
}

/* Publish this window's utilisation (and withdraw that of resources left
 * alone); only resources used lately are visited. */
static void publish(uint64_t now) {
  double span = (double)(now - cs.window_start);
  int kept = 0;
  for (int i = 0; i < cs.n_active; i++) {
    int r = cs.active[i];
    int64_t share = span > 0 ? (int64_t)(cs.busy_ps[r] / span * PPB) : 0;
    if (share != cs.published[r]) __atomic_fetch_add(&timing_g.loads[r], share - cs.published[r], __ATOMIC_RELAXED);
    cs.published[r] = share;
    cs.busy_ps[r] = 0;
    if (share) cs.active[kept++] = r; /* to be withdrawn when left alone */
    else cs.listed[r] = 0;
  }
  cs.n_active = kept;
  cs.window_start = now;
  cs.window++;
}

void timing_contention_finalize(void) {
  for (int r = 0; r < cs.n_res; r++)
    if (cs.published[r]) __atomic_fetch_add(&timing_g.loads[r], -cs.published[r], __ATOMIC_RELAXED);
  free(cs.others), free(cs.seen), free(cs.active), free(cs.listed), free(cs.busy_ps), free(cs.published),
      free(cs.tile_route), free(cs.tile_hops), free(cs.mc_route), free(cs.mc_hops);
  memset(&cs, 0, sizeof cs);
}

/* n uses of resource r, service_ps each: the expected queueing delay. */
static double use(int r, double service_ps, double n) {
  uint64_t now = timing_g.clock->now_ps;
  if (now - cs.window_start >= cs.window_ps) publish(now);
  cs.busy_ps[r] += service_ps * n;
  if (!cs.listed[r]) cs.listed[r] = 1, cs.active[cs.n_active++] = r;
  if (cs.seen[r] != cs.window) {
    cs.seen[r] = cs.window;
    cs.others[r] = (double)(__atomic_load_n(&timing_g.loads[r], __ATOMIC_RELAXED) - cs.published[r]) / PPB;
  }
  double rho = cs.others[r];
  if (rho <= 0) return 0;
  if (rho > RHO_MAX) rho = RHO_MAX;
  return n * service_ps * rho / (2 * (1 - rho));
}

static double links_wait(const int *route, int hops, double n) {
  double link_ps = timing_g.chip->lat.link_service_cycles * 1e6 / timing_g.chip->mesh_mhz, w = 0;
  for (int i = 0; i < hops; i++) w += use(cs.first_link + route[i], link_ps, n);
  return w;
}

double timing_mpb_queue_ps(int owner_core, double lines) {
  const struct chip_desc *c = timing_g.chip;
  int tile = chip_tile_of_core(c, owner_core);
  double w = use(cs.first_port + tile, c->lat.mpb_service_cycles * 1e6 / c->mesh_mhz, lines);
  return w + links_wait(cs.tile_route + (size_t)tile * cs.max_hops, cs.tile_hops[tile], lines);
}

double timing_mc_queue_ps(int mc, double accesses) {
  double w = use(mc, timing_g.chip->lat.mc_service_ns * 1000, accesses);
  return w + links_wait(cs.mc_route + (size_t)mc * cs.max_hops, cs.mc_hops[mc], accesses);
}

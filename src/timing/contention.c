/* Contention at shared resources (docs/model.md "Contention"): memory
 * controllers, MPB ports and mesh links.  Virtual time is cut into windows
 * of lat_contention_window_ns.  Every UE adds up, per resource, how long
 * its accesses kept it busy in the window they began in, and publishes the
 * window when its clock leaves it.  An access in window k waits what an
 * M/D/1 queue at the other UEs' summed utilisation rho of window
 * k - TIMING_WINDOW_LAG waits on average, rho / (2 (1 - rho)) service
 * times; that window is read once every other UE is past it (floor.c), so
 * an access waits the same on every run, however the host interleaves the
 * UEs.  A UE that waits longer uses resources less often, so a saturated
 * resource settles near its capacity. */
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

#define RHO_MAX 0.99 /* keeps the wait finite at and beyond saturation */

static struct {
  int n_res, first_port, first_link;
  uint64_t window;             /* the window my clock is in */
  uint64_t synced;             /* window + 1 once the others were past window - lag */
  double *busy_ps;             /* in this window, per resource */
  int *active, n_active;       /* resources used in it */
  unsigned char *listed;       /* whether a resource is in `active` */
  double *others;              /* the other UEs' utilisation of each resource, in window - lag ... */
  uint64_t *seen;              /* ... as read in window seen - 1 */
  uint64_t **peer;             /* every UE's windows (timing.windows) */
  int *tile_route, *tile_hops; /* links from my tile to every tile */
  int *mc_route, *mc_hops;     /* and to every memory controller's router */
  int max_hops;
} cs;

static int routes_init(void) {
  const struct chip_desc *c = timing_g.chip;
  int tiles = chip_num_tiles(c), mcs = chip_num_mcs(c), me = chip_tile_of_core(c, timing_g.core);
  cs.tile_route = malloc(sizeof(int) * (size_t)tiles * (size_t)cs.max_hops);
  cs.tile_hops = malloc(sizeof(int) * (size_t)tiles);
  cs.mc_route = malloc(sizeof(int) * (size_t)mcs * (size_t)cs.max_hops);
  cs.mc_hops = malloc(sizeof(int) * (size_t)mcs);
  if (!cs.tile_route || !cs.tile_hops || !cs.mc_route || !cs.mc_hops) return -1;
  for (int t = 0; t < tiles; t++)
    cs.tile_hops[t] = chip_route(c, me, t, cs.tile_route + (size_t)t * (size_t)cs.max_hops, cs.max_hops);
  for (int m = 0; m < mcs; m++)
    cs.mc_hops[m] = chip_mc_route(c, me, m, cs.mc_route + (size_t)m * (size_t)cs.max_hops, cs.max_hops);
  return 0;
}

int timing_contention_init(void) {
  const struct chip_desc *c = timing_g.chip;
  int nue = (int)timing_g.job->hdr->nue;
  cs.n_res = (int)timing_g.n_resources;
  cs.first_port = chip_num_mcs(c);
  cs.first_link = cs.first_port + chip_num_tiles(c);
  cs.max_hops = chip_max_route(c);
  cs.busy_ps = calloc((size_t)cs.n_res, sizeof *cs.busy_ps);
  cs.active = calloc((size_t)cs.n_res, sizeof *cs.active);
  cs.listed = calloc((size_t)cs.n_res, sizeof *cs.listed);
  cs.others = calloc((size_t)cs.n_res, sizeof *cs.others);
  cs.seen = calloc((size_t)cs.n_res, sizeof *cs.seen);
  cs.peer = calloc((size_t)nue, sizeof *cs.peer);
  if (!cs.busy_ps || !cs.active || !cs.listed || !cs.others || !cs.seen || !cs.peer || routes_init() != 0) return -1;
  for (int u = 0; u < nue; u++) cs.peer[u] = timing_windows_of(timing_g.job, u);
  timing_g.window_ps = (uint64_t)(c->lat.contention_window_ns * 1000);
  cs.window = timing_g.clock->now_ps / timing_g.window_ps;
  timing_g.window_end_ps = (cs.window + 1) * timing_g.window_ps;
  timing_g.window = cs.window;
  cs.synced = 0;
  timing_floor_init(cs.window);
  return 0;
}

/* Publish my busy time in the window my clock is in, so far (a slot per
 * window, timing_shared.h; the tag last, so a reader sees a whole window or
 * none): when the clock leaves it, and before I am announced blocked (the
 * others may then read it). */
void timing_contention_publish(void) {
  if (!cs.n_active) return;
  uint64_t *slot = timing_window_slot(timing_g.windows, timing_g.n_resources, cs.window);
  __atomic_store_n(&slot[0], 0, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  for (int r = 0; r < cs.n_res; r++)
    __atomic_store_n(&slot[1 + r], cs.listed[r] ? (uint64_t)(cs.busy_ps[r] + 0.5) : 0, __ATOMIC_RELAXED);
  __atomic_store_n(&slot[0], cs.window + 1, __ATOMIC_RELEASE);
}

void timing_contention_cross(void) {
  timing_contention_publish();
  for (int i = 0; i < cs.n_active; i++) cs.busy_ps[cs.active[i]] = 0, cs.listed[cs.active[i]] = 0;
  cs.n_active = 0;
  cs.window = timing_g.clock->now_ps / timing_g.window_ps;
  timing_g.window_end_ps = (cs.window + 1) * timing_g.window_ps;
  timing_g.window = cs.window;
  timing_floor_at(cs.window);
}

void timing_contention_resume(void) {
  if (timing_g.clock->now_ps >= timing_g.window_end_ps) timing_contention_cross();
  else timing_floor_at(cs.window);
}

void timing_contention_finalize(void) {
  timing_contention_publish();
  timing_floor_finalize();
  free(cs.others), free(cs.seen), free(cs.active), free(cs.listed), free(cs.busy_ps), free(cs.peer),
      free(cs.tile_route), free(cs.tile_hops), free(cs.mc_route), free(cs.mc_hops);
  memset(&cs, 0, sizeof cs);
}

/* The other UEs' summed utilisation of resource r in window `window`, which
 * they are all past. */
static double others_utilisation(int r, uint64_t window) {
  uint64_t busy = 0;
  for (int u = 0; u < (int)timing_g.job->hdr->nue; u++) {
    if (u == timing_g.ue) continue;
    const uint64_t *slot = timing_window_slot(cs.peer[u], timing_g.n_resources, window);
    if (__atomic_load_n(&slot[0], __ATOMIC_ACQUIRE) != window + 1) continue;
    uint64_t b = __atomic_load_n(&slot[1 + r], __ATOMIC_RELAXED);
    /* Read again: a plain build's UE may be rewriting the slot (counted
     * ones are past it for good). */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&slot[0], __ATOMIC_RELAXED) == window + 1) busy += b;
  }
  return (double)busy / (double)timing_g.window_ps;
}

/* n uses of resource r, service_ps each: the expected queueing delay. */
static double use(int r, double service_ps, double n) {
  if (timing_floor_blocked || timing_g.clock->now_ps >= timing_g.window_end_ps) timing_contention_resume();
  cs.busy_ps[r] += service_ps * n;
  if (!cs.listed[r]) cs.listed[r] = 1, cs.active[cs.n_active++] = r;
  if (cs.seen[r] != cs.window + 1) {
    cs.seen[r] = cs.window + 1;
    cs.others[r] = 0;
    if (cs.window >= TIMING_WINDOW_LAG) {
      uint64_t read = cs.window - TIMING_WINDOW_LAG;
      /* A plain build's clock moves only at runtime calls (a loop waiting
       * on memory would stop it for good): it reads what is there. */
      if (cs.synced != cs.window + 1 && timing_g.counted) timing_floor_wait(read + 1);
      cs.synced = cs.window + 1;
      cs.others[r] = others_utilisation(r, read);
    }
  }
  double rho = cs.others[r];
  if (rho <= 0) return 0;
  if (rho > RHO_MAX) rho = RHO_MAX;
  return n * service_ps * rho / (2 * (1 - rho));
}

/* A mesh link carries a line in link_service_cycles; a board's link to the
 * others one in board_write_ack_ns, the pace at which writes pipeline
 * through it ([SCC-2BOARD] Fig. 3: 16 MB/s). */
static double links_wait(const int *route, int hops, double n) {
  const struct chip_desc *c = timing_g.chip;
  double link_ps = c->lat.link_service_cycles * 1e6 / c->mesh_mhz, board_ps = c->lat.board_write_ack_ns * 1000, w = 0;
  int mesh_links = chip_num_tiles(c) * CHIP_LINK_DIRECTIONS;
  for (int i = 0; i < hops; i++) w += use(cs.first_link + route[i], route[i] < mesh_links ? link_ps : board_ps, n);
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

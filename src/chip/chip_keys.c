/* The keys of chip files and their valid ranges (docs/chips.md "Chip files"), and
 * the consistency checks every chip passes (chip_validate). */
#include "chip_keys.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "text_input.h"

/* The ranges bound every value to what the models can represent (virtual
 * time is kept in 64-bit picoseconds, energy in doubles) with wide room
 * around the SCC's own values, so a typo such as a missing decimal point
 * or a unit slip is an error instead of a run with absurd results. */
#define KEY(name, field, type, min, max, unit) \
  { name, offsetof(struct chip_desc, field), type, min, max, unit }
/* ...: min, max, unit (LATENCY and OPERATION stand for min, max) */
#define INT_KEY(field, ...) KEY(#field, field, CHIP_KEY_INT, __VA_ARGS__)
#define LAT_KEY(field, type, ...) KEY("lat_" #field, lat.field, type, __VA_ARGS__)
#define TIME_KEY(field, type, ...) KEY("time_" #field, time.field, type, __VA_ARGS__)
#define CACHE_KEY(field, ...) KEY("cache_" #field, cache.field, CHIP_KEY_INT, __VA_ARGS__)
#define POWER_KEY(field, ...) KEY("power_" #field, power.field, CHIP_KEY_DOUBLE, __VA_ARGS__)
#define LATENCY 0, 1e6   /* cycles of one access */
#define OPERATION 0, 1e9 /* cycles of one software or kernel operation, up to ~2 s at 533 MHz */
static const struct chip_key keys[] = {
    KEY("name", name, CHIP_KEY_NAME, 1, CHIP_NAME_LEN - 1, "bytes"),
    INT_KEY(boards, 1, CHIP_MAX_BOARDS, "boards"),
    INT_KEY(sif_tile_x, 0, CHIP_MAX_CORES - 1, "tile column"),
    INT_KEY(sif_tile_y, 0, CHIP_MAX_CORES - 1, "tile row"),
    INT_KEY(tiles_x, 1, CHIP_MAX_CORES, "tiles"),
    INT_KEY(tiles_y, 1, CHIP_MAX_CORES, "tiles"),
    INT_KEY(cores_per_tile, 1, CHIP_MAX_CORES, "cores"),
    INT_KEY(line_bytes, 8, 4096, "bytes, a power of two"),
    INT_KEY(mpb_bytes_per_core, 32, 1 << 20, "bytes"),
    INT_KEY(vdomain_tiles_x, 1, CHIP_MAX_CORES, "tiles"),
    INT_KEY(vdomain_tiles_y, 1, CHIP_MAX_CORES, "tiles"),
    INT_KEY(global_clock_mhz, 1, 100000, "MHz"),
    INT_KEY(divider_min, 1, 1024, "divider"),
    INT_KEY(divider_max, 1, 1024, "divider"),
    INT_KEY(default_divider, 1, 1024, "divider"),
    INT_KEY(mesh_mhz, 1, 100000, "MHz"),
    INT_KEY(ddr_mhz, 1, 100000, "MHz"),
    LAT_KEY(mpb_read_local, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(mpb_read_remote, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(mpb_write_local, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(mpb_write_remote, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(mesh_cycles_per_hop, CHIP_KEY_DOUBLE, LATENCY, "mesh cycles"),
    LAT_KEY(ddr_core, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(ddr_memory, CHIP_KEY_DOUBLE, LATENCY, "memory cycles"),
    LAT_KEY(ddr_outstanding_reads, CHIP_KEY_INT, 1, 64, "reads"),
    LAT_KEY(mc_service_ns, CHIP_KEY_DOUBLE, 0, 1e6, "ns"),
    LAT_KEY(link_service_cycles, CHIP_KEY_DOUBLE, LATENCY, "mesh cycles"),
    LAT_KEY(mpb_service_cycles, CHIP_KEY_DOUBLE, LATENCY, "mesh cycles"),
    LAT_KEY(mc_page_bytes, CHIP_KEY_DOUBLE, 8, 1099511627776.0, "bytes"),
    LAT_KEY(contention_window_ns, CHIP_KEY_DOUBLE, 1, 1e12, "ns"),
    LAT_KEY(interrupt_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    LAT_KEY(l2_read, CHIP_KEY_DOUBLE, LATENCY, "core cycles"),
    LAT_KEY(board_read_ns, CHIP_KEY_DOUBLE, 0, 1e9, "ns"),
    LAT_KEY(board_write_ns, CHIP_KEY_DOUBLE, 0, 1e9, "ns"),
    LAT_KEY(board_write_ack_ns, CHIP_KEY_DOUBLE, 0, 1e9, "ns"),
    CACHE_KEY(l1_bytes, 0, 1 << 30, "bytes (0: no caches)"),
    CACHE_KEY(l1_ways, 1, 64, "ways"),
    CACHE_KEY(l2_bytes, 0, 1 << 30, "bytes (0: no level 2)"),
    CACHE_KEY(l2_ways, 1, 64, "ways"),
    /* compute_slowdown: the SCC's P54C is ~125 times slower than the
     * development host (docs/model.md); 1000 keeps a long run's virtual
     * time far inside 64-bit picoseconds. */
    TIME_KEY(compute_slowdown, CHIP_KEY_DOUBLE, 0, 1000, "P54C time / host time"),
    TIME_KEY(compute_ref_mhz, CHIP_KEY_INT, 1, 100000, "MHz"),
    TIME_KEY(compute_min_ns, CHIP_KEY_DOUBLE, 0, 1e9, "ns"),
    TIME_KEY(compute_bb_cycles, CHIP_KEY_DOUBLE, 0, 1e6, "core cycles per basic block without its own price"),
    TIME_KEY(sw_call_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(sw_step_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(mpi_openmpi_call_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(mpi_mpich_call_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(dvfs_voltage_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(dvfs_frequency_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(mailbox_check_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(svm_fault_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(svm_frame_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(svm_reserve_page_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles"),
    TIME_KEY(copy_word_cycles, CHIP_KEY_DOUBLE, OPERATION, "core cycles per 32-bit word"),
    POWER_KEY(core_dynamic, 0, 0.1, "W / (V^2 MHz)"),
    POWER_KEY(idle_activity, 0, 1, "activity"),
    POWER_KEY(stall_activity, 0, 1, "activity"),
    POWER_KEY(poll_activity, 0, 1, "activity"),
    POWER_KEY(domain_static, 0, 10000, "W"),
    POWER_KEY(static_ref_volts, 0.1, 5, "V"),
    POWER_KEY(uncore, 0, 10000, "W"),
};
_Static_assert(sizeof keys / sizeof keys[0] == CHIP_NUM_KEYS, "CHIP_NUM_KEYS counts the keys");

int chip_key_index(const char *name) {
  for (int k = 0; k < CHIP_NUM_KEYS; k++)
    if (strcmp(keys[k].name, name) == 0) return k;
  return -1;
}

int chip_key_range(const char *name, double *min, double *max) {
  int k = chip_key_index(name);
  if (k < 0) return -1;
  *min = keys[k].min;
  *max = keys[k].max;
  return 0;
}

static void *field_of(const struct chip_desc *c, const struct chip_key *k) { return (char *)c + k->offset; }

int chip_key_set(struct chip_desc *c, int k, const char *value, char *err, size_t errlen) {
  const struct chip_key *key = &keys[k];
  void *field = field_of(c, key);
  long long i;
  double d;
  switch (key->type) {
    case CHIP_KEY_NAME:
      if (strlen(value) >= key->min && strlen(value) <= key->max) {
        snprintf(field, CHIP_NAME_LEN, "%s", value);
        return 0;
      }
      snprintf(err, errlen, "%s = '%s': expected 1 to %d bytes", key->name, value, CHIP_NAME_LEN - 1);
      return -1;
    case CHIP_KEY_INT:
      if (chip_text_parse_int(value, (long long)key->min, (long long)key->max, &i) == 0) {
        *(int *)field = (int)i;
        return 0;
      }
      snprintf(err, errlen, "%s = '%s': expected an integer from %.15g to %.15g (%s)", key->name, value, key->min,
               key->max, key->unit);
      return -1;
    case CHIP_KEY_DOUBLE:
      if (chip_text_parse_double(value, key->min, key->max, &d) == 0) {
        *(double *)field = d;
        return 0;
      }
      snprintf(err, errlen, "%s = '%s': expected a number from %.15g to %.15g (%s)", key->name, value, key->min,
               key->max, key->unit);
      return -1;
  }
  return -1;
}

/* Fill *p; keys after why are the keys involved (NULL-terminated). */
#define PROBLEM(mc_index, ...) (p->mc = (mc_index), set_keys(p, (const char *[]){__VA_ARGS__, NULL}), 1)
static void set_keys(struct chip_problem *p, const char **keys_involved) {
  int n = 0;
  for (; keys_involved[n] && n < 3; n++) p->keys[n] = keys_involved[n];
  p->keys[n] = NULL;
}

/* A value of a key outside its range: only a preset built in code can have
 * one (chip files and parametric names are checked as they are read). */
static int out_of_range(const struct chip_desc *c, struct chip_problem *p) {
  for (int k = 0; k < CHIP_NUM_KEYS; k++) {
    const struct chip_key *key = &keys[k];
    double v = key->type == CHIP_KEY_INT      ? *(const int *)field_of(c, key)
               : key->type == CHIP_KEY_DOUBLE ? *(const double *)field_of(c, key)
                                              : (double)strlen(c->name);
    if (!(v >= key->min && v <= key->max)) {
      snprintf(p->why, sizeof p->why, "%s = %.15g is outside %.15g..%.15g (%s)", key->name, v, key->min, key->max,
               key->unit);
      return PROBLEM(-1, key->name);
    }
  }
  return 0;
}

/* The divider range, the clocks it gives and their voltage levels. */
static int clock_problem(const struct chip_desc *c, struct chip_problem *p) {
  if (c->divider_max < c->divider_min) {
    snprintf(p->why, sizeof p->why, "divider_max = %d is below divider_min = %d", c->divider_max, c->divider_min);
    return PROBLEM(-1, "divider_min", "divider_max");
  }
  if (c->default_divider < c->divider_min || c->default_divider > c->divider_max) {
    snprintf(p->why, sizeof p->why, "default_divider = %d is outside divider_min..divider_max = %d..%d",
             c->default_divider, c->divider_min, c->divider_max);
    return PROBLEM(-1, "default_divider", "divider_min", "divider_max");
  }
  /* chip_tile_mhz is an integer MHz that the timing model divides by. */
  if (chip_tile_mhz(c, c->divider_max) < 1) {
    snprintf(p->why, sizeof p->why, "global_clock_mhz / divider_max = %d / %d is below 1 MHz", c->global_clock_mhz,
             c->divider_max);
    return PROBLEM(-1, "global_clock_mhz", "divider_max");
  }
  if (c->n_vlevels < 1 || c->n_vlevels > CHIP_MAX_VLEVELS) {
    snprintf(p->why, sizeof p->why, "need 1..%d vlevel lines", CHIP_MAX_VLEVELS);
    return PROBLEM(-1, "vlevel");
  }
  if (chip_vlevel_for_divider(c, c->default_divider) < 0) {
    snprintf(p->why, sizeof p->why,
             "no vlevel admits the default tile clock, global_clock_mhz / default_divider = %d MHz",
             chip_tile_mhz(c, c->default_divider));
    return PROBLEM(-1, "vlevel", "global_clock_mhz", "default_divider");
  }
  return 0;
}

/* A cache of `bytes` in `ways` needs a power-of-two number of sets of whole lines. */
static int cache_problem(const struct chip_desc *c, struct chip_problem *p) {
  static const char *const bytes_key[] = {"cache_l1_bytes", "cache_l2_bytes"};
  const int bytes[] = {c->cache.l1_bytes, c->cache.l2_bytes}, ways[] = {c->cache.l1_ways, c->cache.l2_ways};
  for (int i = 0; i < 2; i++) {
    if (bytes[i] == 0) continue;
    long long sets = bytes[i] / ((long long)c->line_bytes * ways[i]);
    if (sets < 1 || sets * c->line_bytes * ways[i] != bytes[i] || (sets & (sets - 1))) {
      snprintf(p->why, sizeof p->why, "%s = %d is not a power of two of sets of %d ways of line_bytes = %d",
               bytes_key[i], bytes[i], ways[i], c->line_bytes);
      return PROBLEM(-1, bytes_key[i], "line_bytes");
    }
  }
  return 0;
}

static int geometry_problem(const struct chip_desc *c, struct chip_problem *p) {
  /* 64-bit product: each factor is at most 1024 here, but a desc built in
   * code must not wrap around either. */
  long long cores = (long long)c->tiles_x * c->tiles_y * c->cores_per_tile * c->boards;
  if (cores > CHIP_MAX_CORES) {
    char boards[32] = ""; /* named only when there are several */
    if (c->boards > 1) snprintf(boards, sizeof boards, " x %d", c->boards);
    snprintf(p->why, sizeof p->why, "tiles_x x tiles_y x cores_per_tile%s = %d x %d x %d%s = %lld cores, more than %d",
             c->boards > 1 ? " x boards" : "", c->tiles_x, c->tiles_y, c->cores_per_tile, boards, cores,
             CHIP_MAX_CORES);
    return c->boards > 1 ? PROBLEM(-1, "boards", "tiles_x", "tiles_y")
                         : PROBLEM(-1, "tiles_x", "tiles_y", "cores_per_tile");
  }
  if (c->boards > 1 && (c->sif_tile_x >= c->tiles_x || c->sif_tile_y >= c->tiles_y)) { /* one board: unused */
    snprintf(p->why, sizeof p->why,
             "sif_tile_x, sif_tile_y = %d,%d lies outside the mesh of tiles_x x tiles_y = %d x %d", c->sif_tile_x,
             c->sif_tile_y, c->tiles_x, c->tiles_y);
    return PROBLEM(-1, "sif_tile_x", "sif_tile_y", "tiles_x");
  }
  if (c->lat.board_write_ack_ns > c->lat.board_write_ns) {
    snprintf(p->why, sizeof p->why, "lat_board_write_ack_ns = %.15g is above lat_board_write_ns = %.15g",
             c->lat.board_write_ack_ns, c->lat.board_write_ns);
    return PROBLEM(-1, "lat_board_write_ack_ns", "lat_board_write_ns");
  }
  if (c->line_bytes & (c->line_bytes - 1)) {
    snprintf(p->why, sizeof p->why, "line_bytes = %d is not a power of two", c->line_bytes);
    return PROBLEM(-1, "line_bytes");
  }
  if (c->mpb_bytes_per_core < 4 * c->line_bytes || c->mpb_bytes_per_core % c->line_bytes) {
    snprintf(p->why, sizeof p->why, "mpb_bytes_per_core = %d is not a multiple of line_bytes = %d of at least 4 lines",
             c->mpb_bytes_per_core, c->line_bytes);
    return PROBLEM(-1, "mpb_bytes_per_core", "line_bytes");
  }
  if (c->lat.mc_page_bytes < c->line_bytes) {
    snprintf(p->why, sizeof p->why, "lat_mc_page_bytes = %.15g is smaller than line_bytes = %d", c->lat.mc_page_bytes,
             c->line_bytes);
    return PROBLEM(-1, "lat_mc_page_bytes", "line_bytes");
  }
  if (c->n_mc < 1) {
    snprintf(p->why, sizeof p->why, "need at least one mc line");
    return PROBLEM(-1, "mc");
  }
  if (c->n_mc * c->boards > CHIP_MAX_MC) {
    snprintf(p->why, sizeof p->why, "%d memory controllers (mc lines) per board x %d boards is more than %d", c->n_mc,
             c->boards, CHIP_MAX_MC);
    return PROBLEM(-1, "mc", "boards");
  }
  for (int i = 0; i < c->n_mc; i++)
    if (c->mc[i].tile_x < 0 || c->mc[i].tile_x >= c->tiles_x || c->mc[i].tile_y < 0 || c->mc[i].tile_y >= c->tiles_y) {
      snprintf(p->why, sizeof p->why, "mc = %d,%d lies outside the mesh of tiles_x x tiles_y = %d x %d tiles",
               c->mc[i].tile_x, c->mc[i].tile_y, c->tiles_x, c->tiles_y);
      return PROBLEM(i, "mc", "tiles_x", "tiles_y");
    }
  return 0;
}

int chip_find_problem(const struct chip_desc *c, struct chip_problem *p) {
  return out_of_range(c, p) || geometry_problem(c, p) || cache_problem(c, p) || clock_problem(c, p);
}

int chip_validate(const struct chip_desc *c, char *err, size_t errlen) {
  struct chip_problem p;
  if (!chip_find_problem(c, &p)) return 0;
  snprintf(err, errlen, "chip '%s': %s", c->name, p.why);
  return -1;
}

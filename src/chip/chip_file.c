/* Chip files: "key = value" lines on top of a base preset (docs/chips.md). */
#include "chip.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Numeric keys: a field of struct chip_desc, an int or a double.  The
 * timing and power models' constants (docs/model.md) are "lat_", "time_"
 * or "power_" + the field name. */
struct num_key {
  const char *key;
  size_t offset;
  int is_double;
};

#define INT_KEY(field) {#field, offsetof(struct chip_desc, field), 0}
#define LAT_KEY(field, dbl) {"lat_" #field, offsetof(struct chip_desc, lat.field), dbl}
#define TIME_KEY(field, dbl) {"time_" #field, offsetof(struct chip_desc, time.field), dbl}
#define POWER_KEY(field) {"power_" #field, offsetof(struct chip_desc, power.field), 1}
static const struct num_key num_keys[] = {
    INT_KEY(tiles_x),         INT_KEY(tiles_y),         INT_KEY(cores_per_tile),
    INT_KEY(line_bytes),      INT_KEY(mpb_bytes_per_core), INT_KEY(vdomain_tiles_x),
    INT_KEY(vdomain_tiles_y), INT_KEY(global_clock_mhz), INT_KEY(divider_min),
    INT_KEY(divider_max),     INT_KEY(default_divider), INT_KEY(mesh_mhz),
    INT_KEY(ddr_mhz),
    LAT_KEY(mpb_read_local, 1), LAT_KEY(mpb_read_remote, 1), LAT_KEY(mpb_write_local, 1),
    LAT_KEY(mpb_write_remote, 1), LAT_KEY(mesh_cycles_per_hop, 1), LAT_KEY(ddr_core, 1),
    LAT_KEY(ddr_memory, 1), LAT_KEY(ddr_outstanding_reads, 0), LAT_KEY(mc_service_ns, 1),
    LAT_KEY(link_service_cycles, 1), LAT_KEY(mpb_service_cycles, 1), LAT_KEY(mc_page_bytes, 1),
    LAT_KEY(contention_window_ns, 1), LAT_KEY(interrupt_cycles, 1),
    TIME_KEY(compute_slowdown, 1), TIME_KEY(compute_ref_mhz, 0), TIME_KEY(compute_min_ns, 1), TIME_KEY(compute_bb_cycles, 1),
    TIME_KEY(sw_call_cycles, 1),
    TIME_KEY(sw_step_cycles, 1), TIME_KEY(dvfs_voltage_cycles, 1), TIME_KEY(dvfs_frequency_cycles, 1),
    TIME_KEY(mailbox_check_cycles, 1), TIME_KEY(svm_fault_cycles, 1), TIME_KEY(svm_frame_cycles, 1),
    TIME_KEY(svm_reserve_page_cycles, 1),
    POWER_KEY(core_dynamic), POWER_KEY(idle_activity), POWER_KEY(domain_static),
    POWER_KEY(static_ref_volts), POWER_KEY(uncore),
};

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

static int set_key(struct chip_desc *c, const char *key, const char *val, int *mc_seen, int *vl_seen) {
  char *end = NULL;
  if (strcmp(key, "base") == 0) return -2; /* only valid as the first key */
  if (strcmp(key, "name") == 0) {
    snprintf(c->name, sizeof c->name, "%s", val);
    return 0;
  }
  if (strcmp(key, "mc") == 0) {
    if (!*mc_seen) c->n_mc = 0;
    *mc_seen = 1;
    int x, y;
    if (c->n_mc >= CHIP_MAX_MC || sscanf(val, "%d , %d", &x, &y) != 2) return -1;
    c->mc[c->n_mc++] = (struct chip_mc){x, y};
    return 0;
  }
  if (strcmp(key, "vlevel") == 0) {
    if (!*vl_seen) c->n_vlevels = 0;
    *vl_seen = 1;
    double v;
    int mhz;
    if (c->n_vlevels >= CHIP_MAX_VLEVELS || sscanf(val, "%lf , %d", &v, &mhz) != 2) return -1;
    c->vlevel[c->n_vlevels++] = (struct chip_vlevel){v, mhz};
    return 0;
  }
  for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++) {
    if (strcmp(key, num_keys[i].key) != 0) continue;
    void *field = (char *)c + num_keys[i].offset;
    if (num_keys[i].is_double) *(double *)field = strtod(val, &end);
    else *(int *)field = (int)strtol(val, &end, 0);
    return end == val || *trim(end) != '\0' ? -1 : 0;
  }
  return -3;
}

static int load_file(const char *path, struct chip_desc *c, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open chip file '%s'", path);
    return -1;
  }
  char line[512];
  int lineno = 0, mc_seen = 0, vl_seen = 0, have_base = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *s = trim(line);
    if (!*s) continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    if (strcmp(key, "base") == 0) {
      if (have_base) {
        snprintf(err, errlen, "%s:%d: 'base' must come first", path, lineno);
        rc = -1;
      } else if (chip_preset(val, c, err, errlen) != 0) {
        rc = -1;
      }
      have_base = 1;
      continue;
    }
    if (!have_base) chip_preset("scc", c, err, errlen);
    have_base = 1;
    int r = set_key(c, key, val, &mc_seen, &vl_seen);
    if (r == -3) snprintf(err, errlen, "%s:%d: unknown key '%s'", path, lineno, key);
    else if (r != 0) snprintf(err, errlen, "%s:%d: bad value '%s' for '%s'", path, lineno, val, key);
    if (r != 0) rc = -1;
  }
  fclose(f);
  if (rc == 0 && !have_base) chip_preset("scc", c, err, errlen);
  return rc == 0 ? chip_validate(c, err, errlen) : rc;
}

int chip_load(const char *name_or_path, struct chip_desc *out, char *err, size_t errlen) {
  struct stat st;
  if (strchr(name_or_path, '/') || stat(name_or_path, &st) == 0) return load_file(name_or_path, out, err, errlen);
  return chip_preset(name_or_path, out, err, errlen);
}

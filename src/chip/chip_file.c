/* Chip files: "key = value" lines on top of a base preset (docs/chips.md).
 * Every value is range-checked as it is read; a chip that is inconsistent as
 * a whole is reported at the line that set the last of the keys involved. */
#include "chip.h"

#include <stdio.h>
#include <string.h>

#include "chip_keys.h"
#include "text_input.h"

/* What a chip file has set so far, and on which lines (0: not set). */
struct chip_reader {
  struct text_file tf;
  struct chip_desc *c;
  int have_base;
  int key_line[CHIP_NUM_KEYS];
  int mc_line[CHIP_MAX_MC];
  int n_mc_lines, vlevel_line;
  char why[512];
};

/* "A,B": two values separated by a comma, each trimmed; returns 0 or -1. */
static int split_pair(char *val, char **a, char **b) {
  char *comma = strchr(val, ',');
  if (!comma) return -1;
  *comma = '\0';
  char *end = comma;
  while (end > val && (end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
  *a = val;
  *b = comma + 1 + strspn(comma + 1, " \t");
  return 0;
}

/* "mc = X,Y": the first mc line replaces the base's list. */
static int add_mc(struct chip_reader *r, char *val) {
  struct chip_desc *c = r->c;
  char *xs, *ys;
  long long x, y;
  /* The message first: split_pair cuts val. */
  snprintf(r->why, sizeof r->why, "mc = '%s': expected X,Y, tile coordinates from 0 to %d", val, CHIP_MAX_CORES - 1);
  if (split_pair(val, &xs, &ys) || chip_text_parse_int(xs, 0, CHIP_MAX_CORES - 1, &x) ||
      chip_text_parse_int(ys, 0, CHIP_MAX_CORES - 1, &y))
    return -1;
  if (r->n_mc_lines == CHIP_MAX_MC) {
    snprintf(r->why, sizeof r->why, "mc: more than %d memory controllers", CHIP_MAX_MC);
    return -1;
  }
  c->mc[r->n_mc_lines] = (struct chip_mc){(int)x, (int)y};
  r->mc_line[r->n_mc_lines++] = r->tf.lineno;
  c->n_mc = r->n_mc_lines;
  return 0;
}

/* "vlevel = VOLTS,MAX_MHZ": the first vlevel line replaces the base's table. */
static int add_vlevel(struct chip_reader *r, char *val) {
  struct chip_desc *c = r->c;
  char *vs, *ms;
  double volts;
  long long mhz;
  snprintf(r->why, sizeof r->why, "vlevel = '%s': expected VOLTS,MAX_MHZ with 0.1 to 5 V and 1 to 100000 MHz", val);
  if (split_pair(val, &vs, &ms) || chip_text_parse_double(vs, 0.1, 5, &volts) ||
      chip_text_parse_int(ms, 1, 100000, &mhz))
    return -1;
  if (!r->vlevel_line) c->n_vlevels = 0;
  if (c->n_vlevels == CHIP_MAX_VLEVELS) {
    snprintf(r->why, sizeof r->why, "vlevel: more than %d voltage levels", CHIP_MAX_VLEVELS);
    return -1;
  }
  c->vlevel[c->n_vlevels++] = (struct chip_vlevel){volts, (int)mhz};
  r->vlevel_line = r->tf.lineno;
  return 0;
}

/* "base = PRESET" may only come first; without it the base is scc. */
static int set_base(struct chip_reader *r, const char *key, const char *val) {
  int is_base = strcmp(key, "base") == 0;
  if (r->have_base) {
    if (!is_base) return 0;
    snprintf(r->why, sizeof r->why, "base: must be the first key");
    return -1;
  }
  r->have_base = 1;
  char why[400];
  if (chip_preset(is_base ? val : "scc", r->c, why, sizeof why) == 0) return 0;
  snprintf(r->why, sizeof r->why, "base = '%s': %s", val, why);
  return -1;
}

static int apply_line(struct chip_reader *r, char *line) {
  char *eq = strchr(line, '=');
  if (!eq) {
    snprintf(r->why, sizeof r->why, "expected 'key = value', got '%s'", line);
    return -1;
  }
  char *end = eq;
  while (end > line && (end[-1] == ' ' || end[-1] == '\t')) end--;
  *end = '\0';
  const char *key = line;
  char *val = eq + 1 + strspn(eq + 1, " \t");
  if (set_base(r, key, val)) return -1;
  if (strcmp(key, "base") == 0) return 0;
  if (strcmp(key, "mc") == 0) return add_mc(r, val);
  if (strcmp(key, "vlevel") == 0) return add_vlevel(r, val);
  int k = chip_key_index(key);
  if (k < 0) {
    snprintf(r->why, sizeof r->why, "unknown key '%s'", key);
    return -1;
  }
  r->key_line[k] = r->tf.lineno;
  return chip_key_set(r->c, k, val, r->why, sizeof r->why);
}

/* The line that set key (mc: controller mc_index, or the last mc line). */
static int line_of(const struct chip_reader *r, const char *key, int mc_index) {
  if (strcmp(key, "mc") == 0)
    return mc_index >= 0 && mc_index < r->n_mc_lines ? r->mc_line[mc_index]
           : r->n_mc_lines                           ? r->mc_line[r->n_mc_lines - 1]
                                                     : 0;
  if (strcmp(key, "vlevel") == 0) return r->vlevel_line;
  int k = chip_key_index(key);
  return k >= 0 ? r->key_line[k] : 0;
}

/* A whole-chip problem, at the line that set the last of its keys. */
static int check_chip(struct chip_reader *r, char *err, size_t errlen) {
  struct chip_problem p;
  if (!chip_find_problem(r->c, &p)) return 0;
  int line = 0;
  for (int i = 0; p.keys[i]; i++)
    if (line_of(r, p.keys[i], p.mc) > line) line = line_of(r, p.keys[i], p.mc);
  if (line) snprintf(err, errlen, "%s:%d: %s", r->tf.path, line, p.why);
  else snprintf(err, errlen, "%s: %s", r->tf.path, p.why);
  return -1;
}

static int load_file(const char *path, struct chip_desc *c, char *err, size_t errlen) {
  struct chip_reader r = {.c = c};
  if (chip_text_file_open(&r.tf, path, "chip file", err, errlen)) return -1;
  char *line;
  int got, rc = 0;
  while (rc == 0 && (got = chip_text_file_line(&r.tf, &line, err, errlen)) != 0) {
    if (got < 0) rc = -1;
    else if (*line && apply_line(&r, line)) {
      snprintf(err, errlen, "%s:%d: %s", path, r.tf.lineno, r.why);
      rc = -1;
    }
  }
  if (rc == 0 && !r.have_base) rc = set_base(&r, "base", "scc");
  if (rc == 0) rc = check_chip(&r, err, errlen);
  chip_text_file_close(&r.tf);
  return rc;
}

/* A bare name is a preset: a file in the current directory named "scc" must
 * not replace the built-in chip.  A file is named by a path with a '/' or a
 * file name with an extension. */
int chip_load(const char *name_or_path, struct chip_desc *out, char *err, size_t errlen) {
  if (strchr(name_or_path, '/') || strchr(name_or_path, '.')) return load_file(name_or_path, out, err, errlen);
  return chip_preset(name_or_path, out, err, errlen);
}

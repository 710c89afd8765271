/* rccerun's command line: a walk over the option table (option_table.c),
 * then the checks that need the chip -- cores, hostfile, -clock -- and the
 * program's path. */
#define _GNU_SOURCE
#include "options.h"

#include "../chip/text_input.h"
#include "../mpi/channel.h"
#include "option_table.h"
#include "../../include/scc_lut.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_long(const char *s, long lo, long hi, long *out) {
  long long v;
  if (chip_text_parse_int(s, lo, hi, &v)) return -1;
  *out = (long)v;
  return 0;
}

/* "0,47" or "0-7,16": appends cores; returns the count or -1. */
static int parse_core_list(const char *s, int *cores, int max) {
  int n = 0;
  char *copy = strdup(s), *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long a, b;
    char *dash = strchr(tok, '-');
    if (dash) *dash = '\0';
    if (parse_long(tok, 0, CHIP_MAX_CORES - 1, &a) || (dash && parse_long(dash + 1, 0, CHIP_MAX_CORES - 1, &b))) {
      n = -1;
      break;
    }
    if (!dash) b = a;
    for (long c = a; c <= b && n >= 0; c++) {
      if (n == max) n = -1;
      else cores[n++] = (int)c;
    }
    if (n < 0 || a > b) {
      n = -1;
      break;
    }
  }
  free(copy);
  return n;
}

/* An SCC hostfile: core numbers separated by white space, '#' comments;
 * lines of any length.  Returns the count, or -1 with a message in err. */
static int read_hostfile(const char *path, int *cores, int max, char *err, size_t errlen) {
  struct text_file tf;
  if (chip_text_file_open(&tf, path, "hostfile", err, errlen)) return -1;
  int n = 0, got = 0;
  char *line;
  while (n >= 0 && (got = chip_text_file_line(&tf, &line, err, errlen)) > 0) {
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\v\f", &save); tok && n >= 0; tok = strtok_r(NULL, " \t\r\v\f", &save)) {
      long c;
      /* SCC hostfiles name cores "rck00" or "00". */
      if (parse_long(strncmp(tok, "rck", 3) == 0 ? tok + 3 : tok, 0, CHIP_MAX_CORES - 1, &c)) {
        snprintf(err, errlen, "%s:%d: '%s' is not a core number (00 to %d, or rck00 to rck%d)", path, tf.lineno, tok,
                 CHIP_MAX_CORES - 1, CHIP_MAX_CORES - 1);
        n = -1;
      } else if (n == max) {
        snprintf(err, errlen, "%s:%d: more than %d cores listed", path, tf.lineno, max);
        n = -1;
      } else {
        cores[n++] = (int)c;
      }
    }
  }
  chip_text_file_close(&tf);
  return got < 0 ? -1 : n;
}

/* -clock GHZ: the divider of the chip's global clock that gives it (rounded
 * to the nearest), in the divider range and with a voltage level. */
static int clock_divider(const struct chip_desc *c, const char *ghz_text, int *divider) {
  double ghz;
  if (chip_text_parse_double(ghz_text, 1e-6, 1e6, &ghz)) return -1;
  double d = c->global_clock_mhz / (ghz * 1000.0);
  if (!(d >= c->divider_min - 0.5 && d < c->divider_max + 0.5)) return -1;
  *divider = (int)lround(d);
  return chip_vlevel_for_divider(c, *divider) < 0 ? -1 : 0;
}

/* "-clock 'X' is no tile clock ...", with the chip's range of tile clocks. */
static int fail_clock(const struct chip_desc *c, const char *ghz_text) {
  int fastest = c->divider_min;
  while (fastest < c->divider_max && chip_vlevel_for_divider(c, fastest) < 0) fastest++;
  return launch_fail("-clock '%s' is no tile clock of this chip (global clock / divider in the allowed range: "
                     "%.4g to %.4g GHz)",
                     ghz_text, chip_tile_mhz(c, c->divider_max) / 1000.0, chip_tile_mhz(c, fastest) / 1000.0);
}

static int runnable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 ? 0 : -1;
}

static int resolve_program(const char *prog, char *out, size_t outlen) {
  if (strchr(prog, '/')) {
    snprintf(out, outlen, "%s", prog);
    return runnable(out);
  }
  snprintf(out, outlen, "./%s", prog); /* the SCC's rccerun ran programs from the current directory */
  if (runnable(out) == 0) return 0;
  const char *path = getenv("PATH");
  char *copy = strdup(path ? path : ""), *save = NULL;
  int rc = -1;
  for (char *dir = strtok_r(copy, ":", &save); dir && rc; dir = strtok_r(NULL, ":", &save)) {
    snprintf(out, outlen, "%s/%s", dir, prog);
    rc = runnable(out);
  }
  free(copy);
  return rc;
}

static char err[8192]; /* chip and hostfile errors: paths up to PATH_MAX, with a line and a key */

/* The options before the program's name (or "--"), each parsed by its row.
 * Returns the program's index, 0 after --help, or -1 after an error. */
static int parse_arguments(int argc, char **argv, struct launch_options *o) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) return i + 1;
    const struct launch_option *r = launch_option_named(a);
    if (!r) return launch_fail("unknown option '%s'", a);
    if (r->kind == LAUNCH_ARG_HELP) {
      launch_option_help(stdout);
      return 0;
    }
    if (r->kind == LAUNCH_ARG_FLAG) {
      launch_option_parse(r, NULL, o);
      continue;
    }
    if (i + 1 == argc) return launch_fail("option '%s' needs a value", a);
    if (launch_option_parse(r, argv[++i], o)) return -1;
  }
  return i;
}

/* --chip, with --boards and --compute-slowdown applied; the UEs must fit its cores. */
static int load_chip(struct launch_options *o) {
  if (chip_load(o->chip_name, &o->job.chip, err, sizeof err)) return launch_fail("%s", err);
  if (o->compute_slowdown >= 0) o->job.chip.time.compute_slowdown = o->compute_slowdown;
  if (o->boards > 0) {
    o->job.chip.boards = (int)o->boards;
    if (chip_validate(&o->job.chip, err, sizeof err)) return launch_fail("--boards %ld: %s", o->boards, err);
  }
  int chip_cores = chip_num_cores(&o->job.chip);
  if (o->job.nue > chip_cores)
    return launch_fail("%d UEs do not fit chip '%s' with %d cores", o->job.nue, o->job.chip.name, chip_cores);
  return 0;
}

/* The cores of --cores or -f; returns their count or -1. */
static int listed_cores(const struct launch_options *o, int *cores) {
  if (o->cores_text && o->hostfile) return launch_fail("give either --cores or -f, not both");
  if (o->cores_text) {
    int n = parse_core_list(o->cores_text, cores, HW_MAX_UES);
    return n < 0 ? launch_fail("bad --cores list '%s' (expected e.g. 0,47 or 0-7,16)", o->cores_text) : n;
  }
  int n = read_hostfile(o->hostfile, cores, HW_MAX_UES, err, sizeof err);
  return n < 0 ? launch_fail("%s", err) : n;
}

/* UE u on core u, or on the u-th listed core: one that exists, listed once. */
static int place_ues(struct launch_options *o) {
  static int cores[HW_MAX_UES];
  for (int u = 0; u < o->job.nue; u++) o->job.ue_core[u] = u;
  if (!o->cores_text && !o->hostfile) return 0;
  int n = listed_cores(o, cores), chip_cores = chip_num_cores(&o->job.chip);
  if (n < 0) return -1;
  if (n < o->job.nue) return launch_fail("%d cores listed for %d UEs", n, o->job.nue);
  for (int u = 0; u < o->job.nue; u++) {
    if (cores[u] >= chip_cores)
      return launch_fail("core %d does not exist on chip '%s' (cores 0..%d)", cores[u], o->job.chip.name,
                         chip_cores - 1);
    for (int v = 0; v < u; v++)
      if (cores[v] == cores[u]) return launch_fail("core %d is listed twice (UEs %d and %d)", cores[u], v, u);
    o->job.ue_core[u] = cores[u];
  }
  return 0;
}

/* --mpi-spawn-ues K: the job gets K spare UEs after the world's N, on the
 * chip's lowest cores the world does not use; MPI_Comm_spawn's ranks claim
 * them (rank/openscc_rank.c, docs/mpi.md "Dynamic processes"). */
static int add_spare_ues(struct launch_options *o) {
  o->mpi_world = o->job.nue;
  if (o->mpi_spawn_ues == 0) return 0;
  if (o->mpi == LAUNCH_MPI_NONE)
    return launch_fail("--mpi-spawn-ues applies to MPI jobs only: give --mpi openmpi or --mpi mpich too");
  int chip_cores = chip_num_cores(&o->job.chip), total = o->job.nue + o->mpi_spawn_ues;
  if (total > chip_cores)
    return launch_fail("%d UEs and %d spare UEs (--mpi-spawn-ues) do not fit chip '%s' with %d cores", o->job.nue,
                       o->mpi_spawn_ues, o->job.chip.name, chip_cores);
  static unsigned char used[HW_MAX_UES];
  memset(used, 0, sizeof used);
  for (int u = 0; u < o->job.nue; u++) used[o->job.ue_core[u]] = 1;
  for (int core = 0, u = o->job.nue; u < total; core++)
    if (!used[core]) o->job.ue_core[u++] = core;
  o->job.nue = total;
  return 0;
}

/* --copy-cores K: K UEs after the program's, each on the free core nearest
 * to a memory controller, the controllers taken in turn ([SVP-SCC] sec.
 * IV.B: copy cores at the chip's edges, around the controllers). */
static int add_copy_cores(struct launch_options *o) {
  int k = o->job.set.copy_cores;
  if (k == 0) return 0;
  if (o->mpi != LAUNCH_MPI_NONE) return launch_fail("--copy-cores applies to RCCE jobs, not to --mpi ones");
  const struct chip_desc *c = &o->job.chip;
  int chip_cores = chip_num_cores(c), total = o->job.nue + k;
  if (total > chip_cores)
    return launch_fail("%d UEs and %d copy cores (--copy-cores) do not fit chip '%s' with %d cores", o->job.nue, k,
                       c->name, chip_cores);
  /* A copy core's MPB holds a request line and an answer line per program UE. */
  if (2 * o->job.nue > (int)(c->mpb_bytes_per_core / c->line_bytes))
    return launch_fail(
        "%d UEs are too many for copy cores: each copy core's MPB holds two lines per UE (at most %d UEs)", o->job.nue,
        (int)(c->mpb_bytes_per_core / c->line_bytes) / 2);
  static unsigned char used[HW_MAX_UES];
  memset(used, 0, sizeof used);
  for (int u = 0; u < o->job.nue; u++) used[o->job.ue_core[u]] = 1;
  for (int i = 0; i < k; i++) {
    int mc = i % chip_num_mcs(c), best = -1;
    for (int core = 0; core < chip_cores; core++)
      if (!used[core] && (best < 0 || chip_mc_hops(c, core, mc) < chip_mc_hops(c, best, mc))) best = core;
    used[best] = 1;
    o->job.ue_core[o->job.nue + i] = best;
  }
  o->job.nue = total;
  return 0;
}

/* -clock, else the chip's default divider. */
static int set_clock(struct launch_options *o) {
  o->job.set.initial_divider = o->job.chip.default_divider;
  if (o->clock_text && clock_divider(&o->job.chip, o->clock_text, &o->job.set.initial_divider))
    return fail_clock(&o->job.chip, o->clock_text);
  return 0;
}

static int find_program(char **argv, int prog, struct launch_options *o) {
  if (resolve_program(argv[prog], o->app_path, sizeof o->app_path) != 0)
    return launch_fail("cannot execute program '%s' (not found or not executable)", argv[prog]);
  o->app = o->app_path;
  o->app_argv = &argv[prog];
  return 0;
}

/* --mpi-channel chooses the protocol of MPI jobs only; an MPI job without it
 * takes rckmpi (hw/settings.h). */
static int check_mpi_channel(struct launch_options *o) {
  int given = o->job.set.mpi_channel != HW_MPI_CHANNEL_NONE;
  if (o->mpi == LAUNCH_MPI_NONE && given)
    return launch_fail("--mpi-channel applies to MPI jobs only: give --mpi openmpi or --mpi mpich too");
  if (o->mpi != LAUNCH_MPI_NONE && !given) o->job.set.mpi_channel = MPI_CHANNEL_RCKMPI;
  o->job.set.mpi_library = (int32_t)o->mpi;
  return 0;
}

/* An MPI job's channel must fit the MPB of the chip's cores for all its UEs
 * (spare UEs and copy cores included): checked before any rank starts. */
static int check_mpi_fits(const struct launch_options *o) {
  if (o->mpi == LAUNCH_MPI_NONE) return 0;
  if (mpi_channel_fits((enum mpi_channel_kind)o->job.set.mpi_channel, &o->job.chip, o->job.nue, err, sizeof err))
    return launch_fail("%s", err);
  return 0;
}

/* A LUT maps 256 frames of 16 MB (scc_lut.h): more private memory could not
 * be reached. */
static int check_private_size(const struct launch_options *o) {
  uint64_t most = (uint64_t)SCC_LUT_ENTRIES * SCC_LUT_PAGE_BYTES;
  if (o->job.private_bytes > most)
    return launch_fail("--private-size %llu bytes is more than a lookup table reaches (256 entries of 16M = 4G)",
                       (unsigned long long)o->job.private_bytes);
  return 0;
}

int launch_parse(int argc, char **argv, struct launch_options *o) {
  memset(o, 0, sizeof *o);
  launch_option_defaults(o);
  int prog = parse_arguments(argc, argv, o);
  if (prog <= 0) return prog < 0 ? -1 : 1;
  if (launch_option_environment(o) || check_mpi_channel(o) || check_private_size(o)) return -1;
  if (o->job.nue == 0) return launch_fail("missing -nue N");
  if (prog >= argc) return launch_fail("missing the program to run");
  if (load_chip(o) || place_ues(o) || add_spare_ues(o) || add_copy_cores(o) || set_clock(o) || check_mpi_fits(o) ||
      launch_hosts_read(o))
    return -1;
  return find_program(argv, prog, o);
}

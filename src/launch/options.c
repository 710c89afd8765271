#define _GNU_SOURCE
#include "options.h"

#include "../chip/text_input.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_SHARED_BYTES (256ull << 20)
#define DEFAULT_SVM_BYTES (64ull << 20) /* 4 x 16 MB: frames behind every memory controller */
#define DEFAULT_TRACE_EVENTS 65536 /* 2 MB of log per UE (hw/trace.h), touched only as used */
#define MAX_REGION_BYTES (1ull << 40) /* --shm-size, --svm-size: 1T, far beyond any host's /dev/shm */
#define MAX_TIMEOUT_S 31536000.0       /* --timeout: a year */

static const char usage[] =
    "usage: rccerun -nue N [options] [--] program [args...]\n"
    "  -nue N, --nue N        number of UEs (emulated cores), one OS process each\n"
    "  --cores LIST           place UE i on core LIST[i], e.g. 0,47 or 0-7,16 (default 0..N-1)\n"
    "  -f FILE                SCC hostfile: core numbers, one per UE\n"
    "  --chip NAME|FILE       chip: scc (default), WxH[xC][:MPB_BYTES], or a chip file (a path with / or .)\n"
    "  -clock GHZ             initial tile clock, e.g. 0.533 (divider of the global clock)\n"
    "  --timeout S            end the job after S seconds with a report of every UE\n"
    "  --shm-size BYTES       off-chip shared memory for RCCE_shmalloc (default 256M; K/M/G suffixes)\n"
    "  --svm-size BYTES       page frames for svm_alloc (default 64M)\n"
    "  --mailbox irq|poll     mailboxes ring a doorbell interrupt (default) or are polled\n"
    "  --svm-check            lazy-release SVM pages are cached as on the SCC: stale until an acquire\n"
    "  --debug                print RCCE errors as they are returned\n"
    "  --no-single-copy       move large messages in MPB chunks only (UEs stay closed to ptrace)\n"
    "  --flags normal|tagged  tagged (the native default): messages up to 28 bytes travel inside the sent flag\n"
    "  --scheme lprg|rplg     local-put/remote-get (default, RCCE's) or remote-put/local-get\n"
    "  --model scc|none       model mode: virtual SCC time, power and energy (constants from --chip)\n"
    "  --compute-slowdown X   model mode: P54C time / host time of computation (default: the chip's; 0: none)\n"
    "  --trace LEVEL          off|counters|messages|targets|sizes|timeline: what the job directory records\n"
    "  --trace-events N       events each UE's log keeps at the sizes and timeline levels (default 65536)\n"
    "  --job-dir DIR          where --trace and --model write summary.json etc. (default runs/JOB-ID)\n"
    "  --replace-job-dir      replace the job already in DIR (default: refuse a directory holding a job)\n"
    "  -h, --help             this text\n";

static int fail(const char *fmt, const char *arg) {
  fprintf(stderr, "rccerun: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see rccerun --help)\n");
  return -1;
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  long long v;
  if (chip_text_parse_int(s, lo, hi, &v)) return -1;
  *out = (long)v;
  return 0;
}

/* The environment knobs of the waiting policy (docs/rccerun.md "Waiting"),
 * checked like options: a value out of range is an error, not a silent 0. */
static int parse_wait_environment(struct launch_options *o) {
  static const struct {
    const char *name;
    long max;
    const char *what;
  } knobs[] = {{"OPENSCC_SPIN", 1000000000L, "polls"}, {"OPENSCC_YIELD", 1000000L, "yields"}};
  long *dest[] = {&o->wait_spin, &o->wait_yield};
  for (int k = 0; k < 2; k++) {
    const char *v = getenv(knobs[k].name);
    *dest[k] = -1;
    if (v && parse_long(v, 0, knobs[k].max, dest[k])) {
      char msg[128];
      snprintf(msg, sizeof msg, "%s needs a number of %s from 0 to %ld, got '%%s'", knobs[k].name, knobs[k].what,
               knobs[k].max);
      return fail(msg, v);
    }
  }
  const char *asym = getenv("OPENSCC_ASYM_FENCE");
  if (asym && strcmp(asym, "0") && strcmp(asym, "1")) return fail("OPENSCC_ASYM_FENCE takes 0 or 1, got '%s'", asym);
  o->asym_fence_off = asym && !strcmp(asym, "0");
  return 0;
}

/* BYTES[K|M|G|T], 1 byte to MAX_REGION_BYTES; the suffix is checked before
 * it is applied, so a huge count cannot wrap around. */
static int parse_size(const char *s, unsigned long long *out) {
  char *end;
  if (!isdigit((unsigned char)s[0])) return -1; /* strtoull would accept "-5M" */
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return -1;
  const char *suffixes = "KMGT", *unit = *end ? strchr(suffixes, toupper((unsigned char)*end)) : NULL;
  int shift = unit ? 10 * (int)(unit - suffixes + 1) : 0;
  if (unit) end++;
  if (*end || v == 0 || v > MAX_REGION_BYTES >> shift) return -1;
  *out = v << shift;
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
  char msg[256];
  snprintf(msg, sizeof msg, "-clock '%%s' is no tile clock of this chip (global clock / divider in the allowed range: "
           "%.4g to %.4g GHz)", chip_tile_mhz(c, c->divider_max) / 1000.0, chip_tile_mhz(c, fastest) / 1000.0);
  return fail(msg, ghz_text);
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

int launch_parse(int argc, char **argv, struct launch_options *o) {
  memset(o, 0, sizeof *o);
  o->job.set.single_copy = 1;
  o->job.trace_capacity = DEFAULT_TRACE_EVENTS;
  o->job.set.mailbox_irq = 1;
  long nue = 0;
  const char *chip = "scc", *clock = NULL, *cores = NULL, *hostfile = NULL;
  unsigned long long shared = DEFAULT_SHARED_BYTES, svm = DEFAULT_SVM_BYTES;
  double slowdown = -1;
  static int core_list[HW_MAX_UES];
  int ncores_listed = 0, i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (a[0] != '-') break;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 1;
    }
    if (!strcmp(a, "--debug")) {
      o->job.set.debug = 1;
      continue;
    }
    if (!strcmp(a, "--svm-check")) {
      o->job.set.svm_check = 1;
      continue;
    }
    if (!strcmp(a, "--no-single-copy")) {
      o->job.set.single_copy = 0;
      continue;
    }
    if (!strcmp(a, "--model")) {
      if (!next || (strcmp(next, "scc") && strcmp(next, "none")))
        return fail("--model takes scc or none, got '%s'", next ? next : "nothing");
      i++;
      o->job.set.model = !strcmp(next, "scc");
      continue;
    }
    if (!strcmp(a, "--mailbox")) {
      if (!next || (strcmp(next, "irq") && strcmp(next, "poll")))
        return fail("--mailbox takes irq or poll, got '%s'", next ? next : "nothing");
      i++;
      o->job.set.mailbox_irq = !strcmp(next, "irq");
      continue;
    }
    if (!strcmp(a, "--svm-size")) {
      if (!next || parse_size(next, &svm))
        return fail("--svm-size needs a size from 1 byte to 1T like 64M (suffixes K, M, G, T), got '%s'", next ? next : "nothing");
      i++;
      continue;
    }
    if (!strcmp(a, "--compute-slowdown")) {
      /* The chip file key it overrides has the same range (docs/chips.md). */
      double lo = 0, hi = 0;
      chip_key_range("time_compute_slowdown", &lo, &hi);
      if (!next || chip_text_parse_double(next, lo, hi, &slowdown)) {
        char msg[96];
        snprintf(msg, sizeof msg, "--compute-slowdown needs a number from %g to %g, got '%%s'", lo, hi);
        return fail(msg, next ? next : "nothing");
      }
      i++;
      continue;
    }
    if (!strcmp(a, "--trace")) {
      static const char *const levels[] = {"off", "counters", "messages", "targets", "sizes", "timeline"};
      int found = -1;
      for (int l = 0; next && l < (int)(sizeof levels / sizeof levels[0]); l++)
        if (!strcmp(next, levels[l])) found = l;
      if (found < 0)
        return fail("--trace takes off, counters, messages, targets, sizes or timeline, got '%s'", next ? next : "nothing");
      i++;
      o->job.set.trace_level = found;
      continue;
    }
    if (!strcmp(a, "--trace-events")) {
      long n;
      if (!next || parse_long(next, 1, 1L << 30, &n))
        return fail("--trace-events needs a number of events from 1 to 1073741824, got '%s'", next ? next : "nothing");
      i++;
      o->job.trace_capacity = (uint64_t)n;
      continue;
    }
    if (!strcmp(a, "--job-dir")) {
      if (!next || !*next) return fail("%s", "--job-dir needs a directory");
      i++;
      o->job_dir = next;
      continue;
    }
    if (!strcmp(a, "--replace-job-dir")) {
      o->replace_job_dir = 1;
      continue;
    }
    if (!strcmp(a, "--flags") || !strcmp(a, "--scheme")) {
      if (!next) return fail("option '%s' needs a value", a);
      i++;
      if (!strcmp(a, "--flags") && (!strcmp(next, "tagged") || !strcmp(next, "normal")))
        o->job.set.tagged_flags = !strcmp(next, "tagged") ? HW_TAGGED_ON : HW_TAGGED_OFF;
      else if (!strcmp(a, "--scheme") && (!strcmp(next, "lprg") || !strcmp(next, "rplg")))
        o->job.set.scheme = !strcmp(next, "rplg") ? HW_SCHEME_RPLG : HW_SCHEME_LPRG;
      else if (!strcmp(a, "--flags")) return fail("--flags takes normal or tagged, got '%s'", next);
      else return fail("--scheme takes lprg or rplg, got '%s'", next);
      continue;
    }
    int known = !strcmp(a, "-nue") || !strcmp(a, "--nue") || !strcmp(a, "--cores") || !strcmp(a, "-f") ||
                !strcmp(a, "--chip") || !strcmp(a, "-clock") || !strcmp(a, "--timeout") || !strcmp(a, "--shm-size");
    if (!known) return fail("unknown option '%s'", a);
    if (!next) return fail("option '%s' needs a value", a);
    i++;
    if (!strcmp(a, "-nue") || !strcmp(a, "--nue")) {
      if (parse_long(next, 1, HW_MAX_UES, &nue)) return fail("-nue needs a number of UEs from 1 to 1024, got '%s'", next);
    } else if (!strcmp(a, "--cores")) cores = next;
    else if (!strcmp(a, "-f")) hostfile = next;
    else if (!strcmp(a, "--chip")) chip = next;
    else if (!strcmp(a, "-clock")) clock = next;
    else if (!strcmp(a, "--timeout")) {
      if (chip_text_parse_double(next, 0, MAX_TIMEOUT_S, &o->timeout_s) || !(o->timeout_s > 0))
        return fail("--timeout needs a positive number of seconds up to 31536000 (a year), got '%s'", next);
    } else if (parse_size(next, &shared))
      return fail("--shm-size needs a size from 1 byte to 1T like 64M (suffixes K, M, G, T), got '%s'", next);
  }
  if (parse_wait_environment(o)) return -1;
  if (nue == 0) return fail("%s", "missing -nue N");
  if (i >= argc) return fail("%s", "missing the program to run");
  static char err[8192]; /* paths up to PATH_MAX, with a line and a key */
  if (chip_load(chip, &o->job.chip, err, sizeof err)) return fail("%s", err);
  if (slowdown >= 0) o->job.chip.time.compute_slowdown = slowdown;
  int chip_cores = chip_num_cores(&o->job.chip);
  if (nue > chip_cores) {
    char msg[160];
    snprintf(msg, sizeof msg, "%ld UEs do not fit chip '%s' with %d cores", nue, o->job.chip.name, chip_cores);
    return fail("%s", msg);
  }
  if (cores && hostfile) return fail("%s", "give either --cores or -f, not both");
  if (cores) {
    ncores_listed = parse_core_list(cores, core_list, HW_MAX_UES);
    if (ncores_listed < 0) return fail("bad --cores list '%s' (expected e.g. 0,47 or 0-7,16)", cores);
  } else if (hostfile) {
    ncores_listed = read_hostfile(hostfile, core_list, HW_MAX_UES, err, sizeof err);
    if (ncores_listed < 0) return fail("%s", err);
  }
  if (cores || hostfile) {
    if (ncores_listed < nue) {
      char msg[160];
      snprintf(msg, sizeof msg, "%d cores listed for %ld UEs", ncores_listed, nue);
      return fail("%s", msg);
    }
    for (int u = 0; u < nue; u++) {
      if (core_list[u] >= chip_cores) {
        char msg[160];
        snprintf(msg, sizeof msg, "core %d does not exist on chip '%s' (cores 0..%d)", core_list[u],
                 o->job.chip.name, chip_cores - 1);
        return fail("%s", msg);
      }
      for (int v = 0; v < u; v++)
        if (core_list[v] == core_list[u]) {
          char msg[160];
          snprintf(msg, sizeof msg, "core %d is listed twice (UEs %d and %d)", core_list[u], v, u);
          return fail("%s", msg);
        }
    }
  }
  o->job.nue = (int)nue;
  for (int u = 0; u < nue; u++) o->job.ue_core[u] = (cores || hostfile) ? core_list[u] : u;
  o->job.set.initial_divider = o->job.chip.default_divider;
  if (clock && clock_divider(&o->job.chip, clock, &o->job.set.initial_divider)) return fail_clock(&o->job.chip, clock);
  o->job.shared_bytes = shared;
  o->job.svm_bytes = svm;
  if (resolve_program(argv[i], o->app_path, sizeof o->app_path) != 0)
    return fail("cannot execute program '%s' (not found or not executable)", argv[i]);
  o->app = o->app_path;
  o->app_argv = &argv[i];
  return 0;
}

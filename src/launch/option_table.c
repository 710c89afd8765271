/* rccerun's option table (option_table.h): the rows, and the generic code
 * that parses a row's value, applies the defaults, reads the environment
 * knobs and prints --help. */
#include "option_table.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../chip/text_input.h"
#include "../hw/trace.h"
#include "../mpi/channel.h"
#include "../rcce/rcce_shared.h"

#define MAX_REGION_BYTES (1ull << 40) /* --shm-size, --svm-size: 1T, far beyond any host's /dev/shm */
#define MAX_REGION_TEXT "1T"
#define MAX_TIMEOUT_S 31536000.0 /* --timeout: a year */
#define HELP_COLUMN 22           /* width of the option column of --help */

/* The field a row writes, in struct launch_options. */
#define FIELD(member) \
  .offset = offsetof(struct launch_options, member), .size = sizeof(((struct launch_options *)0)->member)

#define TRACE_CHOICE(level, name) {name, level},
static const struct launch_choice trace_levels[] = {HW_TRACE_LEVEL_NAMES(TRACE_CHOICE){NULL, 0}};
static const struct launch_choice mailbox_modes[] = {{"irq", 1}, {"poll", 0}, {NULL, 0}};
static const struct launch_choice flag_forms[] = {{"normal", HW_TAGGED_OFF}, {"tagged", HW_TAGGED_ON}, {NULL, 0}};
static const struct launch_choice schemes[] = {{"lprg", HW_SCHEME_LPRG}, {"rplg", HW_SCHEME_RPLG}, {NULL, 0}};
static const struct launch_choice models[] = {{"scc", 1}, {"none", 0}, {NULL, 0}};
static const struct launch_choice mpi_libraries[] = {
    {"openmpi", LAUNCH_MPI_OPENMPI}, {"mpich", LAUNCH_MPI_MPICH}, {NULL, 0}};
/* hw_settings.mpi_channel holds enum mpi_channel_kind (hw/settings.h). */
static const struct launch_choice mpi_channels[] = {{"rckmpi", MPI_CHANNEL_RCKMPI},
                                                    {"rckmpi-original", MPI_CHANNEL_RCKMPI_ORIGINAL},
                                                    {"sccmpich", MPI_CHANNEL_SCCMPICH},
                                                    {"sccmpich-normal", MPI_CHANNEL_SCCMPICH_NORMAL},
                                                    {NULL, 0}};
static const struct launch_choice zero_one[] = {{"0", 0}, {"1", 1}, {NULL, 0}};

/* --compute-slowdown overrides a chip file key and has its range (docs/chips.md). */
static void compute_slowdown_range(double *lo, double *hi) { chip_key_range("time_compute_slowdown", lo, hi); }

/* --flags by default follows the program and the mode (rcce_shared.h): the
 * form the basic interface's messages really took. */
static const char *flags_in_effect(const struct hw_job *job) {
  const struct rcce_job_shared *s = rcce_job_shared_of(job);
  return rcce_tagged_messages(job->hdr, s->flag_mode, s->iface) ? "tagged" : "normal";
}

/* Rows in the order of summary.json's keys; --help groups them. */
const struct launch_option launch_option_rows[] = {
    {.names = {"-nue", "--nue"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_INT,
     .arg = "N",
     .lo = 1,
     .hi = HW_MAX_UES,
     .unit = "UEs",
     .help = "number of UEs (emulated cores), one OS process each",
     FIELD(job.nue)},
    {.names = {"--cores"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "LIST",
     .help = "place UE i on core LIST[i], e.g. 0,47 or 0-7,16 (default 0..N-1)",
     FIELD(cores_text)},
    {.names = {"-f"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "FILE",
     .help = "SCC hostfile: core numbers, one per UE",
     FIELD(hostfile)},
    {.names = {"--chip"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "NAME|FILE",
     .def = "scc",
     .help = "chip: scc, WxH[xC][:MPB_BYTES], or a chip file (a path with / or .)",
     FIELD(chip_name)},
    {.names = {"--boards"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_INT,
     .arg = "N",
     .lo = 1,
     .hi = CHIP_MAX_BOARDS,
     .unit = "boards",
     .unset = -1,
     .help = "boards of the chip, coupled through their system interfaces; UEs numbered across them "
             "(default: the chip's, 1 for scc)",
     FIELD(boards)},
    {.names = {"--hosts"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "FILE",
     .unit = "a file",
     .help = "run the boards on the hosts FILE names, one per line, started by Open MPI's mpirun "
             "(docs/cluster.md \"Several hosts\")",
     FIELD(hosts_file)},
    {.names = {"-clock"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "GHZ",
     .help = "initial tile clock, e.g. 0.533 (a divider of the global clock; default the chip's)",
     FIELD(clock_text)},
    {.names = {"--timeout"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_NUMBER,
     .arg = "S",
     .lo = 0,
     .lo_open = 1,
     .hi = MAX_TIMEOUT_S,
     .unit = "seconds",
     .note = "a year",
     .help = "end the job after S seconds with a report of every UE",
     FIELD(timeout_s)},
    {.names = {"--shm-size"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_SIZE,
     .arg = "BYTES",
     .def = "256M",
     .help = "off-chip shared memory for RCCE_shmalloc, 1 byte to 1T with K/M/G/T suffixes",
     FIELD(job.shared_bytes)},
    {.names = {"--svm-size"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_SIZE,
     .arg = "BYTES",
     .def = "64M",
     .help = "page frames for svm_alloc (4 x 16M: frames behind every memory controller)",
     FIELD(job.svm_bytes)},
    {.names = {"--private-size"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_SIZE,
     .arg = "BYTES",
     .def = "32M",
     .help = "each UE's private memory partition, what the lookup tables map (scc_lut.h; at most 4G)",
     FIELD(job.private_bytes)},
    {.names = {"--mpi"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_CHOICE,
     .arg = "LIB",
     .choices = mpi_libraries,
     .unset = LAUNCH_MPI_NONE,
     .help = "run an MPI program, rank i as UE i, started by the launcher of",
     FIELD(mpi),
     .json = "mpi"},
    {.names = {"--mpi-channel"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_CHOICE,
     .arg = "KIND",
     .choices = mpi_channels,
     .unset = HW_MPI_CHANNEL_NONE, /* options.c: rckmpi once --mpi is given */
     .help = "with --mpi: the SCC channel protocol over the MPB (default rckmpi), one of",
     FIELD(job.set.mpi_channel),
     .json = "mpi_channel"},
    {.names = {"--mpi-spawn-ues"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_INT,
     .arg = "K",
     .lo = 0,
     .hi = HW_MAX_UES - 1,
     .unit = "UEs",
     .def = "0",
     .help = "with --mpi: K spare UEs on the lowest free cores, for the ranks MPI_Comm_spawn starts",
     FIELD(mpi_spawn_ues)},
    {.names = {"--copy-cores"},
     .group = LAUNCH_GROUP_JOB,
     .kind = LAUNCH_ARG_INT,
     .arg = "K",
     .lo = 0,
     .hi = HW_MAX_UES - 1,
     .unit = "UEs",
     .def = "0",
     .help = "K copy cores after the program's UEs, on free cores next to the memory controllers (scc_copy.h)",
     FIELD(job.set.copy_cores),
     .json = "copy_cores"},
    {.names = {"-h", "--help"}, .group = LAUNCH_GROUP_JOB, .kind = LAUNCH_ARG_HELP, .help = "this text"},
    {.names = {"--trace"},
     .group = LAUNCH_GROUP_OUTPUT,
     .kind = LAUNCH_ARG_CHOICE,
     .arg = "LEVEL",
     .choices = trace_levels,
     .def = "off",
     .help = "what the job directory records",
     FIELD(job.set.trace_level),
     .json = "trace"},
    {.names = {"--model"},
     .group = LAUNCH_GROUP_MODEL,
     .kind = LAUNCH_ARG_CHOICE,
     .choices = models,
     .def = "none",
     .help = "virtual SCC time, power and energy (constants from --chip)",
     FIELD(job.set.model),
     .json = "model"},
    {.names = {"--flags"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_CHOICE,
     .choices = flag_forms,
     .unset = HW_TAGGED_AUTO,
     .help = "tagged: messages up to 28 bytes travel inside the sent flag (default: tagged natively, normal in "
             "model mode)",
     FIELD(job.set.tagged_flags),
     .json = "flags",
     .json_in_effect = flags_in_effect},
    {.names = {"--scheme"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_CHOICE,
     .choices = schemes,
     .def = "lprg",
     .help = "local-put/remote-get (RCCE's) or remote-put/local-get",
     FIELD(job.set.scheme),
     .json = "scheme"},
    {.names = {"--no-single-copy"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_FLAG,
     .value = 0,
     .help = "move large messages in MPB chunks only (UEs stay closed to ptrace)",
     FIELD(job.set.single_copy),
     .json = "single_copy"},
    {.names = {"--mailbox"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_CHOICE,
     .choices = mailbox_modes,
     .def = "irq",
     .help = "mailboxes ring a doorbell interrupt or are polled",
     FIELD(job.set.mailbox_irq)},
    {.names = {"--svm-check"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_FLAG,
     .value = 1,
     .help = "lazy-release SVM pages are cached as on the SCC: stale until an acquire",
     FIELD(job.set.svm_check)},
    {.names = {"--debug"},
     .group = LAUNCH_GROUP_MESSAGES,
     .kind = LAUNCH_ARG_FLAG,
     .value = 1,
     .help = "print RCCE, iRCCE, mailbox and SVM errors as they are returned",
     FIELD(job.set.debug)},
    {.names = {"--compute-slowdown"},
     .group = LAUNCH_GROUP_MODEL,
     .kind = LAUNCH_ARG_NUMBER,
     .arg = "X",
     .range = compute_slowdown_range,
     .unset = -1,
     .help = "model mode: P54C time / host time of computation (default: the chip's; 0: none)",
     FIELD(compute_slowdown)},
    {.names = {"--trace-events"},
     .group = LAUNCH_GROUP_OUTPUT,
     .kind = LAUNCH_ARG_INT,
     .arg = "N",
     .lo = 1,
     .hi = 1L << 30,
     .unit = "events",
     .def = "65536", /* 2 MB of log per UE (hw/trace.h), touched only as used */
     .help = "events each UE's log keeps at the sizes and timeline levels",
     FIELD(job.trace_capacity)},
    {.names = {"--job-dir"},
     .group = LAUNCH_GROUP_OUTPUT,
     .kind = LAUNCH_ARG_TEXT,
     .arg = "DIR",
     .unit = "a directory",
     .help = "where --trace and --model write summary.json etc. (default runs/JOB-ID)",
     FIELD(job_dir)},
    {.names = {"--replace-job-dir"},
     .group = LAUNCH_GROUP_OUTPUT,
     .kind = LAUNCH_ARG_FLAG,
     .value = 1,
     .help = "replace the job already in DIR (default: refuse a directory holding a job)",
     FIELD(replace_job_dir)},
    /* The waiting policy's knobs (docs/rccerun.md "Waiting policy and tuning"). */
    {.env = "OPENSCC_SPIN",
     .group = LAUNCH_GROUP_ENV,
     .kind = LAUNCH_ARG_INT,
     .arg = "N",
     .lo = 0,
     .hi = 1e9,
     .unit = "polls",
     .unset = -1,
     .help = "polls of a waiting UE before it yields or sleeps; fixes the policy (default: adaptive)",
     FIELD(wait_spin)},
    {.env = "OPENSCC_YIELD",
     .group = LAUNCH_GROUP_ENV,
     .kind = LAUNCH_ARG_INT,
     .arg = "N",
     .lo = 0,
     .hi = 1e6,
     .unit = "yields",
     .unset = -1,
     .help = "sched_yield calls before it sleeps; fixes the policy (default: adaptive)",
     FIELD(wait_yield)},
    {.env = "OPENSCC_ASYM_FENCE",
     .group = LAUNCH_GROUP_ENV,
     .kind = LAUNCH_ARG_CHOICE,
     .choices = zero_one,
     .def = "1",
     .help = "1: when UEs fit the CPUs, writers skip the fence and sleepers use membarrier; 0: plain fences",
     FIELD(asym_fence)},
};
const size_t launch_option_count = sizeof launch_option_rows / sizeof launch_option_rows[0];

static const char *const group_titles[] = {
    [LAUNCH_GROUP_JOB] = "The job",
    [LAUNCH_GROUP_MESSAGES] = "Messages",
    [LAUNCH_GROUP_MODEL] = "Model mode",
    [LAUNCH_GROUP_OUTPUT] = "Job directory",
    [LAUNCH_GROUP_ENV] = "Environment (read by rccerun; a value out of range is a usage error)",
};

int launch_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("rccerun: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n(see rccerun --help)\n", stderr);
  va_end(ap);
  return -1;
}

/* How errors name the row: its first spelling, or its variable. */
static const char *row_name(const struct launch_option *r) { return r->env ? r->env : r->names[0]; }

static void *field(const struct launch_option *r, struct launch_options *o) { return (char *)o + r->offset; }

/* Integer fields are int/int32_t (4 bytes) or long/uint64_t (8 bytes). */
static void store_int(const struct launch_option *r, struct launch_options *o, long long v) {
  if (r->size == sizeof(int32_t)) {
    int32_t v32 = (int32_t)v;
    memcpy(field(r, o), &v32, sizeof v32);
  } else {
    assert(r->size == sizeof(int64_t));
    int64_t v64 = v;
    memcpy(field(r, o), &v64, sizeof v64);
  }
}

long launch_option_int(const struct launch_option *r, const struct launch_options *o) {
  const char *at = (const char *)o + r->offset;
  if (r->size == sizeof(int32_t)) {
    int32_t v32;
    memcpy(&v32, at, sizeof v32);
    return v32;
  }
  int64_t v64;
  memcpy(&v64, at, sizeof v64);
  return (long)v64;
}

const char *launch_option_choice_name(const struct launch_option *r, long value) {
  for (const struct launch_choice *c = r->choices; c && c->name; c++)
    if (c->value == value) return c->name;
  return NULL;
}

/* "a, b or c" (errors) or "a|b|c" (--help). */
static void list_choices(const struct launch_option *r, int for_help, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (const struct launch_choice *c = r->choices; c->name; c++) {
    const char *sep = c == r->choices ? "" : for_help ? "|" : c[1].name ? ", " : " or ";
    used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", sep, c->name);
  }
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

/* "NAME needs a number of UNIT from LO to HI (NOTE), got 'TEXT'" and its variants. */
static int fail_range(const struct launch_option *r, double lo, double hi, const char *text) {
  char of[64] = "", note[64] = "";
  if (r->unit) snprintf(of, sizeof of, " of %s", r->unit);
  if (r->note) snprintf(note, sizeof note, " (%s)", r->note);
  if (r->kind == LAUNCH_ARG_SIZE)
    return launch_fail("%s needs a size from 1 byte to " MAX_REGION_TEXT " like 64M (suffixes K, M, G, T), got '%s'",
                       row_name(r), text);
  if (r->lo_open) /* lo is 0 for every such row */
    return launch_fail("%s needs a positive number%s up to %.15g%s, got '%s'", row_name(r), of, hi, note, text);
  return launch_fail("%s needs a number%s from %.15g to %.15g%s, got '%s'", row_name(r), of, lo, hi, note, text);
}

static int parse_number(const struct launch_option *r, const char *text, struct launch_options *o) {
  double lo = r->lo, hi = r->hi, v;
  if (r->range) r->range(&lo, &hi);
  if (chip_text_parse_double(text, lo, hi, &v) || (r->lo_open && !(v > lo))) return fail_range(r, lo, hi, text);
  assert(r->size == sizeof(double));
  memcpy(field(r, o), &v, sizeof v);
  return 0;
}

static int parse_choice(const struct launch_option *r, const char *text, struct launch_options *o) {
  for (const struct launch_choice *c = r->choices; c->name; c++)
    if (!strcmp(text, c->name)) {
      store_int(r, o, c->value);
      return 0;
    }
  char names[160];
  list_choices(r, 0, names, sizeof names);
  return launch_fail("%s takes %s, got '%s'", row_name(r), names, text);
}

int launch_option_parse(const struct launch_option *r, const char *text, struct launch_options *o) {
  long long n;
  unsigned long long bytes;
  switch (r->kind) {
    case LAUNCH_ARG_HELP: return 0;
    case LAUNCH_ARG_FLAG: store_int(r, o, r->value); return 0;
    case LAUNCH_ARG_INT:
      if (chip_text_parse_int(text, (long long)r->lo, (long long)r->hi, &n)) return fail_range(r, r->lo, r->hi, text);
      store_int(r, o, n);
      return 0;
    case LAUNCH_ARG_NUMBER: return parse_number(r, text, o);
    case LAUNCH_ARG_SIZE:
      if (parse_size(text, &bytes)) return fail_range(r, 0, 0, text);
      store_int(r, o, (long long)bytes);
      return 0;
    case LAUNCH_ARG_CHOICE: return parse_choice(r, text, o);
    case LAUNCH_ARG_TEXT:
      if (r->unit && !*text) return launch_fail("%s needs %s", row_name(r), r->unit);
      memcpy(field(r, o), &text, sizeof text);
      return 0;
  }
  return -1;
}

const struct launch_option *launch_option_named(const char *name) {
  for (size_t i = 0; i < launch_option_count; i++)
    for (int k = 0; k < 2; k++)
      if (launch_option_rows[i].names[k] && !strcmp(name, launch_option_rows[i].names[k]))
        return &launch_option_rows[i];
  return NULL;
}

/* A flag's default is the opposite of what it stores; a row with a default
 * parses it like a given value; the others store their unset value. */
void launch_option_defaults(struct launch_options *o) {
  for (size_t i = 0; i < launch_option_count; i++) {
    const struct launch_option *r = &launch_option_rows[i];
    if (r->kind == LAUNCH_ARG_FLAG) {
      store_int(r, o, !r->value);
    } else if (r->def) {
      int bad = launch_option_parse(r, r->def, o);
      assert(!bad); /* the table's defaults are valid values */
      (void)bad;
    } else if (r->kind == LAUNCH_ARG_NUMBER) {
      double v = (double)r->unset;
      memcpy(field(r, o), &v, sizeof v);
    } else if (r->kind == LAUNCH_ARG_INT || r->kind == LAUNCH_ARG_CHOICE) {
      store_int(r, o, r->unset);
    }
  }
}

int launch_option_environment(struct launch_options *o) {
  for (size_t i = 0; i < launch_option_count; i++) {
    const struct launch_option *r = &launch_option_rows[i];
    const char *v = r->env ? getenv(r->env) : NULL;
    if (v && launch_option_parse(r, v, o)) return -1;
  }
  return 0;
}

/* "-nue N, --nue N", "--model scc|none", "OPENSCC_SPIN=N". */
static void help_left(const struct launch_option *r, char *out, size_t len) {
  char choices[160];
  const char *arg = r->arg;
  if (r->kind == LAUNCH_ARG_CHOICE && !arg) {
    list_choices(r, 1, choices, sizeof choices);
    arg = choices;
  }
  if (r->env) {
    snprintf(out, len, "%s=%s", r->env, arg);
    return;
  }
  size_t used = 0;
  for (int k = 0; k < 2 && r->names[k]; k++)
    used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s%s%s", k ? ", " : "", r->names[k],
                             arg ? " " : "", arg ? arg : "");
}

static void help_row(FILE *f, const struct launch_option *r) {
  char left[192];
  help_left(r, left, sizeof left);
  if (strlen(left) < HELP_COLUMN) fprintf(f, "  %-*s %s", HELP_COLUMN, left, r->help);
  else fprintf(f, "  %s\n  %-*s %s", left, HELP_COLUMN, "", r->help); /* too wide: the text starts below */
  if (r->kind == LAUNCH_ARG_CHOICE && r->arg) {
    char choices[160];
    list_choices(r, 1, choices, sizeof choices);
    fprintf(f, ": %s", choices);
  }
  if (r->def && r->kind != LAUNCH_ARG_FLAG) fprintf(f, " (default %s)", r->def);
  fputc('\n', f);
}

void launch_option_help(FILE *f) {
  fputs("usage: rccerun -nue N [options] [--] program [args...]\n", f);
  fputs("       rccerun --mpi LIB -nue N [options] [--] mpi-program [args...]\n", f);
  for (size_t g = 0; g < sizeof group_titles / sizeof group_titles[0]; g++) {
    fprintf(f, "%s:\n", group_titles[g]);
    for (size_t i = 0; i < launch_option_count; i++)
      if (launch_option_rows[i].group == g) help_row(f, &launch_option_rows[i]);
  }
}

/*
 * app_common.h - small helpers shared by the OpenSCC example apps.
 *
 * Header-only (static inline), so every app stays one .c file plus this
 * header.  Define APP_NAME ("shift", ...) before including it.  Only the
 * non-gory RCCE interface is used.
 *
 *   app_args      positional integer arguments with defaults, optional --pairs
 *   app_error     count an error; print the first one as "app: UE n: reason"
 *   app_finish    combine the error counts; UE 0 prints "app: OK" or FAILED
 *   app_error_total, app_report   the same in two steps, for checks made
 *                 after RCCE_finalize
 *   app_fill/app_check   a byte pattern derived from a seed (size, iteration,
 *                 sender, ...), so every received byte can be verified
 *   app_group     "ring of all UEs" or "pair (2k, 2k+1)" membership
 */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#ifndef APP_NAME
#error "define APP_NAME before including app_common.h"
#endif

#include "RCCE.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- errors */

static inline int *app_errcount(void) {
  static int count;
  return &count;
}

/* Records one wrong result; only the first one of this UE is printed, as a
   single write so that lines from different UEs do not interleave. */
static inline void app_error(const char *fmt, ...) {
  if ((*app_errcount())++ > 0) return;
  char line[512];
  int n = snprintf(line, sizeof line - 1, "%s: UE %d: ", APP_NAME, RCCE_ue());
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - 1 - (size_t)n, fmt, ap);
  va_end(ap);
  strcat(line, "\n");
  fputs(line, stderr);
  fflush(stderr);
}

/* Checks an RCCE return code; a failure counts as an error. */
static inline int app_rc(int rc, const char *what) {
  if (rc != RCCE_SUCCESS) {
    char text[RCCE_MAX_ERROR_STRING + 20] = "unknown error";
    int len = 0;
    RCCE_error_string(rc, text, &len);
    app_error("%s returned %d (%s)", what, rc, text);
  }
  return rc;
}

/* Unrecoverable (e.g. out of memory): the launcher ends the job. */
static inline void app_die(const char *what) {
  fprintf(stderr, "%s: UE %d: %s\n", APP_NAME, RCCE_ue(), what);
  exit(1);
}

/* Collective over RCCE_COMM_WORLD: the errors all UEs saw so far (at least
   this UE's own if the reduction fails). */
static inline int app_error_total(void) {
  int mine = *app_errcount(), total = 0;
  if (RCCE_allreduce((char *)&mine, (char *)&total, 1, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD) != RCCE_SUCCESS) {
    fprintf(stderr, "%s: UE %d: final RCCE_allreduce failed\n", APP_NAME, RCCE_ue());
    return mine + 1;
  }
  return total;
}

/* UE 0 prints "app: OK" or FAILED for `total` errors; returns the exit code. */
static inline int app_report(int total) {
  if (RCCE_ue() == 0) {
    if (total == 0) printf("%s: OK\n", APP_NAME);
    else fprintf(stderr, "%s: FAILED (%d wrong results)\n", APP_NAME, total);
    fflush(NULL);
  }
  return total != 0;
}

/* Collective over RCCE_COMM_WORLD: the job fails if any UE saw an error.
   Returns the exit code, 0 or 1, the same on every UE. */
static inline int app_finish(void) { return app_report(app_error_total()); }

/* Largest value of t over all UEs (collective). */
static inline double app_max_time(double t) {
  double max = t;
  app_rc(RCCE_allreduce((char *)&t, (char *)&max, 1, RCCE_DOUBLE, RCCE_MAX, RCCE_COMM_WORLD), "RCCE_allreduce(MAX)");
  return max;
}

/* ------------------------------------------------------------- arguments */

typedef struct {
  const char *name;
  long value; /* default on input, parsed value on output */
  long min, max;
} app_arg;

static inline void app_usage(FILE *out, const app_arg *args, int nargs, int has_pairs) {
  fprintf(out, "usage: %s", APP_NAME);
  for (int i = 0; i < nargs; i++) fprintf(out, " [%s=%ld]", args[i].name, args[i].value);
  fprintf(out, "%s\n", has_pairs ? " [--pairs]" : "");
  for (int i = 0; i < nargs; i++) fprintf(out, "  %s: integer in %ld..%ld\n", args[i].name, args[i].min, args[i].max);
}

/* Parses positional integers (any may be omitted from the right) and, if
   pairs != NULL, the flag --pairs anywhere.  Returns -1 when the program
   should run, otherwise the exit code: 0 after --help, 2 on bad arguments
   (UE 0 prints the usage).  Call after RCCE_init, which may edit argv. */
static inline int app_args(int argc, char **argv, app_arg *args, int nargs, int *pairs) {
  app_arg defaults[16];
  int npos = 0, bad = 0, help = 0;
  if (nargs > 16) nargs = 16;
  if (nargs > 0) memcpy(defaults, args, (size_t)nargs * sizeof *args);
  if (pairs) *pairs = 0;
  for (int i = 1; i < argc && !bad; i++) {
    const char *a = argv[i];
    if (pairs && strcmp(a, "--pairs") == 0) {
      *pairs = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      help = 1;
    } else if (strncmp(a, "--", 2) == 0) {
      if (RCCE_ue() == 0) fprintf(stderr, "%s: unknown option '%s'\n", APP_NAME, a);
      bad = 1;
    } else if (npos < nargs) {
      char *end;
      errno = 0;
      long v = strtol(a, &end, 10);
      if (a[0] == '\0' || *end != '\0' || errno != 0 || v < args[npos].min || v > args[npos].max) {
        if (RCCE_ue() == 0) fprintf(stderr, "%s: bad %s '%s'\n", APP_NAME, args[npos].name, a);
        bad = 1;
      } else {
        args[npos++].value = v;
      }
    } else {
      if (RCCE_ue() == 0) fprintf(stderr, "%s: unexpected argument '%s'\n", APP_NAME, a);
      bad = 1;
    }
  }
  if (!bad && !help) return -1;
  if (RCCE_ue() == 0) app_usage(help && !bad ? stdout : stderr, defaults, nargs, pairs != NULL);
  return bad ? 2 : 0;
}

/* With fewer than two UEs a program that needs a partner has nothing to do. */
static inline int app_alone(void) {
  if (RCCE_num_ues() >= 2) return 0;
  printf("%s: needs at least 2 UEs, nothing to do with 1\n", APP_NAME);
  return 1;
}

/* --------------------------------------------------------------- pattern */

/* Seed from up to three small integers (size, iteration, sender, ...). */
static inline uint32_t app_seed(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = 2166136261u;
  h = (h ^ a) * 16777619u;
  h = (h ^ b) * 16777619u;
  h = (h ^ c) * 16777619u;
  return h;
}

/* Word w (bytes 8w..8w+7) of the pattern for seed: differs with position,
   so a shifted or misplaced chunk is caught as well as a wrong sender or
   iteration.  Generated a word at a time to keep multi-megabyte checks fast. */
static inline uint64_t app_word(uint32_t seed, size_t w) {
  uint64_t x = ((uint64_t)seed << 32 | seed) ^ ((uint64_t)w * 0x9E3779B97F4A7C15u);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9u;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBu;
  return x ^ (x >> 31);
}

static inline void app_fill(void *buf, size_t n, uint32_t seed) {
  unsigned char *p = buf;
  for (size_t at = 0; at < n; at += 8) {
    uint64_t x = app_word(seed, at / 8);
    memcpy(p + at, &x, n - at < 8 ? n - at : 8);
  }
}

/* Index of the first wrong byte, or -1 if all n bytes match. */
static inline long app_check(const void *buf, size_t n, uint32_t seed) {
  const unsigned char *p = buf;
  for (size_t at = 0; at < n; at += 8) {
    uint64_t x = app_word(seed, at / 8);
    size_t len = n - at < 8 ? n - at : 8;
    if (memcmp(p + at, &x, len) != 0)
      for (size_t k = 0; k < len; k++)
        if (p[at + k] != ((const unsigned char *)&x)[k]) return (long)(at + k);
  }
  return -1;
}

/* ----------------------------------------------------------------- groups */

/* The UEs a program talks to: all UEs as one ring, or with --pairs the pair
   (2k, 2k+1); with an odd count the last UE is a group of one (idle). */
typedef struct {
  int first; /* UE id of rank 0 */
  int size;
  int rank; /* my rank in the group */
} app_group;

static inline app_group app_group_of(int pairs) {
  app_group g;
  int ue = RCCE_ue(), np = RCCE_num_ues();
  if (pairs) {
    g.first = ue & ~1;
    g.size = g.first + 1 < np ? 2 : 1;
  } else {
    g.first = 0;
    g.size = np;
  }
  g.rank = ue - g.first;
  return g;
}

/* UE id of group rank r, taken modulo the group size (ring neighbours). */
static inline int app_group_ue(app_group g, int r) { return g.first + ((r % g.size) + g.size) % g.size; }

#endif /* APP_COMMON_H */

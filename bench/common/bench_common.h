/*
 * bench_common.h - helpers shared by the OpenSCC benchmark programs
 * (RCCE, MPI and the cache-line floor).  Header-only, C11 + POSIX.
 *
 * Every program takes the same optional arguments (parsed AFTER RCCE_init /
 * MPI_Init, so launcher-specific arguments are already stripped):
 *   -t SECONDS   time box of one timed loop (default 0.2)
 *   -i N         minimum iterations of a timed loop (default 3)
 *   -m BYTES     pingpong only: largest message size (default 1048576)
 *
 * All timing uses the host's CLOCK_MONOTONIC (wall clock), never
 * RCCE_wtime(), which an emulator may define as emulated time.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Host wall-clock time in seconds. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  double target_s; /* time box of one timed loop */
  long min_iters;  /* lower bound on the timed loop's iterations */
  long max_size;   /* pingpong: largest size measured */
} bench_opts;

static inline void bench_parse(int argc, char **argv, bench_opts *o) {
  o->target_s = 0.2;
  o->min_iters = 3;
  o->max_size = 1048576;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (!strcmp(a, "-t") && v) {
      o->target_s = atof(v);
      i++;
    } else if (!strcmp(a, "-i") && v) {
      o->min_iters = atol(v);
      i++;
    } else if (!strcmp(a, "-m") && v) {
      o->max_size = atol(v);
      i++;
    }
    /* anything else is ignored: launchers may append their own arguments */
  }
  if (!(o->target_s > 0.0)) o->target_s = 0.2;
  if (o->min_iters < 1) o->min_iters = 1;
}

/* Pingpong sizes, in bytes. */
static const long bench_pp_sizes[] = {0, 8, 64, 1024, 8192, 65536, 1048576};
#define BENCH_PP_NSIZES ((int)(sizeof bench_pp_sizes / sizeof bench_pp_sizes[0]))

/* Hard cap on iterations of any loop (protects against a broken clock). */
#define BENCH_MAX_ITERS 50000000L

/* A calibration batch is "long enough" once it lasts this fraction of the
 * time box; the timed loop is then sized from its per-iteration time. */
#define BENCH_CALIB_FRACTION 0.1

/* Iterations for the timed loop given a calibration batch of n iterations
 * that took dt seconds. */
static inline long bench_iters_for(double target_s, long n, double dt, long min_iters) {
  double per = (n > 0 && dt > 0.0) ? dt / (double)n : 1e-9;
  double want = target_s / per + 1.0; /* round up; no libm needed */
  long it = (want > (double)BENCH_MAX_ITERS) ? BENCH_MAX_ITERS : (long)want;
  if (it < min_iters) it = min_iters;
  return it;
}

/* Should a calibration batch of n iterations taking dt seconds end calibration? */
static inline int bench_calib_done(double target_s, long n, double dt) {
  return dt >= target_s * BENCH_CALIB_FRACTION || n >= BENCH_MAX_ITERS / 2;
}

#endif /* BENCH_COMMON_H */

/*
 * pair_table.h - the size sweep and table shared by the pair benchmarks
 * (pingpong, ircce_pingpong, ircce_pingping).
 *
 * UEs 2k and 2k+1 run the app's transfer for sizes min_bytes (0 or 1), then
 * 1, 2, 4, ... max_bytes bytes; all pairs run concurrently (with an odd count
 * the last UE idles).  Large sizes use fewer iterations: at most PAIR_BUDGET
 * bytes per size and direction.  UE 0 prints, for its pair, one row per size:
 * bytes, iterations, time in us and bandwidth in MB/s (10^6 bytes per second).
 *
 * An app defines APP_NAME, includes this header, writes its transfer (which
 * fills its message with pair_fill and checks the partner's with pair_check)
 * and a pair_table naming it; its RCCE_APP calls RCCE_init (and iRCCE_init)
 * and returns pair_table_main.  Arguments: [max_bytes] [iterations=100].
 */
#ifndef PAIR_TABLE_H
#define PAIR_TABLE_H

#include "app_common.h"

#define PAIR_BUDGET (8L << 20)

/* One transfer of `bytes` with the partner UE in iteration it (-1: the
   warm-up); returns the seconds this UE timed (0 where it times nothing). */
typedef double (*pair_transfer)(char *sbuf, char *rbuf, size_t bytes, int it, int partner);

typedef struct {
  pair_transfer transfer;
  long min_bytes; /* first size and smallest max_bytes argument */
  long default_max_bytes;
  const char *time_column; /* heading of the time column */
  double parts;            /* a row's time is one transfer's time / parts */
  double messages;         /* messages of `bytes` moved in a row's time (MB/s) */
} pair_table;

/* This UE's message of iteration it: the pattern of (size, iteration, sender). */
static inline void pair_fill(char *sbuf, size_t bytes, int it) {
  app_fill(sbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)RCCE_ue()));
}

/* Counts an error unless rbuf holds the partner's message of iteration it. */
static inline void pair_check(const char *rbuf, size_t bytes, int it, int partner) {
  long bad = app_check(rbuf, bytes, app_seed((uint32_t)bytes, (uint32_t)it, (uint32_t)partner));
  if (bad >= 0) app_error("%zu-byte message %d from UE %d: byte %ld is wrong", bytes, it, partner, bad);
}

static inline int pair_iterations(long bytes, int iterations) {
  if (bytes == 0 || bytes * iterations <= PAIR_BUDGET) return iterations;
  return PAIR_BUDGET / bytes > 0 ? (int)(PAIR_BUDGET / bytes) : 1;
}

static inline void pair_sweep(const pair_table *table, size_t max_bytes, int iterations) {
  int me = RCCE_ue(), np = RCCE_num_ues();
  app_group pair = app_group_of(1);
  int partner = pair.size == 2 ? app_group_ue(pair, pair.rank + 1) : -1;

  /* + 1: max_bytes may be 0, and malloc(0) may return NULL */
  char *sbuf = malloc(max_bytes + 1), *rbuf = malloc(max_bytes + 1);
  if (!sbuf || !rbuf) app_die("out of memory");

  if (me == 0) {
    printf("%s: %d pair(s) running concurrently%s; table for UEs 0 <-> 1\n", APP_NAME, np / 2,
           np % 2 ? ", last UE idle" : "");
    printf("%10s %8s %14s %12s\n", "bytes", "iters", table->time_column, "MB/s");
  }
  for (size_t bytes = (size_t)table->min_bytes; bytes <= max_bytes; bytes = bytes ? 2 * bytes : 1) {
    int iters = pair_iterations((long)bytes, iterations);
    double t = 0.0;
    if (partner >= 0) {
      table->transfer(sbuf, rbuf, bytes, -1, partner); /* warm-up, not timed */
      for (int it = 0; it < iters; it++) t += table->transfer(sbuf, rbuf, bytes, it, partner);
    }
    if (me == 0) {
      double per = t / iters / table->parts;
      printf("%10zu %8d %14.3f %12.2f\n", bytes, iters, per * 1e6,
             per > 0.0 ? table->messages * (double)bytes / per / 1e6 : 0.0);
      fflush(stdout);
    }
  }

  free(sbuf);
  free(rbuf);
}

/* Everything after RCCE_init (and iRCCE_init): arguments, the sweep, the
   error summary and RCCE_finalize.  Returns the exit code. */
static inline int pair_table_main(int argc, char **argv, const pair_table *table) {
  app_arg args[] = {{"max_bytes", table->default_max_bytes, table->min_bytes, 1L << 28},
                    {"iterations", 100, 1, 1000000}};
  int rc = app_args(argc, argv, args, 2, NULL);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  pair_sweep(table, (size_t)args[0].value, (int)args[1].value);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

#endif /* PAIR_TABLE_H */

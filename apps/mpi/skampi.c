/*
 * skampi: SKaMPI-style latencies of MPI operations ([RCKMPI-2011] sec. IV-A
 * ran SKaMPI 5 on RCKMPI's original and new SCCMPB channels; make validate
 * compares the two channels' ratios with that section's, docs/model.md).
 * An ordinary MPI program: build it with the library's mpicc and run it with
 * rccerun --mpi; under --model its MPI_Wtime is the virtual SCC clock, so it
 * reports SCC latencies (docs/mpi.md "Model mode").
 *
 *   skampi REPS OP SIZE [OP SIZE ...]
 *     sendrecv  MPI_Sendrecv round trip between ranks 0 and 1 (the others
 *               wait in a barrier), SIZE bytes each way
 *     gather    MPI_Gather to rank 0, SIZE bytes per rank
 *     scatter   MPI_Scatter from rank 0, SIZE bytes per rank
 *     bcast     MPI_Bcast from rank 0 of SIZE bytes
 *     barrier   MPI_Barrier (SIZE ignored)
 *
 * Each measurement runs the operation once untimed, checking the data it
 * delivered, then REPS times, each started at the same moment on every rank
 * (SKaMPI's synchronized start, below); the latency is the mean over the
 * runs of the slowest rank's time.  One line per measurement:
 *   skampi op=gather size=16384 ranks=48 usec=1234.567
 * Exit status 1 on bad arguments or data that arrived wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 11
/* The first start time's distance from rank 0's clock; doubled while too short. */
#define INITIAL_SLACK_S 100e-6

enum op { OP_SENDRECV, OP_GATHER, OP_SCATTER, OP_BCAST, OP_BARRIER };
static const char *const op_names[] = {"sendrecv", "gather", "scatter", "bcast", "barrier"};
#define N_OPS (int)(sizeof op_names / sizeof op_names[0])

static int me, np;

/* The byte rank r puts at offset i of its block. */
static unsigned char pattern(int r, size_t i) { return (unsigned char)(r * 31 + i * 7 + 1); }

static void fill(unsigned char *b, size_t n, int r) {
  for (size_t i = 0; i < n; i++) b[i] = pattern(r, i);
}

static void check(const char *what, const unsigned char *b, size_t n, int r) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != pattern(r, i)) {
      fprintf(stderr, "skampi: rank %d: %s: byte %zu of rank %d's data is %u, expected %u\n", me, what, i, r, b[i],
              pattern(r, i));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

struct buffers {
  unsigned char *send, *recv; /* size * np bytes each */
};

/* One operation of `size` bytes. */
static void run_op(enum op op, const struct buffers *b, int size) {
  switch (op) {
    case OP_SENDRECV:
      if (me < 2)
        MPI_Sendrecv(b->send, size, MPI_BYTE, 1 - me, TAG, b->recv, size, MPI_BYTE, 1 - me, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      break;
    case OP_GATHER: MPI_Gather(b->send, size, MPI_BYTE, b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_SCATTER: MPI_Scatter(b->send, size, MPI_BYTE, b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_BCAST: MPI_Bcast(me == 0 ? b->send : b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
  }
}

/* The untimed first run: every rank's data arrived where the operation puts it. */
static void checked_run(enum op op, const struct buffers *b, int size) {
  size_t n = (size_t)size;
  if (op == OP_SCATTER && me == 0)
    for (int r = 0; r < np; r++) fill(b->send + (size_t)r * n, n, r);
  else fill(b->send, n, me);
  memset(b->recv, 0, n * (size_t)np);
  run_op(op, b, size);
  if (op == OP_SENDRECV && me < 2) check("sendrecv", b->recv, n, 1 - me);
  if (op == OP_GATHER && me == 0)
    for (int r = 0; r < np; r++) check("gather", b->recv + (size_t)r * n, n, r);
  if (op == OP_SCATTER) check("scatter", b->recv, n, me);
  if (op == OP_BCAST && me != 0) check("bcast", b->recv, n, 0);
}

/* Wait on this rank's clock until `start`.  A virtual clock that nothing
 * charges (a plain build with --compute-slowdown 0) stands still: after
 * STALLED_READS equal readings the wait ends, and the ranks then start
 * unsynchronized (build with rccecc --model-build for SKaMPI's start). */
#define STALLED_READS (1L << 20)
static void wait_until(double start) {
  double last = MPI_Wtime();
  for (long same = 0; last < start && same < STALLED_READS;) {
    double now = MPI_Wtime();
    same = now == last ? same + 1 : 0;
    last = now;
  }
}

/* One operation started at the same moment on every rank, SKaMPI's way:
 * rank 0 names a start time `slack` ahead of its clock, every rank waits for
 * it on its own clock (in model mode the virtual clock advances with the
 * waiting loop), runs the operation, and the slowest rank's time from the
 * start counts.  A rank that got the start time too late (its clock already
 * past it) makes the round run again with twice the slack. */
static double synchronized_op(enum op op, const struct buffers *b, int size, double *slack) {
  for (;;) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime() + *slack;
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* A rank may leave MPI_Bcast with its forward to another rank still
     * queued in a provider that makes progress only inside MPI calls
     * (OpenSCC's: manual progress): the barrier moves it, so that no rank
     * waits below for a start time another rank holds back. */
    MPI_Barrier(MPI_COMM_WORLD);
    double late = MPI_Wtime() > start;
    wait_until(start);
    run_op(op, b, size);
    double t[2] = {MPI_Wtime() - start, late};
    MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (t[1] == 0) return t[0];
    *slack *= 2;
  }
}

/* Seconds per operation: the mean over reps synchronized runs, after the
 * checked one. */
static double measure(enum op op, const struct buffers *b, int size, int reps) {
  double slack = INITIAL_SLACK_S, sum = 0;
  checked_run(op, b, size);
  for (int i = 0; i < reps; i++) sum += synchronized_op(op, b, size, &slack);
  return sum / reps;
}

static int parse_int(const char *s, int lo, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > (1 << 24)) return -1;
  *out = (int)v;
  return 0;
}

static int parse_op(const char *s) {
  for (int i = 0; i < N_OPS; i++)
    if (strcmp(s, op_names[i]) == 0) return i;
  return -1;
}

static int usage(const char *why) {
  if (me == 0)
    fprintf(stderr,
            "skampi: %s\nusage: skampi REPS OP SIZE [OP SIZE ...] (OP: sendrecv gather scatter bcast barrier; "
            "REPS 1..16777216, SIZE 0..16777216 bytes)\n",
            why);
  return 1;
}

/* Checks every argument before anything runs; the largest size in *max_size. */
static int parse_args(int argc, char **argv, int *reps, int *max_size) {
  if (argc < 4 || argc % 2 != 0) return usage("expected REPS and pairs of OP SIZE");
  if (parse_int(argv[1], 1, reps) != 0) return usage("REPS must be a whole number from 1 to 16777216");
  *max_size = 0;
  for (int a = 2; a < argc; a += 2) {
    int size;
    if (parse_op(argv[a]) < 0) return usage("unknown OP");
    if (parse_int(argv[a + 1], 0, &size) != 0) return usage("SIZE must be a whole number from 0 to 16777216");
    if (size > *max_size) *max_size = size;
  }
  if (np < 2) return usage("needs at least 2 ranks");
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int reps, max_size;
  if (parse_args(argc, argv, &reps, &max_size) != 0) {
    MPI_Finalize();
    return 1;
  }
  size_t bytes = (size_t)(max_size ? max_size : 1) * (size_t)np;
  struct buffers b = {malloc(bytes), malloc(bytes)};
  if (!b.send || !b.recv) {
    fprintf(stderr, "skampi: rank %d: out of memory for %zu-byte buffers\n", me, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int a = 2; a < argc; a += 2) {
    enum op op = (enum op)parse_op(argv[a]);
    int size = op == OP_BARRIER ? 0 : atoi(argv[a + 1]);
    double s = measure(op, &b, size, reps);
    if (me == 0) printf("skampi op=%s size=%d ranks=%d usec=%.3f\n", op_names[op], size, np, s * 1e6);
  }
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}

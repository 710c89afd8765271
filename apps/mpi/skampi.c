/*
 * skampi: SKaMPI-style latencies of MPI operations ([RCKMPI-2011] sec. IV-A
 * ran SKaMPI 5 on RCKMPI's original and new SCCMPB channels; make validate
 * compares the two channels' ratios with that section's, docs/model.md).
 * An ordinary MPI program: build it with the library's mpicc and run it with
 * rccerun --mpi; under --model its MPI_Wtime is the virtual SCC clock, so it
 * reports SCC latencies (docs/mpi.md "Model mode").
 *
 *   skampi REPS OP SIZE [OP SIZE ...]
 *     sendrecv  MPI_Sendrecv round trip between rank 0 and SKaMPI's partner
 *               (below; the others wait), SIZE bytes each way
 *     gather    MPI_Gather to rank 0, SIZE bytes per rank
 *     scatter   MPI_Scatter from rank 0, SIZE bytes per rank
 *     bcast     MPI_Bcast from rank 0 of SIZE bytes
 *     barrier   MPI_Barrier (SIZE ignored)
 *     pair      SIZE 0: choose the sendrecv partner SKaMPI's way (below);
 *               SIZE 1..np-1: that rank is the partner (a measurement
 *               repeatable across runs: the host's interleaving can reorder
 *               ranks whose ping-pongs differ by a few ns)
 *
 * Each measurement runs the operation once untimed, checking the data it
 * delivered, then REPS times, each started at the same moment on every rank
 * (SKaMPI's synchronized start, below); the latency is the mean over the
 * runs of the slowest rank's time.  One line per measurement:
 *   skampi op=gather size=16384 ranks=48 usec=1234.567
 * The point-to-point pair is SKaMPI 5's comm2_max_latency_with_root (its
 * skampi_pt2pt.ski): rank 0 ping-pongs with every other rank in turn and
 * measures with the one whose shortest round trip is the longest (on the
 * SCC, a core on the far corner of the mesh; the first sendrecv chooses it
 * unless a pair OP named one); a line names it:
 *   skampi pair 0-46 pingpong_usec=2.287
 * Exit status 1 on bad arguments or data that arrived wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 11
/* The first start time's distance from rank 0's clock; doubled while too short. */
#define INITIAL_SLACK_S 100e-6

enum op { OP_SENDRECV, OP_GATHER, OP_SCATTER, OP_BCAST, OP_BARRIER, OP_PAIR };
static const char *const op_names[] = {"sendrecv", "gather", "scatter", "bcast", "barrier", "pair"};
#define N_OPS (int)(sizeof op_names / sizeof op_names[0])

static int me, np;
static int partner = 0; /* rank 0's partner in sendrecv (choose_partner); 0: not chosen yet */

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
      if (me == 0 || me == partner) {
        int other = me == 0 ? partner : 0;
        MPI_Sendrecv(b->send, size, MPI_BYTE, other, TAG, b->recv, size, MPI_BYTE, other, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      }
      break;
    case OP_GATHER: MPI_Gather(b->send, size, MPI_BYTE, b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_SCATTER: MPI_Scatter(b->send, size, MPI_BYTE, b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_BCAST: MPI_Bcast(me == 0 ? b->send : b->recv, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case OP_PAIR: break; /* not an operation: main() handles it */
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
  if (op == OP_SENDRECV && (me == 0 || me == partner)) check("sendrecv", b->recv, n, me == 0 ? partner : 0);
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

/* The shortest of PAIR_PINGPONGS 8-byte ping-pong round trips between
 * rank 0 and rank r, on those two ranks (SKaMPI's ping_pong() in
 * determine_time_differences, whose td_max - td_min bounds the shortest
 * round trip); 0 elsewhere. */
#define PAIR_PINGPONGS 32
static double shortest_round_trip(int r) {
  double best = 0, payload = 0;
  if (me != 0 && me != r) return 0;
  for (int i = 0; i < PAIR_PINGPONGS; i++) {
    double t0 = MPI_Wtime();
    if (me == 0) {
      MPI_Send(&payload, 1, MPI_DOUBLE, r, TAG, MPI_COMM_WORLD);
      MPI_Recv(&payload, 1, MPI_DOUBLE, r, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&payload, 1, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&payload, 1, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    if (i == 0 || t < best) best = t;
  }
  return best;
}

/* SKaMPI's comm2_max_latency_with_root: rank 0 ping-pongs with ranks 1..np-1
 * in turn, each pair after a barrier, and the first rank with the longest
 * shortest round trip becomes the partner of every rank. */
static void choose_partner(void) {
  double worst = -1;
  partner = 1;
  for (int r = 1; r < np; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = shortest_round_trip(r);
    if (me == 0 && t > worst) {
      worst = t;
      partner = r;
    }
  }
  MPI_Bcast(&partner, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (me == 0) printf("skampi pair 0-%d pingpong_usec=%.3f\n", partner, worst * 1e6);
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
            "skampi: %s\nusage: skampi REPS OP SIZE [OP SIZE ...] (OP: sendrecv gather scatter bcast barrier pair; "
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
    if (parse_op(argv[a]) == OP_PAIR && size >= np) return usage("pair names a rank from 1 to the number of ranks - 1");
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
    if (op == OP_PAIR) {
      if (size > 0 && me == 0) printf("skampi pair 0-%d (named)\n", size);
      if (size > 0) partner = size;
      else choose_partner();
      continue;
    }
    if (op == OP_SENDRECV && partner == 0) choose_partner();
    double s = measure(op, &b, size, reps);
    if (me == 0) printf("skampi op=%s size=%d ranks=%d usec=%.3f\n", op_names[op], size, np, s * 1e6);
  }
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}

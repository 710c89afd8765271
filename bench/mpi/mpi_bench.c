/*
 * mpi_bench: OSU-style and SKaMPI-style measurements of one MPI operation, an
 * ordinary MPI program (built with each MPI library's own mpicc), so the same
 * source runs through OpenSCC's provider and through the libraries' own
 * transports side by side (bench/README.md).
 *
 *   mpi_bench latency SIZE ITERS      ranks 0 and 1 ping-pong: half round trip
 *   mpi_bench bandwidth SIZE ITERS    rank 0 streams WINDOW messages to rank 1 per ack
 *   mpi_bench sendrecv SIZE ITERS     MPI_Sendrecv round trip between ranks 0 and 1
 *   mpi_bench barrier 0 ITERS         MPI_Barrier over every rank
 *   mpi_bench allreduce SIZE ITERS    MPI_Allreduce of SIZE bytes of doubles
 *   mpi_bench bcast|gather|scatter SIZE ITERS   root 0; SIZE bytes per rank
 *
 * Collectives are timed SKaMPI's way: a barrier, then ITERS operations, and
 * the slowest rank's time per operation.  Output, one line:
 *   mpi_bench test=latency size=8 ranks=2 usec=0.512 [mbps=...]
 * Times come from MPI_Wtime (host time).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define TAG 7

static int rank, nranks;

static double pingpong(char *buf, int size, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Send(buf, size, MPI_CHAR, 1, TAG, MPI_COMM_WORLD);
      MPI_Recv(buf, size, MPI_CHAR, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, size, MPI_CHAR, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, size, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / iters / 2;
}

static double sendrecv(char *buf, char *rbuf, int size, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank < 2)
    for (int i = 0; i < iters; i++)
      MPI_Sendrecv(buf, size, MPI_CHAR, 1 - rank, TAG, rbuf, size, MPI_CHAR, 1 - rank, TAG, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
  return (MPI_Wtime() - t0) / iters;
}

/* Time per message of a stream of WINDOW messages, each window acknowledged. */
static double bandwidth(char *buf, int size, int iters) {
  MPI_Request req[WINDOW];
  char ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      for (int w = 0; w < WINDOW; w++) MPI_Isend(buf, size, MPI_CHAR, 1, TAG, MPI_COMM_WORLD, &req[w]);
      MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_CHAR, 1, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      for (int w = 0; w < WINDOW; w++) MPI_Irecv(buf, size, MPI_CHAR, 0, TAG, MPI_COMM_WORLD, &req[w]);
      MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_CHAR, 0, TAG + 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / iters / WINDOW;
}

static double collective(const char *test, char *buf, char *rbuf, int size, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (!strcmp(test, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
    else if (!strcmp(test, "allreduce"))
      MPI_Allreduce(buf, rbuf, size / (int)sizeof(double), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(test, "bcast")) MPI_Bcast(buf, size, MPI_CHAR, 0, MPI_COMM_WORLD);
    else if (!strcmp(test, "gather")) MPI_Gather(buf, size, MPI_CHAR, rbuf, size, MPI_CHAR, 0, MPI_COMM_WORLD);
    else MPI_Scatter(rbuf, size, MPI_CHAR, buf, size, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  double mine = (MPI_Wtime() - t0) / iters, slowest;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static int known_test(const char *t) {
  static const char *tests[] = {"latency",   "bandwidth", "sendrecv", "barrier",
                                "allreduce", "bcast",     "gather",   "scatter"};
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
    if (!strcmp(t, tests[i])) return 1;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int size = argc > 2 ? atoi(argv[2]) : -1, iters = argc > 3 ? atoi(argv[3]) : -1;
  int pair_test =
      argc > 1 && (!strcmp(argv[1], "latency") || !strcmp(argv[1], "bandwidth") || !strcmp(argv[1], "sendrecv"));
  if (argc != 4 || !known_test(argv[1]) || size < 0 || iters < 1 || (pair_test && nranks < 2)) {
    if (rank == 0)
      fprintf(stderr, "usage: mpi_bench latency|bandwidth|sendrecv|barrier|allreduce|bcast|gather|scatter SIZE ITERS"
                      " (latency, bandwidth and sendrecv need 2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  size_t all = (size_t)size * (size_t)nranks + 1;
  char *buf = calloc(all, 1), *rbuf = calloc(all, 1);
  if (!buf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
  const char *test = argv[1];
  double seconds;
  /* Warm-up, untimed: connection set-up and first-touch costs stay out of the measurement. */
  int warmup = iters < 10 ? iters : 10;
  if (!strcmp(test, "latency")) pingpong(buf, size, warmup);
  else if (!strcmp(test, "bandwidth")) bandwidth(buf, size, 1);
  else if (!strcmp(test, "sendrecv")) sendrecv(buf, rbuf, size, warmup);
  else collective(test, buf, rbuf, size, warmup);
  if (!strcmp(test, "latency")) seconds = pingpong(buf, size, iters);
  else if (!strcmp(test, "bandwidth")) seconds = bandwidth(buf, size, iters);
  else if (!strcmp(test, "sendrecv")) seconds = sendrecv(buf, rbuf, size, iters);
  else seconds = collective(test, buf, rbuf, size, iters);
  if (rank == 0) {
    printf("mpi_bench test=%s size=%d ranks=%d usec=%.4f", test, size, nranks, seconds * 1e6);
    if (!strcmp(test, "bandwidth")) printf(" mbps=%.1f", size / seconds / 1e6);
    printf("\n");
  }
  free(buf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}

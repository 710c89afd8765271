/*
 * comm_churn.c - communicators made while the other ranks already wait (docs/mpi-channel.md
 * "Waiting"), the pattern of ScaLAPACK's tests on a 1x1 process grid (xcgsep): ROUNDS times, rank 0
 * first works alone -- it makes and frees SOLO communicators of its own (MPI_Comm_split and
 * MPI_Comm_dup of MPI_COMM_SELF) while the others have entered the round's call and idle in the
 * provider -- then every rank makes a communicator -- MPI_Comm_split by parity, MPI_Comm_create of
 * the even ranks, MPI_Comm_dup in turn --, checks it with an MPI_Allreduce of its world ranks, and
 * frees it.  The library agrees on a context id for each communicator (Open MPI: a nonblocking
 * agreement advanced one step per progress call), so rank 0's solo communicators take many
 * progress calls that find nothing in the provider.  A provider that napped 20 ms in each such
 * call made xcgsep 25 times slower, and the launcher, seeing every rank idle for 2 s, reported a
 * deadlock.
 *
 * usage: comm_churn ROUNDS SOLO
 *   Rank 0 prints "comm_churn: OK (R communicators on P ranks)".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Rank 0's work alone: n communicators of MPI_COMM_SELF, each checked and freed. */
static int work_alone(int n, int round) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    MPI_Comm c;
    if (i % 2) MPI_Comm_dup(MPI_COMM_SELF, &c);
    else MPI_Comm_split(MPI_COMM_SELF, 0, 0, &c);
    int size = 0;
    MPI_Comm_size(c, &size);
    if (size != 1) {
      fprintf(stderr, "comm_churn: round %d: a communicator of MPI_COMM_SELF has %d ranks\n", round, size);
      bad = 1;
    }
    MPI_Comm_free(&c);
  }
  return bad;
}

/* Whether comm's members disagree with expect_sum, the sum of their world ranks (1, reported), or
 * agree or comm is null (0). */
static int check(MPI_Comm comm, int world_rank, int expect_sum, int round) {
  if (comm == MPI_COMM_NULL) return 0;
  int sum = -1;
  MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
  if (sum == expect_sum) return 0;
  fprintf(stderr, "comm_churn: rank %d, round %d: the new communicator's rank sum is %d, not %d\n", world_rank, round,
          sum, expect_sum);
  return 1;
}

/* The sum of the world ranks 0..size-1 of one parity. */
static int parity_sum(int size, int parity) {
  int s = 0;
  for (int r = parity; r < size; r += 2) s += r;
  return s;
}

static MPI_Comm make(int kind, int rank, int size, int *expect) {
  MPI_Comm c = MPI_COMM_NULL;
  if (kind == 0) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    *expect = parity_sum(size, rank % 2);
  } else if (kind == 1) {
    MPI_Group world, even;
    int n = (size + 1) / 2, *ranks = malloc(sizeof *ranks * (size_t)n);
    for (int i = 0; i < n; i++) ranks[i] = 2 * i;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &even);
    MPI_Comm_create(MPI_COMM_WORLD, even, &c);
    MPI_Group_free(&even);
    MPI_Group_free(&world);
    free(ranks);
    *expect = parity_sum(size, 0);
  } else {
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    *expect = size * (size - 1) / 2;
  }
  return c;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[2]) < 0) {
    if (rank == 0) fprintf(stderr, "usage: comm_churn ROUNDS SOLO\n");
    MPI_Finalize();
    return 2;
  }
  int rounds = atoi(argv[1]), solo = atoi(argv[2]), bad = 0;
  for (int round = 0; round < rounds; round++) {
    if (rank == 0) bad |= work_alone(solo, round);
    int expect = 0;
    MPI_Comm c = make(round % 3, rank, size, &expect);
    bad |= check(c, rank, expect, round);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any_bad) printf("comm_churn: OK (%d communicators on %d ranks)\n", rounds, size);
  MPI_Finalize();
  return any_bad;
}

/*
 * deadlock.c - an MPI program that deadlocks: every rank receives from its right neighbour and
 * nobody sends (for the supervision tests: every rank waits in MPI, forever).
 *
 * usage: deadlock   (prints "deadlock: rank R waits for rank S" on stderr first)
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np, word;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int from = (me + 1) % np;
  fprintf(stderr, "deadlock: rank %d waits for rank %d\n", me, from);
  fflush(stderr);
  MPI_Recv(&word, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 1; /* not reached: nobody sends */
}

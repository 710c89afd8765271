/*
 * spin.c - an MPI program whose rank RANK never returns to MPI: after MPI_Init it loops forever
 * outside MPI (sleeping, so it costs no CPU), while the other ranks wait in MPI_Barrier. Not a
 * deadlock (one rank is running), so only a time limit ends it (rccerun --timeout).
 *
 * usage: spin [RANK=0]   (rank RANK prints "spin: rank RANK loops forever" on stderr first)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char *end = NULL;
  long spinner = argc > 1 ? strtol(argv[1], &end, 10) : 0;
  if (argc > 2 || (end && *end) || spinner < 0 || spinner >= np) {
    if (me == 0) fprintf(stderr, "usage: spin [RANK=0 (0..%d)]\n", np - 1);
    MPI_Finalize();
    return 2;
  }
  if (me == spinner) {
    fprintf(stderr, "spin: rank %d loops forever\n", me);
    fflush(stderr);
    for (;;) sleep(1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 1; /* not reached: the spinning rank never joins the barrier */
}

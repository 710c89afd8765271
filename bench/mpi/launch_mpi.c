/*
 * launch_mpi.c - MPI peer of bench/rcce/launch_bench.c: MPI_Init then
 * MPI_Finalize; rank 0 prints one JSON line.  The driver times the whole
 * mpirun command (wall clock).
 */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (me == 0) {
    printf("{\"bench\":\"launch\",\"impl\":\"mpi\",\"ues\":%d}\n", np);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

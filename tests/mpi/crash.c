/*
 * crash.c - an MPI program whose rank RANK dies of SIGSEGV right after MPI_Init while the other
 * ranks wait in MPI_Barrier (for the supervision tests: the job must end, naming that rank).
 *
 * usage: crash RANK
 * Rank RANK prints "crash: rank RANK writes through a null pointer" to stderr, then segfaults.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char *end;
  long victim = argc == 2 ? strtol(argv[1], &end, 10) : -1;
  if (argc != 2 || *end || victim < 0 || victim >= np) {
    if (me == 0) fprintf(stderr, "usage: crash RANK (0..%d)\n", np - 1);
    MPI_Finalize();
    return 2;
  }
  if (me == victim) {
    fprintf(stderr, "crash: rank %d writes through a null pointer\n", me);
    fflush(stderr);
    /* Volatile pointer to volatile: the compiler can neither tell the pointer is null nor drop
     * the store, so this is a real SIGSEGV. */
    volatile int *volatile null = NULL;
    *null = 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

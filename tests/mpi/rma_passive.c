/* Passive-target one-sided operations against a rank that computes
 * (docs/mpi-provider.md "One-sided operations", progress): rank 0 exposes a
 * window and then works outside MPI for 2.5 s (longer than rccerun's 2 s
 * deadlock window) while every other rank locks it exclusively, puts,
 * fetches-and-adds and compare-and-swaps into it.  The provider serves the
 * operations when rank 0 next calls MPI (MPI-3.1 11.7.3): the other ranks
 * wait meanwhile, which is neither a deadlock nor an error.
 *   mpicc rma_passive.c -o rma_passive; rccerun --mpi openmpi -nue 4 ./rma_passive
 * Prints "rma_passive: OK (N ranks)" on rank 0; a failure prints
 * "rma_passive: rank r: WHAT" and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { W_PUT, W_SUM, W_CAS, W_INTS };

static int me, np;

static void expect(const char *what, long got, long want) {
  if (got == want) return;
  printf("rma_passive: rank %d: %s: %ld, expected %ld\n", me, what, got, want);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long *buf;
  MPI_Win win;
  MPI_Win_allocate(W_INTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
  buf[W_PUT] = buf[W_SUM] = 0;
  buf[W_CAS] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    /* Computing: no MPI call for 2.5 s. */
    struct timespec work = {2, 500000000L};
    nanosleep(&work, NULL);
  } else {
    long one = 1, old, mine = me, none = -1, cas_old;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&mine, 1, MPI_LONG, 0, W_PUT, 1, MPI_LONG, win);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, W_SUM, MPI_SUM, win);
    MPI_Compare_and_swap(&mine, &none, &cas_old, MPI_LONG, 0, W_CAS, win);
    MPI_Win_unlock(0, win);
    if (old < 0 || old >= np - 1) expect("MPI_Fetch_and_op's old value", old, 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win); /* the window's own memory, read under a lock */
    if (buf[W_PUT] < 1 || buf[W_PUT] >= np) expect("MPI_Put's value", buf[W_PUT], 1);
    expect("the MPI_Fetch_and_op total", buf[W_SUM], np - 1);
    if (buf[W_CAS] < 1 || buf[W_CAS] >= np) expect("the MPI_Compare_and_swap winner", buf[W_CAS], 1);
    MPI_Win_unlock(0, win);
    printf("rma_passive: OK (%d ranks)\n", np);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

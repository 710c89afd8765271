/*
 * spawn_child.c - the child group of spawn_parent.c: started by MPI_Comm_spawn, it finds its
 * parents with MPI_Comm_get_parent and does its half of the exchange and of the merged checks
 * (spawn_common.h).
 *
 * usage (by spawn_parent only): spawn_child BYTES [CRASH_RANK]
 *   child rank CRASH_RANK writes through a null pointer (SIGSEGV) once connected.
 *   Child rank 0 prints "spawn_child: OK (C children of P parents)".
 */
#include "spawn_common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np, nparents;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  long bytes = argc >= 2 ? spawn_number(argv[1]) : -1, crash = argc == 3 ? spawn_number(argv[2]) : -1;
  if (parent == MPI_COMM_NULL || argc < 2 || argc > 3 || bytes < 0 || (argc == 3 && crash < 0)) {
    fprintf(stderr, "usage: spawn_child BYTES [CRASH_RANK] (started by spawn_parent)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (me == crash) {
    fprintf(stderr, "spawn_child: rank %d writes through a null pointer\n", me);
    fflush(stderr);
    volatile int *volatile null = NULL; /* a real SIGSEGV (see crash.c) */
    *null = 1;
  }
  MPI_Comm_remote_size(parent, &nparents);
  spawn_exchange("spawn_child", parent, 1, (size_t)bytes);
  spawn_check_merged("spawn_child", parent, 1, (size_t)bytes);
  MPI_Comm_disconnect(&parent);
  if (me == 0) printf("spawn_child: OK (%d children of %d parents)\n", np, nparents);
  MPI_Finalize();
  return 0;
}

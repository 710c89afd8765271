/*
 * spawn_parent.c - MPI-2 dynamic processes: the running job spawns a child group with
 * MPI_Comm_spawn, exchanges data with it over the intercommunicator, merges the two groups with
 * MPI_Intercomm_merge and checks a collective over the merged communicator (spawn_common.h).
 *
 * usage: spawn_parent NCHILDREN BYTES CHILD [CRASH_RANK]
 *   CHILD is spawn_child (started with the arguments BYTES [CRASH_RANK]: child rank CRASH_RANK
 *   dies of SIGSEGV once connected).  Rank 0 prints
 *   "spawn_parent: OK (P parents + C children, universe U)", where U is MPI_UNIVERSE_SIZE.
 *   A spawn the MPI library refuses (MPI_ERRORS_RETURN) prints
 *   "spawn_parent: MPI_Comm_spawn of C children failed: <MPI_Error_string>" on rank 0; exit 3.
 */
#include "spawn_common.h"

static int universe_size(void) {
  int *v, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
  return flag ? *v : -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long nchild = argc >= 4 ? spawn_number(argv[1]) : -1, bytes = argc >= 4 ? spawn_number(argv[2]) : -1;
  if (argc < 4 || argc > 5 || nchild < 1 || bytes < 0 || (argc == 5 && spawn_number(argv[4]) < 0)) {
    if (me == 0) fprintf(stderr, "usage: spawn_parent NCHILDREN BYTES CHILD [CRASH_RANK]\n");
    MPI_Finalize();
    return 2;
  }
  char *child_argv[] = {argv[2], argc == 5 ? argv[4] : NULL, NULL};
  MPI_Comm inter;
  /* An error of the spawn comes back to the caller, not as the default abort. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc =
      MPI_Comm_spawn(argv[3], child_argv, (int)nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    if (me == 0) printf("spawn_parent: MPI_Comm_spawn of %ld children failed: %s\n", nchild, text);
    fflush(stdout);
    MPI_Finalize();
    return 3;
  }
  spawn_exchange("spawn_parent", inter, 0, (size_t)bytes);
  int merged = spawn_check_merged("spawn_parent", inter, 0, (size_t)bytes);
  MPI_Comm_disconnect(&inter);
  if (me == 0) printf("spawn_parent: OK (%d parents + %d children, universe %d)\n", np, merged - np, universe_size());
  MPI_Finalize();
  return 0;
}

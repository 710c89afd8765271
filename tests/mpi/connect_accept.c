/*
 * connect_accept.c - MPI-2 MPI_Comm_connect / MPI_Comm_accept between two groups of one job: the
 * world splits into two halves; the first half's rank 0 opens a port (MPI_Open_port) and passes
 * its name to the second half's rank 0 over MPI_COMM_WORLD; the first half accepts, the second
 * connects.  Then the intercommunicator's exchange and the merged checks of spawn_common.h.
 *
 * usage: connect_accept BYTES   (an even number of ranks, at least 2)
 *   World rank 0 prints "connect_accept: OK (A accepted + C connected)".
 */
#include "spawn_common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long bytes = argc == 2 ? spawn_number(argv[1]) : -1;
  if (bytes < 0 || np < 2 || np % 2) {
    if (me == 0) fprintf(stderr, "usage: connect_accept BYTES (an even number of ranks)\n");
    MPI_Finalize();
    return 2;
  }
  int group = me >= np / 2; /* 0: accepts, 1: connects */
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, group, me, &half);
  char port[MPI_MAX_PORT_NAME] = "";
  if (me == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, np / 2, 0, MPI_COMM_WORLD);
  } else if (me == np / 2) {
    MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (group == 0) MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
  else MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
  spawn_exchange("connect_accept", inter, group, (size_t)bytes);
  spawn_check_merged("connect_accept", inter, group, (size_t)bytes);
  MPI_Comm_disconnect(&inter);
  if (me == 0) {
    MPI_Close_port(port);
    printf("connect_accept: OK (%d accepted + %d connected)\n", np / 2, np / 2);
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

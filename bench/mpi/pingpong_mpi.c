/*
 * pingpong_mpi.c - MPI peer of bench/rcce/pingpong_bench.c: the same driver
 * (common/pingpong_driver.h) over blocking standard-mode MPI_Send / MPI_Recv.
 */
#include "mpi_main.h"

#define BENCH_IMPL "mpi"
static void xport_send(char *buf, long size, int peer) { MPI_Send(buf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD); }
static void xport_recv(char *buf, long size, int peer) {
  MPI_Recv(buf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
#include "../common/pingpong_driver.h"

int main(int argc, char **argv) { return mpi_bench_main(argc, argv, pingpong_run); }

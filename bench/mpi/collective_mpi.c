/*
 * collective_mpi.c - MPI peer of bench/rcce/collective_bench.c: MPI_Barrier
 * and MPI_Allreduce of one double (MPI_SUM) with the same driver.
 */
#include "mpi_main.h"

#define BENCH_IMPL "mpi"
static void xport_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static double xport_allreduce_sum(double in) {
  double out = 0.0;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out;
}
static void xport_bcast_ctl(int64_t ctl[2]) { MPI_Bcast(ctl, 2, MPI_INT64_T, 0, MPI_COMM_WORLD); }
#include "../common/collective_driver.h"

int main(int argc, char **argv) { return mpi_bench_main(argc, argv, collective_run); }

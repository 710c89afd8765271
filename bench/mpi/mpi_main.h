/* mpi_main.h - main() of the MPI benchmark programs: run one driver on MPI_COMM_WORLD. */
#ifndef BENCH_MPI_MAIN_H
#define BENCH_MPI_MAIN_H

#include "../common/bench_common.h"
#include <mpi.h>

static int mpi_bench_main(int argc, char **argv, int (*run)(int me, int np, const bench_opts *o)) {
  MPI_Init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int rc = run(me, np, &o);
  MPI_Finalize();
  return rc;
}

#endif

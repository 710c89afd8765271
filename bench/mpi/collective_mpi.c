/*
 * collective_mpi.c - MPI peer of bench/rcce/collective_bench.c.
 *
 * MPI_Barrier(MPI_COMM_WORLD) and MPI_Allreduce of one double (MPI_SUM),
 * time-boxed exactly like the RCCE version (rank 0 decides, MPI_Bcast of the
 * decision outside the timed region).  Same output with "impl":"mpi".
 */
#include "../common/bench_common.h"
#include <mpi.h>

static int np, me;
static int bad;

static void op(int which) {
  if (which == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    double in = 1.0, out = 0.0;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (out != (double)np) bad++;
  }
}

static double batch(int which, long n) {
  double t0 = bench_now();
  for (long i = 0; i < n; i++) op(which);
  return bench_now() - t0;
}

static void measure(int which, const bench_opts *o) {
  bad = 0;
  op(which); /* warm-up */
  long n = 1, iters = 0;
  for (;;) {
    double dt = batch(which, n);
    int64_t ctl[2] = {0, 0}; /* {stop, n} */
    if (me == 0) {
      if (bench_calib_done(o->target_s, n, dt)) {
        ctl[0] = 1;
        ctl[1] = bench_iters_for(o->target_s, n, dt, o->min_iters);
      } else {
        ctl[1] = 2 * n;
      }
    }
    MPI_Bcast(ctl, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (ctl[0]) {
      iters = (long)ctl[1];
      break;
    }
    n = (long)ctl[1];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double dt = batch(which, iters);
  int v = bad, tot = 0;
  if (which == 1) {
    MPI_Reduce(&v, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    v = tot;
  }
  if (me == 0) {
    printf("{\"bench\":\"%s\",\"impl\":\"mpi\",\"ues\":%d,\"size\":%d,\"iters\":%ld,"
           "\"lat_us\":%.4f,\"valid\":%s}\n",
           which == 0 ? "barrier" : "allreduce", np, which == 0 ? 0 : 8, iters,
           dt / (double)iters * 1e6, v ? "false" : "true");
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  measure(0, &o);
  measure(1, &o);
  MPI_Finalize();
  return 0;
}

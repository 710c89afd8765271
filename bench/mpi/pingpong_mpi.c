/*
 * pingpong_mpi.c - MPI peer of bench/rcce/pingpong_bench.c.
 *
 * Same protocol, same output, with MPI_Send / MPI_Recv between ranks 0 and 1
 * (blocking standard-mode send; control messages on tag 1, data on tag 0).
 *   {"bench":"pingpong","impl":"mpi","ues":N,"size":8,"iters":...,"half_rtt_us":...,"valid":true}
 */
#include "../common/bench_common.h"
#include <mpi.h>

static char *buf;

static void send_ctl(long n, long size) {
  int64_t ctl[2] = {n, size};
  MPI_Send(ctl, 2, MPI_INT64_T, 1, 1, MPI_COMM_WORLD);
}

static double batch(long n, long size) {
  send_ctl(n, size);
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bench_now() - t0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np < 2) {
    if (me == 0) fprintf(stderr, "pingpong_mpi: needs at least 2 ranks (got %d)\n", np);
    MPI_Finalize();
    return 1;
  }
  long maxbuf = o.max_size > 8 ? o.max_size : 8;
  buf = malloc((size_t)maxbuf);
  if (!buf) {
    fprintf(stderr, "pingpong_mpi: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, 0, (size_t)maxbuf);

  if (me == 0) {
    for (int k = 0; k < BENCH_PP_NSIZES; k++) {
      long size = bench_pp_sizes[k];
      if (size > o.max_size) break;
      batch(2, size); /* warm-up */
      long n = 1;
      double dt = batch(n, size);
      while (!bench_calib_done(o.target_s, n, dt)) {
        n *= 2;
        dt = batch(n, size);
      }
      long iters = bench_iters_for(o.target_s, n, dt, o.min_iters);
      unsigned char pat = (unsigned char)(0x5a ^ k);
      if (size > 0) memset(buf, pat, (size_t)size);
      dt = batch(iters, size);
      int valid = size == 0 || ((unsigned char)buf[0] == pat && (unsigned char)buf[size - 1] == pat);
      printf("{\"bench\":\"pingpong\",\"impl\":\"mpi\",\"ues\":%d,\"size\":%ld,\"iters\":%ld,"
             "\"half_rtt_us\":%.4f,\"valid\":%s}\n",
             np, size, iters, dt / (double)iters / 2.0 * 1e6, valid ? "true" : "false");
      fflush(stdout);
    }
    send_ctl(0, 0);
  } else if (me == 1) {
    for (;;) {
      int64_t ctl[2];
      MPI_Recv(ctl, 2, MPI_INT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (ctl[0] == 0) break;
      for (long i = 0; i < (long)ctl[0]; i++) {
        MPI_Recv(buf, (int)ctl[1], MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)ctl[1], MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}

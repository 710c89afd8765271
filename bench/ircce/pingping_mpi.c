/*
 * pingping_mpi.c - MPI peer of ircce_bench.c's pingping mode (the same driver,
 * bench/ircce/xfer_driver.h): both ranks post MPI_Irecv and MPI_Isend at
 * once and complete them with MPI_Waitall.  Control messages use MPI_Send /
 * MPI_Recv on another tag.
 */
#include "../mpi/mpi_main.h"
#include "xfer_driver.h"

static int xargc;
static char **xargv;

static void ctl_snd(void *buf, long size, int peer) { MPI_Send(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD); }
static void ctl_rcv(void *buf, long size, int peer) {
  MPI_Recv(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void mpi_exchange(char *sbuf, char *rbuf, long size, int peer) {
  MPI_Request req[2];
  MPI_Status st[2];
  MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, st);
}

static const xmode modes[] = {
    {"pingping", "pingping", "mpi", XK_PINGPING, NULL, NULL, mpi_exchange, NULL, NULL},
};

static int run(int me, int np, const bench_opts *o) {
  xtransport t = {ctl_snd, ctl_rcv, modes, 1};
  return xfer_run(&t, me, np, xargc, xargv, o);
}

int main(int argc, char **argv) {
  xargc = argc;
  xargv = argv;
  return mpi_bench_main(argc, argv, run);
}

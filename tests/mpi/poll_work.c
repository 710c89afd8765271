/*
 * poll_work.c - ranks that poll with MPI's nonblocking tests between steps of their own work
 * (docs/mpi-channel.md "Waiting"), in two phases:
 *   updates   HPCC's MPIRandomAccess pattern: each rank makes UPDATES pseudo-random updates, one
 *             per step, and sends each to the rank its value picks (its own are applied at once),
 *             batched per destination (MPI_Isend of BATCH updates once the previous send to it has
 *             completed: MPI_Test); before every step it polls its receives (MPI_Testany over one
 *             MPI_Irecv per peer) and applies what came.  At the end every rank sends each peer an
 *             empty batch ("done") and polls until every peer's came.  The job's applied updates
 *             must equal its generated ones, in number and in sum.
 *   deadline  every rank polls MPI_Test on a receive nobody sends to until SECONDS of MPI_Wtime
 *             have passed (its own exit condition), then cancels it.
 * Neither phase waits in MPI: the deadlock detector must not end the job, and the updates must not
 * slow to one step per nap of the provider.
 *
 * usage: poll_work UPDATES SECONDS
 *   Rank 0 prints "poll_work: OK (U updates on P ranks, polled S s)".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 64
#define TAG 7

struct peer {
  uint64_t out[BATCH], sending[BATCH], in[BATCH]; /* out fills while sending is under way */
  int n_out;
  MPI_Request send;
};

struct tally {
  uint64_t generated, generated_sum, applied, applied_sum;
};

static void apply(struct tally *t, uint64_t v) {
  t->applied++;
  t->applied_sum += v;
}

static uint64_t next_value(uint64_t *x) { /* xorshift64 */
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Poll every receive once; returns 1 when a "done" (empty batch) came. */
static int poll_receives(struct peer *p, MPI_Request *recv, int np, struct tally *t, int *done_peers) {
  int index, flag, got_done = 0;
  MPI_Status st;
  MPI_Testany(np, recv, &index, &flag, &st);
  if (!flag || index == MPI_UNDEFINED) return 0;
  int count;
  MPI_Get_count(&st, MPI_UINT64_T, &count);
  for (int i = 0; i < count; i++) apply(t, p[index].in[i]);
  if (count == 0) {
    (*done_peers)++;
    got_done = 1;
  } else {
    MPI_Irecv(p[index].in, BATCH, MPI_UINT64_T, index, TAG, MPI_COMM_WORLD, &recv[index]);
  }
  return got_done;
}

static void flush(struct peer *p, int dest) {
  MPI_Wait(&p[dest].send, MPI_STATUS_IGNORE);
  memcpy(p[dest].sending, p[dest].out, (size_t)p[dest].n_out * sizeof *p[dest].out);
  MPI_Isend(p[dest].sending, p[dest].n_out, MPI_UINT64_T, dest, TAG, MPI_COMM_WORLD, &p[dest].send);
  p[dest].n_out = 0;
}

static void updates(long n, int me, int np) {
  struct peer *p = calloc((size_t)np, sizeof *p);
  MPI_Request *recv = malloc((size_t)np * sizeof *recv);
  struct tally t = {0};
  int done_peers = 0;
  for (int r = 0; r < np; r++) {
    p[r].send = MPI_REQUEST_NULL;
    recv[r] = MPI_REQUEST_NULL;
    if (r != me) MPI_Irecv(p[r].in, BATCH, MPI_UINT64_T, r, TAG, MPI_COMM_WORLD, &recv[r]);
  }
  uint64_t x = 88172645463325252ull + (uint64_t)me;
  for (long i = 0; i < n;) {
    poll_receives(p, recv, np, &t, &done_peers);
    uint64_t v = next_value(&x);
    int dest = (int)(v % (uint64_t)np);
    if (dest == me) {
      apply(&t, v);
    } else {
      struct peer *d = &p[dest];
      if (d->n_out == BATCH) { /* full: send it once the previous send completed, else poll on */
        int sent;
        MPI_Test(&d->send, &sent, MPI_STATUS_IGNORE);
        if (!sent) continue;
        flush(p, dest);
      }
      d->out[d->n_out++] = v;
    }
    t.generated++;
    t.generated_sum += v;
    i++;
  }
  for (int r = 0; r < np; r++)
    if (r != me) {
      if (p[r].n_out) flush(p, r);
      flush(p, r); /* the empty batch: done */
    }
  while (done_peers < np - 1) poll_receives(p, recv, np, &t, &done_peers);
  for (int r = 0; r < np; r++) MPI_Wait(&p[r].send, MPI_STATUS_IGNORE);
  uint64_t mine[4] = {t.generated, t.generated_sum, t.applied, t.applied_sum}, all[4];
  MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (all[0] != all[2] || all[1] != all[3] || all[0] != (uint64_t)n * (uint64_t)np) {
    if (me == 0)
      printf("poll_work: updates lost: %llu generated, %llu applied\n", (unsigned long long)all[0],
             (unsigned long long)all[2]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(p);
  free(recv);
}

static void deadline(double seconds) {
  double until = MPI_Wtime() + seconds;
  int word, flag, cancelled;
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(&word, 1, MPI_INT, MPI_ANY_SOURCE, TAG + 1, MPI_COMM_WORLD, &r);
  do MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  while (!flag && MPI_Wtime() < until);
  if (!flag) MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  if (flag || !cancelled) {
    printf("poll_work: a message nobody sent\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long n = argc == 3 ? atol(argv[1]) : -1;
  double seconds = argc == 3 ? atof(argv[2]) : -1;
  if (n < 0 || seconds < 0) {
    if (me == 0) fprintf(stderr, "usage: poll_work UPDATES SECONDS\n");
    MPI_Finalize();
    return 2;
  }
  updates(n, me, np);
  deadline(seconds);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("poll_work: OK (%ld updates on %d ranks, polled %g s)\n", n, np, seconds);
  MPI_Finalize();
  return 0;
}

/* MPI's atomic one-sided operations under each synchronisation
 * (docs/mpi-provider.md "One-sided operations"): every rank aims
 * MPI_Accumulate (MPI_SUM, MPI_MAX), MPI_Fetch_and_op (MPI_SUM),
 * MPI_Compare_and_swap and MPI_Get_accumulate (MPI_SUM, then MPI_NO_OP) at
 * rank 0's window (MPI_Win_allocate), all at once, under MPI_Win_fence, a
 * shared MPI_Win_lock/unlock and MPI_Win_lock_all with MPI_Win_flush; the
 * results show whether the operations were atomic (MPI-3.1 11.7.1): sums
 * complete, fetched old values each seen by exactly one rank, exactly one
 * compare-and-swap winner.
 *   mpicc rma_atomics.c -o rma_atomics; rccerun --mpi mpich -nue 8 ./rma_atomics [ROUNDS]
 * ROUNDS (default 2): how often each synchronisation is run.  Prints
 * "rma_atomics: OK (N ranks, ROUNDS rounds)" on rank 0; a failure prints
 * "rma_atomics: rank r: SYNC: WHAT" and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ELEMS = 4 };
/* Rank 0's window: accumulated sums, a maximum, the fetch-and-op counter,
 * the compare-and-swap slot, the get-accumulate sums. */
enum { W_ACC = 0, W_MAX = W_ACC + ELEMS, W_FOP, W_CAS, W_GACC, W_SLOTS = W_GACC + ELEMS };

enum sync { SYNC_FENCE, SYNC_LOCK, SYNC_LOCK_ALL, SYNC_COUNT };
static const char *const sync_names[SYNC_COUNT] = {"fence", "lock/unlock", "lock_all/flush"};

static int me, np;
static const char *sync_name;

static void fail(const char *what, long got, long want) {
  printf("rma_atomics: rank %d: %s: %s: %ld, expected %ld\n", me, sync_name, what, got, want);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void expect(const char *what, long got, long want) {
  if (got != want) fail(what, got, want);
}

/* What one rank fetched: the old counter, the compare-and-swap's old value,
 * the get-accumulate's old sums. */
struct fetched {
  long fop;
  long cas;
  long gacc[ELEMS];
};

/* Every rank's operations on rank 0, between the synchronisation calls. */
static void operate(MPI_Win win, enum sync s, struct fetched *f) {
  long add[ELEMS], ones[ELEMS] = {1, 1, 1, 1}, one = 1, mine = me, none = -1;
  for (int i = 0; i < ELEMS; i++) add[i] = (long)(me + 1) * (i + 1);
  MPI_Accumulate(add, ELEMS, MPI_LONG, 0, W_ACC, ELEMS, MPI_LONG, MPI_SUM, win);
  MPI_Accumulate(&mine, 1, MPI_LONG, 0, W_MAX, 1, MPI_LONG, MPI_MAX, win);
  if (s == SYNC_LOCK_ALL) MPI_Win_flush(0, win); /* the accumulates are complete at the target */
  MPI_Fetch_and_op(&one, &f->fop, MPI_LONG, 0, W_FOP, MPI_SUM, win);
  MPI_Compare_and_swap(&mine, &none, &f->cas, MPI_LONG, 0, W_CAS, win);
  MPI_Get_accumulate(ones, ELEMS, MPI_LONG, f->gacc, ELEMS, MPI_LONG, 0, W_GACC, ELEMS, MPI_LONG, MPI_SUM, win);
}

static void run_epoch(MPI_Win win, enum sync s, struct fetched *f) {
  switch (s) {
    case SYNC_FENCE:
      MPI_Win_fence(0, win);
      operate(win, s, f);
      MPI_Win_fence(0, win);
      break;
    case SYNC_LOCK:
      MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
      operate(win, s, f);
      MPI_Win_unlock(0, win);
      break;
    default:
      MPI_Win_lock_all(0, win);
      operate(win, s, f);
      MPI_Win_flush_all(win);
      MPI_Win_unlock_all(win);
      break;
  }
}

/* Rank 0: each value 0..np-1 fetched exactly once across the ranks (the
 * adds were atomic, each saw a different old value). */
static void expect_each_once(const char *what, const long *olds, size_t stride) {
  int seen[np];
  for (int r = 0; r < np; r++) seen[r] = 0;
  for (int r = 0; r < np; r++) {
    long v = olds[(size_t)r * stride];
    if (v < 0 || v >= np || seen[v]++) fail(what, v, r);
  }
}

/* Rank 0: the fetched values of all ranks. */
static void check_fetched(const struct fetched *all) {
  const size_t stride = sizeof(struct fetched) / sizeof(long);
  expect_each_once("MPI_Fetch_and_op's old values", &all[0].fop, stride);
  for (int i = 0; i < ELEMS; i++) expect_each_once("MPI_Get_accumulate's old values", &all[0].gacc[i], stride);
  int winner = -1, winners = 0;
  for (int r = 0; r < np; r++)
    if (all[r].cas == -1) winner = r, winners++;
  expect("MPI_Compare_and_swap winners", winners, 1);
  for (int r = 0; r < np; r++)
    if (r != winner) expect("a losing MPI_Compare_and_swap's old value", all[r].cas, winner);
}

/* Rank 0's window after the epoch, read by the last rank through
 * MPI_Get_accumulate(MPI_NO_OP) (an atomic read), then checked by rank 0. */
static void check_window(MPI_Win win, const struct fetched *all) {
  long got[W_SLOTS];
  if (me == np - 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get_accumulate(NULL, 0, MPI_LONG, got, W_SLOTS, MPI_LONG, 0, 0, W_SLOTS, MPI_LONG, MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Bcast(got, W_SLOTS, MPI_LONG, np - 1, MPI_COMM_WORLD);
  if (me != 0) return;
  for (int i = 0; i < ELEMS; i++) {
    expect("MPI_Accumulate(MPI_SUM)'s sums", got[W_ACC + i], (long)(i + 1) * np * (np + 1) / 2);
    expect("MPI_Get_accumulate(MPI_SUM)'s sums", got[W_GACC + i], np);
  }
  expect("MPI_Accumulate(MPI_MAX)'s maximum", got[W_MAX], np - 1);
  expect("MPI_Fetch_and_op's counter", got[W_FOP], np);
  long winner = -1;
  for (int r = 0; r < np; r++)
    if (all[r].cas == -1) winner = r;
  expect("MPI_Compare_and_swap's slot", got[W_CAS], winner);
}

/* The window's initial values, stored by rank 0 under an exclusive lock of its own window. */
static void reset(MPI_Win win, long *buf) {
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i < W_SLOTS; i++) buf[i] = 0;
    buf[W_MAX] = -1;
    buf[W_CAS] = -1;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  if (rounds < 1) {
    if (me == 0) fprintf(stderr, "rma_atomics: ROUNDS must be a positive number, not '%s'\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  long *buf;
  MPI_Win win;
  MPI_Win_allocate(W_SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
  struct fetched *all = malloc((size_t)np * sizeof *all);
  for (int round = 0; round < rounds; round++)
    for (enum sync s = 0; s < SYNC_COUNT; s++) {
      sync_name = sync_names[s];
      reset(win, buf);
      struct fetched f;
      run_epoch(win, s, &f);
      MPI_Gather(&f, sizeof f, MPI_BYTE, all, sizeof f, MPI_BYTE, 0, MPI_COMM_WORLD);
      if (me == 0) check_fetched(all);
      MPI_Bcast(all, (int)(np * sizeof *all), MPI_BYTE, 0, MPI_COMM_WORLD);
      check_window(win, all);
    }
  if (me == 0) printf("rma_atomics: OK (%d ranks, %d rounds)\n", np, rounds);
  free(all);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

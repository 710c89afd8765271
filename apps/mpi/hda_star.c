/*
 * hda_star: hash-distributed best-first search on a sliding-tile puzzle, an
 * ordinary MPI program (built with the MPI library's own mpicc).
 *
 * The parallel planner of [AIPLAN-2011] (docs/references.md) distributes
 * search nodes among processes by a hash of their state, as TDS and HDA* do:
 * every occurrence of a state reaches the one process that owns it, which
 * drops duplicates and expands the rest, while nodes travel asynchronously
 * (sent in batches, received from any source between expansions).  This
 * program searches optimally (A* with the Manhattan-distance heuristic, which
 * is consistent), so it also needs what the paper left out: distributed
 * termination.  It uses counting waves: every rank keeps one pair of
 * non-blocking allreduces in flight with its counts of batches sent and
 * received, whether it has work left below the best solution found, and that
 * solution's length; the search has ended when two consecutive waves see
 * every rank idle and the same, equal totals of batches sent and received
 * (Mattern's four-counter method).  Rank 0 then checks the length against a
 * sequential IDA* search of the same instance.
 *
 * The waves also bound the work, as sequential A* is bounded: a rank expands
 * only nodes whose f is at most the f bound, which a wave raises to the
 * minimum f over every rank's open list only when it finds no batch sent or
 * received since the previous wave (the totals above, unchanged and equal):
 * then no node is in flight, that minimum is the search frontier's, and it
 * cannot exceed the optimal length while the goal is unexpanded (an optimal
 * path always has a node on the frontier).  So no rank expands a node with f
 * above the optimum.  Without the bound a rank whose low-f nodes all live on
 * other ranks expands its own ever larger f layers whenever another rank is
 * slow to be scheduled: on a loaded host a 34-move instance expanded nodes up
 * to f = 84, millions of them, and timed out.
 *
 * Usage: hda_star [SIDE [WALK [SEED]]]  -- a SIDE x SIDE puzzle (3 or 4)
 * scrambled by WALK random moves from the goal (default 4 60 1).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 4
#define BATCH_NODES 256 /* nodes per message */
#define EXPAND_PER_ROUND 64
#define TAG_NODES 1
#define NO_SOLUTION UINT32_MAX

/* A state packs tile numbers 4 bits per position; tile 0 is the blank.  The
 * goal has tile t at position t. */
typedef uint64_t state_t;

static int side, cells;

static int tile_at(state_t s, int pos) { return (int)((s >> (4 * pos)) & 15u); }

static state_t with_tile(state_t s, int pos, int tile) {
  return (s & ~((state_t)15u << (4 * pos))) | ((state_t)tile << (4 * pos));
}

static state_t goal_state(void) {
  state_t s = 0;
  for (int p = 0; p < cells; p++) s = with_tile(s, p, p);
  return s;
}

static int blank_of(state_t s) {
  for (int p = 0; p < cells; p++)
    if (tile_at(s, p) == 0) return p;
  return -1;
}

static int manhattan(state_t s) {
  int h = 0;
  for (int p = 0; p < cells; p++) {
    int t = tile_at(s, p);
    if (t) h += abs(p / side - t / side) + abs(p % side - t % side);
  }
  return h;
}

/* The neighbours of the blank at `blank`: up to 4 positions into out. */
static int blank_moves(int blank, int out[4]) {
  int n = 0, r = blank / side, c = blank % side;
  if (r > 0) out[n++] = blank - side;
  if (r < side - 1) out[n++] = blank + side;
  if (c > 0) out[n++] = blank - 1;
  if (c < side - 1) out[n++] = blank + 1;
  return n;
}

static state_t slide(state_t s, int blank, int from) {
  return with_tile(with_tile(s, blank, tile_at(s, from)), from, 0);
}

/* A reproducible scramble: `walk` random moves, never straight back. */
static state_t scramble(int walk, unsigned seed) {
  state_t s = goal_state();
  int blank = 0, prev = -1;
  srand(seed);
  for (int i = 0; i < walk; i++) {
    int m[4], n = blank_moves(blank, m), pick;
    do pick = m[rand() % n];
    while (pick == prev && n > 1);
    s = slide(s, blank, pick);
    prev = blank;
    blank = pick;
  }
  return s;
}

/* --- sequential IDA* (Korf 1985): the independent check ------------------- */
static int ida_bound_search(state_t s, int blank, int prev, int g, int bound, int *next_bound) {
  int f = g + manhattan(s);
  if (f > bound) {
    if (f < *next_bound) *next_bound = f;
    return 0;
  }
  if (s == goal_state()) return 1;
  int m[4], n = blank_moves(blank, m);
  for (int i = 0; i < n; i++)
    if (m[i] != prev && ida_bound_search(slide(s, blank, m[i]), m[i], blank, g + 1, bound, next_bound)) return 1;
  return 0;
}

static int ida_star(state_t start) {
  for (int bound = manhattan(start);;) {
    int next = 1 << 30;
    if (ida_bound_search(start, blank_of(start), -1, 0, bound, &next)) return bound;
    bound = next;
  }
}

/* --- this rank's part of the search ---------------------------------------- */
struct node {
  state_t state;
  uint32_t g, f;
};

/* Open list: a binary heap by f, deeper nodes first among equal f. */
struct heap {
  struct node *v;
  size_t n, cap;
};

static int before(const struct node *a, const struct node *b) { return a->f < b->f || (a->f == b->f && a->g > b->g); }

static void heap_push(struct heap *h, struct node x) {
  if (h->n == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 1024;
    h->v = realloc(h->v, h->cap * sizeof *h->v);
    if (!h->v) MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t i = h->n++;
  for (; i > 0 && before(&x, &h->v[(i - 1) / 2]); i = (i - 1) / 2) h->v[i] = h->v[(i - 1) / 2];
  h->v[i] = x;
}

static struct node heap_pop(struct heap *h) {
  struct node top = h->v[0], last = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c])) c++;
    if (!before(&h->v[c], &last)) break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n) h->v[i] = last;
  return top;
}

/* Closed list: the best g seen per state (open addressing; state 0 never
 * occurs, since the tiles of a state are distinct). */
struct closed {
  state_t *key;
  uint32_t *g;
  size_t n, cap;
};

static uint64_t mix64(uint64_t x) { /* splitmix64's finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void closed_grow(struct closed *c);

/* The slot of s (found or empty). */
static size_t closed_slot(const struct closed *c, state_t s) {
  size_t i = mix64(s) & (c->cap - 1);
  while (c->key[i] && c->key[i] != s) i = (i + 1) & (c->cap - 1);
  return i;
}

/* Record g for s; 1 if s is new or reached more cheaply than before. */
static int closed_improve(struct closed *c, state_t s, uint32_t g) {
  if (2 * (c->n + 1) > c->cap) closed_grow(c);
  size_t i = closed_slot(c, s);
  if (c->key[i] && c->g[i] <= g) return 0;
  if (!c->key[i]) c->n++;
  c->key[i] = s;
  c->g[i] = g;
  return 1;
}

static void closed_grow(struct closed *c) {
  struct closed big = {calloc(c->cap ? 2 * c->cap : 1 << 16, sizeof(state_t)),
                       calloc(c->cap ? 2 * c->cap : 1 << 16, sizeof(uint32_t)), 0, c->cap ? 2 * c->cap : 1 << 16};
  if (!big.key || !big.g) MPI_Abort(MPI_COMM_WORLD, 2);
  for (size_t i = 0; i < c->cap; i++)
    if (c->key[i]) {
      size_t j = closed_slot(&big, c->key[i]);
      big.key[j] = c->key[i];
      big.g[j] = c->g[i];
      big.n++;
    }
  free(c->key);
  free(c->g);
  *c = big;
}

/* Outgoing batches: one buffer filling per destination, sent with Isend;
 * sent buffers are kept until their request completes. */
struct sent_batch {
  MPI_Request req;
  uint64_t *buf;
};

struct search {
  int rank, nranks;
  struct heap open;
  struct closed closed;
  uint64_t **outbox; /* per rank: (state, g) pairs */
  int *out_count;
  struct sent_batch *inflight;
  size_t n_inflight, cap_inflight;
  uint64_t batches_sent, batches_received, expanded;
  uint32_t incumbent; /* best solution length known here */
  uint32_t f_bound;   /* expand only nodes with f <= f_bound (raised by the waves) */
  uint32_t largest_f; /* of the nodes expanded here */
};

static int owner_of(const struct search *S, state_t s) { return (int)(mix64(s) % (uint64_t)S->nranks); }

static void offer_local(struct search *S, state_t s, uint32_t g) {
  uint32_t f = g + (uint32_t)manhattan(s);
  if (f >= S->incumbent) return; /* cannot improve on the solution found */
  if (closed_improve(&S->closed, s, g)) heap_push(&S->open, (struct node){s, g, f});
}

static void flush_outbox(struct search *S, int dest) {
  if (!S->out_count[dest]) return;
  if (S->n_inflight == S->cap_inflight) {
    S->cap_inflight = S->cap_inflight ? 2 * S->cap_inflight : 64;
    S->inflight = realloc(S->inflight, S->cap_inflight * sizeof *S->inflight);
    if (!S->inflight) MPI_Abort(MPI_COMM_WORLD, 2);
  }
  struct sent_batch *b = &S->inflight[S->n_inflight++];
  b->buf = S->outbox[dest];
  MPI_Isend(b->buf, 2 * S->out_count[dest], MPI_UINT64_T, dest, TAG_NODES, MPI_COMM_WORLD, &b->req);
  S->batches_sent++;
  S->outbox[dest] = malloc(2 * BATCH_NODES * sizeof(uint64_t));
  if (!S->outbox[dest]) MPI_Abort(MPI_COMM_WORLD, 2);
  S->out_count[dest] = 0;
}

static void offer(struct search *S, state_t s, uint32_t g) {
  int dest = owner_of(S, s);
  if (dest == S->rank) {
    offer_local(S, s, g);
    return;
  }
  uint64_t *slot = S->outbox[dest] + 2 * S->out_count[dest];
  slot[0] = s;
  slot[1] = g;
  if (++S->out_count[dest] == BATCH_NODES) flush_outbox(S, dest);
}

/* Free the buffers of batches that have left. */
static void reap_sent(struct search *S) {
  size_t keep = 0;
  for (size_t i = 0; i < S->n_inflight; i++) {
    int done;
    MPI_Test(&S->inflight[i].req, &done, MPI_STATUS_IGNORE);
    if (done) free(S->inflight[i].buf);
    else S->inflight[keep++] = S->inflight[i];
  }
  S->n_inflight = keep;
}

/* Take every batch that has arrived, from any rank. */
static void receive_batches(struct search *S) {
  for (;;) {
    int arrived, count;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_NODES, MPI_COMM_WORLD, &arrived, &st);
    if (!arrived) return;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    uint64_t *buf = malloc((size_t)count * sizeof *buf + 1);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Recv(buf, count, MPI_UINT64_T, st.MPI_SOURCE, TAG_NODES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    S->batches_received++;
    for (int i = 0; i + 1 < count; i += 2) offer_local(S, (state_t)buf[i], (uint32_t)buf[i + 1]);
    free(buf);
  }
}

/* The f of the best node of the open list (NO_SOLUTION when it is empty). */
static uint32_t best_open_f(const struct search *S) { return S->open.n ? S->open.v[0].f : NO_SOLUTION; }

/* Expand up to EXPAND_PER_ROUND nodes of the open list, none above the f bound. */
static void expand_some(struct search *S) {
  for (int k = 0; k < EXPAND_PER_ROUND && S->open.n; k++) {
    if (best_open_f(S) >= S->incumbent) { /* the heap's best cannot beat the solution: nothing left */
      S->open.n = 0;
      break;
    }
    if (best_open_f(S) > S->f_bound) break; /* wait for a wave to raise the bound */
    struct node x = heap_pop(&S->open);
    size_t slot = closed_slot(&S->closed, x.state);
    if (S->closed.g[slot] < x.g) continue; /* reached more cheaply since it was queued */
    S->expanded++;
    if (x.f > S->largest_f) S->largest_f = x.f;
    if (x.state == goal_state()) {
      S->incumbent = x.g;
      continue;
    }
    int blank = blank_of(x.state), m[4], n = blank_moves(blank, m);
    for (int i = 0; i < n; i++) offer(S, slide(x.state, blank, m[i]), x.g + 1);
  }
  for (int d = 0; d < S->nranks; d++) flush_outbox(S, d);
}

/* One termination wave: sums of batches sent and received, and minima of
 * "has work", the solution length and the best f of the open lists. */
struct wave {
  MPI_Request req[2];
  uint64_t counts[2], counts_sum[2];
  uint32_t mins[3], mins_min[3]; /* idle (1) or not, solution length, best open f */
};

static void wave_start(struct search *S, struct wave *w) {
  w->counts[0] = S->batches_sent;
  w->counts[1] = S->batches_received;
  w->mins[0] = S->open.n == 0; /* idle: the minimum is 1 only when every rank is */
  w->mins[1] = S->incumbent;
  w->mins[2] = best_open_f(S);
  MPI_Iallreduce(w->counts, w->counts_sum, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &w->req[0]);
  MPI_Iallreduce(w->mins, w->mins_min, 3, MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD, &w->req[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct search S;
  memset(&S, 0, sizeof S);
  MPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &S.nranks);
  side = argc > 1 ? atoi(argv[1]) : 4;
  int walk = argc > 2 ? atoi(argv[2]) : 60;
  unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1u;
  if (side < 3 || side > MAX_SIDE || walk < 0) {
    if (S.rank == 0) fprintf(stderr, "usage: hda_star [SIDE (3 or 4) [WALK (>= 0) [SEED]]]\n");
    MPI_Finalize();
    return 2;
  }
  cells = side * side;
  state_t start = scramble(walk, seed);
  S.incumbent = NO_SOLUTION;
  S.f_bound = (uint32_t)manhattan(start); /* the start node's f */
  S.outbox = calloc((size_t)S.nranks, sizeof *S.outbox);
  S.out_count = calloc((size_t)S.nranks, sizeof *S.out_count);
  for (int d = 0; d < S.nranks; d++) S.outbox[d] = malloc(2 * BATCH_NODES * sizeof(uint64_t));
  double t0 = MPI_Wtime();
  if (owner_of(&S, start) == S.rank) offer_local(&S, start, 0);

  struct wave w;
  wave_start(&S, &w);
  uint64_t prev_sent = UINT64_MAX, prev_received = UINT64_MAX;
  int prev_idle = 0, waves = 0;
  for (;;) {
    receive_batches(&S);
    expand_some(&S);
    reap_sent(&S);
    int done;
    MPI_Testall(2, w.req, &done, MPI_STATUSES_IGNORE);
    if (!done) continue;
    waves++;
    if (w.mins_min[1] < S.incumbent) S.incumbent = w.mins_min[1]; /* prune with the best length anywhere */
    /* Quiet: no batch sent or received between the two waves' snapshots and
     * none in flight (Mattern's four counters), so this wave's minimum f is
     * the frontier's.  When every rank waits above the bound it stops
     * sending, so a quiet wave soon raises the bound. */
    int quiet = w.counts_sum[0] == w.counts_sum[1] && w.counts_sum[0] == prev_sent && w.counts_sum[1] == prev_received;
    int idle = w.mins_min[0] == 1;
    if (idle && prev_idle && quiet) break;
    if (quiet && w.mins_min[2] != NO_SOLUTION && w.mins_min[2] > S.f_bound) S.f_bound = w.mins_min[2];
    prev_idle = idle;
    prev_sent = w.counts_sum[0];
    prev_received = w.counts_sum[1];
    wave_start(&S, &w);
  }
  double elapsed = MPI_Wtime() - t0;
  /* Every batch has been received (the waves' totals agree): complete its send. */
  for (size_t i = 0; i < S.n_inflight; i++) MPI_Wait(&S.inflight[i].req, MPI_STATUS_IGNORE);
  reap_sent(&S);

  uint64_t expanded_min, expanded_max, expanded_sum;
  MPI_Reduce(&S.expanded, &expanded_min, 1, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&S.expanded, &expanded_max, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&S.expanded, &expanded_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  uint32_t largest_f;
  MPI_Reduce(&S.largest_f, &largest_f, 1, MPI_UINT32_T, MPI_MAX, 0, MPI_COMM_WORLD);
  int status = 0;
  if (S.rank == 0) {
    int optimal = ida_star(start);
    printf("hda_star: %d-puzzle (walk %d, seed %u) on %d ranks: %u moves; sequential IDA*: %d moves -> %s\n", cells - 1,
           walk, seed, S.nranks, S.incumbent, optimal, S.incumbent == (uint32_t)optimal ? "optimal" : "NOT OPTIMAL");
    printf("hda_star: expanded %llu nodes (per rank %llu .. %llu), largest f %u, %d termination waves, %.6f s\n",
           (unsigned long long)expanded_sum, (unsigned long long)expanded_min, (unsigned long long)expanded_max,
           largest_f, waves, elapsed);
    status = S.incumbent != (uint32_t)optimal;
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int d = 0; d < S.nranks; d++) free(S.outbox[d]);
  free(S.outbox);
  free(S.out_count);
  free(S.inflight);
  free(S.open.v);
  free(S.closed.key);
  free(S.closed.g);
  MPI_Finalize();
  return status;
}

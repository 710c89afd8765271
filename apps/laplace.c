/*
 * laplace.c - the two-dimensional Laplace problem of [SVM-2012] (docs/references.md) (Lankes et
 * al., MetalSVM) section 7.2.2: Jacobi over-relaxation on a rows x 512 grid
 * of doubles (default 1024 x 512: one row is 4096 bytes, one SVM page), in
 * three variants chosen by the first argument:
 *
 *   mp      message passing: each UE keeps its rows plus two halo rows in
 *           private memory and swaps boundary rows with its neighbours every
 *           iteration with iRCCE_isend/iRCCE_irecv and a wait list (the
 *           paper's iRCCE variant);
 *   strong  shared virtual memory, svm_alloc(..., SVM_STRONG): two arrays old
 *   lazy    and next (SVM_LAZY_RELEASE for lazy), each UE first touches its own
 *           rows so their frames come from its nearest memory controller;
 *           every iteration computes its rows of next from old, svm_barrier,
 *           then old and next swap.
 *
 * Row 0 is held at 1.0; the last row and the first and last columns at 0.0;
 * the interior starts at 0.0.  Interior rows 1..rows-2 are split into
 * RCCE_num_ues() blocks.  Every point is computed by one expression
 * (sweep()), so every variant and UE count gives the same bits.  At the end
 * UE 0 holds the whole grid (mp: gathered with RCCE_send/RCCE_recv; svm: read
 * in place after the last svm_barrier), prints its checksum -- the plain sum
 * of all points in row-major order, with the bits of that double -- and an
 * FNV-1a hash of the points' bits, then recomputes the grid serially and
 * checks every bit.  Only the iterations are timed (RCCE_wtime: virtual
 * seconds in model mode); the time printed is the maximum over UEs.
 *
 * usage: laplace mp|strong|lazy [iterations=100] [rows=1024]
 */
#define APP_NAME "laplace"
#include "app_common.h"
#include "iRCCE.h"
#include "scc_svm.h"

#include <inttypes.h>

#define COLS 512
#define ROW_BYTES (COLS * sizeof(double))

enum variant { MP, STRONG, LAZY };
static const char *const variant_names[] = {"mp", "strong", "lazy"};

typedef struct {
  enum variant variant;
  int rows, iterations;
  int lo, hi; /* this UE's interior rows: lo .. hi-1 */
} problem;

/* Interior rows 1..rows-2 in np nearly equal blocks; UE ue gets [*lo, *hi). */
static void block_of(int ue, int np, int rows, int *lo, int *hi) {
  long n = rows - 2;
  *lo = 1 + (int)(n * ue / np);
  *hi = 1 + (int)(n * (ue + 1) / np);
}

/* Initial values of `count` rows starting at global row `first`. */
static void init_rows(double *g, int first, int count) {
  for (int i = 0; i < count; i++)
    for (int j = 0; j < COLS; j++) g[(size_t)i * COLS + j] = first + i == 0 ? 1.0 : 0.0;
}

/* One Jacobi step for `count` rows: out row i from in rows i-1, i, i+1 (in
   and out point at the first row to compute; in[-COLS..] is the row above). */
static void sweep(const double *in, double *out, int count) {
  for (int i = 0; i < count; i++) {
    const double *up = in + (ptrdiff_t)(i - 1) * COLS, *mid = in + (size_t)i * COLS,
                 *down = in + (size_t)(i + 1) * COLS;
    double *o = out + (size_t)i * COLS;
    for (int j = 1; j < COLS - 1; j++) o[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
  }
}

/* ----------------------------------------------------- message passing */

static int ircce_ok(int rc, const char *what) {
  if (rc != iRCCE_SUCCESS && rc != iRCCE_PENDING) app_rc(rc, what);
  return rc == iRCCE_PENDING;
}

/* Halo exchange: rows 1 and count go to the UEs above and below, rows 0 and
   count+1 come from them; all four requests run at once. */
static void exchange(double *u, int count, int up, int down) {
  iRCCE_SEND_REQUEST sreq[2];
  iRCCE_RECV_REQUEST rreq[2];
  iRCCE_WAIT_LIST list;
  iRCCE_init_wait_list(&list);
  int peer[2] = {up, down}, halo[2] = {0, count + 1}, edge[2] = {1, count};
  for (int k = 0; k < 2; k++) {
    if (peer[k] < 0) continue;
    if (ircce_ok(iRCCE_irecv((char *)(u + (size_t)halo[k] * COLS), ROW_BYTES, peer[k], &rreq[k]), "iRCCE_irecv"))
      iRCCE_add_to_wait_list(&list, NULL, &rreq[k]);
    if (ircce_ok(iRCCE_isend((char *)(u + (size_t)edge[k] * COLS), ROW_BYTES, peer[k], &sreq[k]), "iRCCE_isend"))
      iRCCE_add_to_wait_list(&list, &sreq[k], NULL);
  }
  if (list.first) app_rc(iRCCE_wait_all(&list), "iRCCE_wait_all");
}

/* Returns the timed seconds; UE 0's grid (rows x COLS) receives the result. */
static double run_mp(const problem *p, double *grid) {
  int me = RCCE_ue(), np = RCCE_num_ues(), count = p->hi - p->lo;
  size_t bytes = ((size_t)count + 2) * ROW_BYTES;
  double *u = malloc(bytes), *v = malloc(bytes);
  if (!u || !v) app_die("out of memory");
  init_rows(u, p->lo - 1, count + 2);
  init_rows(v, p->lo - 1, count + 2);
  int up = me > 0 ? me - 1 : -1, down = me < np - 1 ? me + 1 : -1;

  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  for (int it = 0; it < p->iterations; it++) {
    exchange(u, count, up, down);
    sweep(u + COLS, v + COLS, count);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double t = RCCE_wtime() - t0;

  if (me == 0) { /* boundary rows, own rows, then every other UE's block */
    init_rows(grid, 0, p->rows);
    memcpy(grid + (size_t)p->lo * COLS, u + COLS, (size_t)count * ROW_BYTES);
    for (int ue = 1; ue < np; ue++) {
      int lo, hi;
      block_of(ue, np, p->rows, &lo, &hi);
      app_rc(RCCE_recv((char *)(grid + (size_t)lo * COLS), (size_t)(hi - lo) * ROW_BYTES, ue), "RCCE_recv");
    }
  } else {
    app_rc(RCCE_send((char *)(u + COLS), (size_t)count * ROW_BYTES, 0), "RCCE_send");
  }
  free(u);
  free(v);
  return t;
}

/* ------------------------------------------------ shared virtual memory */

static void svm_rc(int rc, const char *what) {
  if (rc != SVM_SUCCESS) app_error("%s returned %d (%s)", what, rc, svm_error_string(rc));
}

static double *svm_grid(size_t bytes, int model) {
  double *g = svm_alloc(bytes, model);
  if (!g) {
    app_error("svm_alloc(%zu) failed: %s", bytes, svm_error_string(svm_last_error()));
    app_die("cannot continue without the grid");
  }
  return g;
}

/* Returns the timed seconds; *result is the final grid, which UE 0 reads
   before the caller frees *area[0..1] (after svm_barrier). */
static double run_svm(const problem *p, double **result, double *area[2]) {
  int me = RCCE_ue(), np = RCCE_num_ues(), count = p->hi - p->lo;
  int model = p->variant == STRONG ? SVM_STRONG : SVM_LAZY_RELEASE;
  int rc = svm_init();
  if (rc != SVM_SUCCESS) {
    app_error("svm_init failed: %s", svm_error_string(rc));
    app_die("cannot continue without SVM");
  }
  size_t bytes = (size_t)p->rows * ROW_BYTES;
  double *old = area[0] = svm_grid(bytes, model), *next = area[1] = svm_grid(bytes, model);
  /* first touch: this UE's rows (and the fixed first/last row) land near it */
  for (int k = 0; k < 2; k++) {
    double *g = area[k];
    init_rows(g + (size_t)p->lo * COLS, p->lo, count);
    if (me == 0) init_rows(g, 0, 1);
    if (me == np - 1) init_rows(g + (size_t)(p->rows - 1) * COLS, p->rows - 1, 1);
  }
  svm_rc(svm_barrier(), "svm_barrier");

  double t0 = RCCE_wtime();
  for (int it = 0; it < p->iterations; it++) {
    sweep(old + (size_t)p->lo * COLS, next + (size_t)p->lo * COLS, count);
    svm_rc(svm_barrier(), "svm_barrier");
    double *tmp = old;
    old = next;
    next = tmp;
  }
  double t = RCCE_wtime() - t0;
  *result = old;
  return t;
}

/* ------------------------------------------------------------ results */

/* The plain row-major sum of the grid and an FNV-1a hash of its bits. */
static void checksum(const double *g, int rows, double *sum, uint64_t *hash) {
  double s = 0.0;
  uint64_t h = 14695981039346656037u;
  for (size_t k = 0; k < (size_t)rows * COLS; k++) {
    s += g[k];
    uint64_t bits;
    memcpy(&bits, &g[k], sizeof bits);
    for (int b = 0; b < 64; b += 8) h = (h ^ ((bits >> b) & 0xff)) * 1099511628211u;
  }
  *sum = s;
  *hash = h;
}

/* UE 0: the same iterations on one grid, compared bit for bit. */
static void verify(const double *g, const problem *p) {
  size_t n = (size_t)p->rows * COLS;
  double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
  if (!u || !v) app_die("out of memory");
  init_rows(u, 0, p->rows);
  init_rows(v, 0, p->rows);
  for (int it = 0; it < p->iterations; it++) {
    sweep(u + COLS, v + COLS, p->rows - 2);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  for (size_t k = 0; k < n; k++)
    if (memcmp(&u[k], &g[k], sizeof *g) != 0) {
      app_error("point (%zu, %zu) is %.17g, the serial computation gives %.17g", k / COLS, k % COLS, g[k], u[k]);
      break;
    }
  free(u);
  free(v);
}

static void report(const double *g, const problem *p, double t) {
  double sum;
  uint64_t hash, bits;
  checksum(g, p->rows, &sum, &hash);
  memcpy(&bits, &sum, sizeof bits);
  printf("laplace: variant=%s ues=%d rows=%d cols=%d iters=%d time_s=%.6f checksum=%.17g bits=0x%016" PRIx64
         " hash=0x%016" PRIx64 "\n",
         variant_names[p->variant], RCCE_num_ues(), p->rows, COLS, p->iterations, t, sum, bits, hash);
  fflush(stdout);
  verify(g, p);
}

/* ----------------------------------------------------------- arguments */

/* The variant (first argument), then app_args for the integers.  Returns -1
   to run, else the exit code (0 after --help, 2 on bad arguments). */
static int parse(int argc, char **argv, problem *p, app_arg *args, int nargs) {
  int me = RCCE_ue();
  for (int v = 0; v < 3; v++)
    if (argc > 1 && strcmp(argv[1], variant_names[v]) == 0) {
      p->variant = (enum variant)v;
      int rc = app_args(argc - 1, argv + 1, args, nargs, NULL);
      if (rc == 2 && me == 0) fprintf(stderr, "  variant (first argument): mp, strong or lazy\n");
      return rc;
    }
  int help = argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);
  if (me == 0) {
    if (!help)
      fprintf(stderr, "laplace: the first argument must be the variant mp, strong or lazy, got '%s'\n",
              argc > 1 ? argv[1] : "nothing");
    fprintf(help ? stdout : stderr, "usage: laplace mp|strong|lazy [iterations=100] [rows=1024]\n");
  }
  return help ? 0 : 2;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"iterations", 100, 1, 10000000}, {"rows", 1024, 3, 1L << 16}};
  problem p;
  int rc = parse(argc, argv, &p, args, 2);
  int np = RCCE_num_ues(), me = RCCE_ue();
  p.iterations = (int)args[0].value;
  p.rows = (int)args[1].value;
  if (rc < 0 && p.rows - 2 < np) {
    if (me == 0)
      fprintf(stderr, "laplace: %d rows leave %d interior rows, fewer than the %d UEs\n", p.rows, p.rows - 2, np);
    rc = 2;
  }
  if (rc >= 0) {
    RCCE_finalize();
    return rc;
  }
  block_of(me, np, p.rows, &p.lo, &p.hi);

  double *grid = NULL, *area[2] = {NULL, NULL}, t;
  if (p.variant == MP) {
    iRCCE_init();
    if (me == 0 && !(grid = malloc((size_t)p.rows * ROW_BYTES))) app_die("out of memory");
    t = run_mp(&p, grid);
  } else {
    t = run_svm(&p, &grid, area);
  }
  t = app_max_time(t);
  if (me == 0) report(grid, &p, t);
  if (p.variant == MP) {
    free(grid);
  } else { /* after UE 0 has read the grid */
    svm_rc(svm_barrier(), "svm_barrier");
    for (int k = 0; k < 2; k++) svm_rc(svm_free(area[k]), "svm_free");
  }
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/* SVM tests (scc_svm.h), one mode per run:
 *   counters N MODEL  N increments per UE of shared counters: one by a single
 *                     read-modify-write instruction without any lock (strong
 *                     model only: exact only if no two UEs ever have the page
 *                     writable at once), one by a load and a store under
 *                     svm_lock; both totals must be exact
 *   samepage N        every UE stores into its own word of one strong page
 *                     N times at once (concurrent faults, forwarded requests)
 *   visibility MODEL  data written before svm_unlock / svm_barrier is seen
 *                     after svm_lock / svm_barrier
 *   affinity CORES..  a page's frame sits behind the controller nearest to the
 *                     first toucher's tile
 *   stale             a lazy page re-read without an acquire: with rccerun
 *                     --svm-check the reader sees its stale copy, after
 *                     svm_invalidate the new value (prints what it saw)
 *   readonly          read-only pages read fine everywhere; then the last UE
 *                     writes one and must be stopped
 *   misuse            documented errors of svm_* calls
 *   stray             an access to a never-allocated window address
 */
#include <stdint.h>

#include "RCCE.h"
#include "scc_svm.h"
#include "testprog.h"

static int me, np;

static int model_arg(const char *s) {
  if (!strcmp(s, "strong")) return SVM_STRONG;
  if (!strcmp(s, "lazy")) return SVM_LAZY_RELEASE;
  fail("unknown model '%s'", s);
}

static void *alloc_or_fail(size_t bytes, int model) {
  void *p = svm_alloc(bytes, model);
  if (!p) fail("svm_alloc(%zu, %d): %s", bytes, model, svm_error_string(svm_last_error()));
  return p;
}

/* One x86 instruction that reads, adds and writes memory, without a lock
 * prefix: two UEs running it on one page at once would lose increments. */
static void add_one_unlocked(volatile int64_t *p) {
#if defined(__x86_64__)
  __asm__ volatile("addq $1, %0" : "+m"(*p));
#else
  *p += 1;
#endif
}

static void counters(int n, int model) {
  volatile int64_t *page = alloc_or_fail(2 * SVM_PAGE_SIZE, model);
  volatile int64_t *locked = page + SVM_PAGE_SIZE / sizeof(int64_t); /* second page */
  svm_barrier();
  for (int i = 0; i < n; i++) {
    if (model == SVM_STRONG) add_one_unlocked(&page[0]);
    svm_lock(0);
    int64_t v = locked[0]; /* a load and a separate store: needs the lock */
    locked[0] = v + 1;
    svm_unlock(0);
  }
  svm_barrier();
  int64_t want = (int64_t)n * np;
  if (model == SVM_STRONG && page[0] != want)
    fail("unlocked counter is %lld, expected %lld: two UEs wrote the page at once", (long long)page[0],
         (long long)want);
  if (locked[0] != want) fail("counter under svm_lock is %lld, expected %lld", (long long)locked[0], (long long)want);
  svm_barrier();
  if (me == 0) printf("svm: counters reached %lld\n", (long long)want);
  if (svm_free((void *)page) != SVM_SUCCESS) fail("svm_free failed");
}

static void samepage(int n) {
  volatile int64_t *word = alloc_or_fail(SVM_PAGE_SIZE, SVM_STRONG);
  svm_barrier();
  for (int i = 1; i <= n; i++) word[me] = i * 1000 + me;
  svm_barrier();
  for (int u = 0; u < np; u++)
    if (word[u] != (int64_t)n * 1000 + u)
      fail("UE %d's word holds %lld, expected %lld", u, (long long)word[u], (long long)n * 1000 + u);
  svm_barrier();
  svm_free((void *)word);
}

static void visibility(int model) {
  enum { WORDS = 3 * SVM_PAGE_SIZE / sizeof(int32_t) };
  int32_t *blocks = alloc_or_fail((size_t)np * WORDS * sizeof(int32_t), model);
  int32_t *mine = blocks + (size_t)me * WORDS;
  for (int i = 0; i < WORDS; i++) mine[i] = me * 7919 + i;
  svm_barrier(); /* release the block, acquire everyone's */
  for (int u = 0; u < np; u++)
    for (int i = 0; i < WORDS; i++)
      if (blocks[(size_t)u * WORDS + i] != u * 7919 + i)
        fail("after svm_barrier word %d of UE %d's block is wrong", i, u);
  /* A chain through the lock: each UE appends its id after the last one. */
  int32_t *chain = alloc_or_fail(sizeof(int32_t) * (size_t)(np + 1), model);
  svm_barrier();
  svm_lock(np - 1);
  int32_t len = chain[0];
  chain[1 + len] = me;
  chain[0] = len + 1;
  svm_unlock(np - 1);
  svm_barrier();
  if (chain[0] != np) fail("%d UEs appended under svm_lock, expected %d", chain[0], np);
  int seen[1024] = {0};
  for (int i = 1; i <= np; i++) seen[chain[i]]++;
  for (int u = 0; u < np; u++)
    if (seen[u] != 1) fail("UE %d appended %d times", u, seen[u]);
  svm_barrier();
  svm_free(chain);
  svm_free(blocks);
}

/* The controller svm_page_controller must report: hops from the core's tile
 * (core/2 -> x = tile % 6, y = tile / 6) to the controllers at (0,0), (5,0),
 * (0,2), (5,2); ties to the lower number. */
static int nearest_mc(int core) {
  static const int mx[4] = {0, 5, 0, 5}, my[4] = {0, 0, 2, 2};
  int tile = core / 2, x = tile % 6, y = tile / 6, best = 0;
  for (int m = 1; m < 4; m++)
    if (abs(x - mx[m]) + abs(y - my[m]) < abs(x - mx[best]) + abs(y - my[best])) best = m;
  return best;
}

static void affinity(int core) {
  unsigned char *pages = alloc_or_fail((size_t)np * SVM_PAGE_SIZE, SVM_LAZY_RELEASE);
  if (svm_page_controller(pages + (size_t)me * SVM_PAGE_SIZE) != -1) fail("an untouched page has a frame");
  pages[(size_t)me * SVM_PAGE_SIZE] = 1; /* first touch: my page */
  svm_barrier();
  int mc = svm_page_controller(pages + (size_t)me * SVM_PAGE_SIZE);
  if (mc != nearest_mc(core))
    fail("core %d's page sits behind controller %d, nearest is %d", core, mc, nearest_mc(core));
  svm_barrier();
  svm_free(pages);
}

static void stale(void) {
  volatile int32_t *x = alloc_or_fail(SVM_PAGE_SIZE, SVM_LAZY_RELEASE);
  svm_barrier();
  int32_t first = me == 1 ? x[0] : 0; /* UE 1 reads the page: its copy holds 0 */
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) {
    x[0] = 42;
    svm_flush(); /* release */
  }
  RCCE_barrier(&RCCE_COMM_WORLD); /* no acquire in UE 1 */
  if (me == 1) {
    int32_t before = x[0];
    svm_invalidate(); /* acquire */
    int32_t after = x[0];
    if (first != 0 || after != 42) fail("read %d at first and %d after svm_invalidate", first, after);
    printf("svm: stale: before the acquire %d, after it %d\n", before, after);
  }
  svm_barrier();
  svm_free((void *)x);
}

static void readonly(void) {
  int32_t *table = alloc_or_fail(5 * SVM_PAGE_SIZE, SVM_STRONG);
  if (me == 0)
    for (int i = 0; i < 5 * SVM_PAGE_SIZE / 4; i++) table[i] = i * 3;
  svm_barrier();
  if (svm_protect_readonly(table, 5 * SVM_PAGE_SIZE) != SVM_SUCCESS) fail("svm_protect_readonly failed");
  for (int i = 0; i < 5 * SVM_PAGE_SIZE / 4; i++)
    if (table[i] != i * 3) fail("read-only word %d is %d", i, table[i]);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == np - 1) {
    printf("svm: UE %d writes a read-only page\n", me);
    fflush(stdout);
    table[SVM_PAGE_SIZE / 4 * 2 + 5] = 1;
    fail("a write to a read-only page went through");
  }
}

static void expect(int got, int want, const char *what) {
  if (got != want)
    fail("%s returned %d (%s), expected %d (%s)", what, got, svm_error_string(got), want, svm_error_string(want));
}

static void misuse(void) {
  if (svm_alloc(4096, SVM_STRONG) || svm_last_error() != SVM_ERROR_NOT_INIT)
    fail("svm_alloc before svm_init did not fail");
  expect(svm_barrier(), SVM_ERROR_NOT_INIT, "svm_barrier before svm_init");
  expect(svm_init(), SVM_SUCCESS, "svm_init");
  expect(svm_init(), SVM_SUCCESS, "second svm_init");
  /* Different sizes on one UE: every UE hears about it. */
  if (svm_alloc(me == 1 ? 8192 : 4096, SVM_STRONG) || svm_last_error() != SVM_ERROR_NOT_COLLECTIVE)
    fail("svm_alloc with different sizes did not fail as not collective");
  if (svm_alloc(0, SVM_STRONG) || svm_last_error() != SVM_ERROR_ARG) fail("svm_alloc(0) did not fail");
  if (svm_alloc(4096, 3) || svm_last_error() != SVM_ERROR_ARG) fail("svm_alloc with model 3 did not fail");
  if (svm_alloc((size_t)1 << 40, SVM_LAZY_RELEASE) || svm_last_error() != SVM_ERROR_NOMEM)
    fail("svm_alloc(1 TB) did not fail");
  char *p = alloc_or_fail(3 * SVM_PAGE_SIZE, SVM_STRONG);
  expect(svm_free((void *)(uintptr_t)SVM_PAGE_SIZE), SVM_ERROR_ARG, "svm_free of an address outside the window");
  expect(svm_free(p + SVM_PAGE_SIZE), SVM_ERROR_ARG, "svm_free inside an area");
  expect(svm_protect_readonly(p, 4 * SVM_PAGE_SIZE), SVM_ERROR_ARG, "svm_protect_readonly beyond the area");
  expect(svm_lock(np), SVM_ERROR_ARG, "svm_lock(np)");
  expect(svm_unlock(-1), SVM_ERROR_ARG, "svm_unlock(-1)");
  expect(svm_free(p), SVM_SUCCESS, "svm_free");
  expect(svm_free(p), SVM_ERROR_ARG, "second svm_free");
}

static void stray(void) {
  char *p = alloc_or_fail(SVM_PAGE_SIZE, SVM_STRONG);
  svm_barrier();
  if (me == 0) {
    p[SVM_PAGE_SIZE * 7] = 1; /* past the area, inside the window */
    fail("an access outside every svm_alloc area went through");
  }
}

int RCCE_APP(int argc, char **argv) {
  testprog_name = "svm";
  RCCE_init(&argc, &argv);
  me = testprog_ue = RCCE_ue();
  np = RCCE_num_ues();
  const char *mode = argc > 1 ? argv[1] : "counters";
  if (!strcmp(mode, "misuse")) misuse();
  else {
    int rc = svm_init();
    if (rc != SVM_SUCCESS) fail("svm_init: %s", svm_error_string(rc));
    if (!strcmp(mode, "counters")) counters(argc > 2 ? atoi(argv[2]) : 100, model_arg(argc > 3 ? argv[3] : "strong"));
    else if (!strcmp(mode, "samepage")) samepage(argc > 2 ? atoi(argv[2]) : 100);
    else if (!strcmp(mode, "visibility")) visibility(model_arg(argc > 2 ? argv[2] : "lazy"));
    else if (!strcmp(mode, "affinity")) { /* args: the core of every UE, as given to rccerun --cores */
      if (argc < 2 + np) fail("affinity needs the core of each of the %d UEs", np);
      affinity(atoi(argv[2 + me]));
    } else if (!strcmp(mode, "readonly")) readonly();
    else if (!strcmp(mode, "stale")) stale();
    else if (!strcmp(mode, "stray")) stray();
    else fail("unknown mode '%s'", mode);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("svm: %s OK (%d UEs)\n", mode, np);
  RCCE_finalize();
  return 0;
}

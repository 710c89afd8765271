/*
 * svm_table1.c - the synthetic benchmark of [SVM-2012] (docs/references.md) (Lankes et al.,
 * MetalSVM) section 7.2.1, Table 1: what the shared virtual memory system
 * (include/scc_svm.h) costs, for the strong and the lazy release model.
 * The paper ran it on cores 0 and 30: `rccerun -nue 2 --cores 0,30`.
 *
 * For each model:
 *   1. all UEs call svm_alloc for 4 MB (timed on every UE; the maximum);
 *   2. UE 0 writes the first 4 bytes of every page: the physical allocation
 *      of a page frame at first touch (time per page);
 *   3. UE 1 writes the first 4 bytes of every page: the mapping of a frame
 *      UE 0 allocated (in the strong model this takes the ownership over);
 *   4. UE 0 writes them again: retrieving the access permission (strong
 *      model; the lazy release model has none to retrieve, so the paper
 *      shows a dash -- the time is printed beside it for reference).
 * Only the write loops (and the svm_alloc call) are timed.  Between phases
 * the UEs meet in RCCE_barrier (strong: ownership keeps pages coherent) or
 * svm_barrier (lazy release: flush, barrier, invalidate make the writes
 * visible).  Afterwards, untimed, UE 1 checks UE 0's last values and writes
 * its own, and UE 0 checks those, so both directions are verified; then
 * svm_free.  With more than 2 UEs the others only join the collectives.
 *
 * Output: one line per model and row, `table1: model=strong row=page_map
 * us=10.198` (rows alloc_4mb in us for the whole call, page_alloc, page_map
 * and page_permission in us per page), then the table as in the paper.
 * RCCE_wtime is virtual SCC time in model mode (rccerun --model scc).
 *
 * usage: svm_table1
 */
#define APP_NAME "svm_table1"
#include "app_common.h"
#include "scc_svm.h"

#define AREA_BYTES (4u << 20)
#define PAGES (AREA_BYTES / SVM_PAGE_SIZE)

enum row { ALLOC, PAGE_ALLOC, PAGE_MAP, PAGE_PERMISSION, NROWS };
static const char *const row_keys[NROWS] = {"alloc_4mb", "page_alloc", "page_map", "page_permission"};
static const char *const row_titles[NROWS] = {"allocation of 4 MByte", "physical allocation of a page frame",
                                              "mapping of a page frame",
                                              "retrieve the access permission of a page frame"};

static void svm_rc(int rc, const char *what) {
  if (rc != SVM_SUCCESS) app_error("%s returned %d (%s)", what, rc, svm_error_string(rc));
}

/* The barrier between phases: visibility needs svm_barrier in the lazy
   release model only. */
static void phase_barrier(int model) {
  if (model == SVM_LAZY_RELEASE) svm_rc(svm_barrier(), "svm_barrier");
  else app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
}

static volatile uint32_t *first_word(unsigned char *area, size_t page) {
  return (volatile uint32_t *)(area + page * SVM_PAGE_SIZE);
}

/* UE `writer` stores tag+page into the first word of every page; returns
   its time per page in us (collective). */
static double write_pages(unsigned char *area, uint32_t tag, int writer) {
  double t = 0.0;
  if (RCCE_ue() == writer) {
    double t0 = RCCE_wtime();
    for (size_t pg = 0; pg < PAGES; pg++) *first_word(area, pg) = tag + (uint32_t)pg;
    t = RCCE_wtime() - t0;
  }
  return app_max_time(t) / PAGES * 1e6;
}

/* UE `reader` checks that every page holds tag+page. */
static void check_pages(unsigned char *area, uint32_t tag, int reader, const char *model_name) {
  if (RCCE_ue() != reader) return;
  for (size_t pg = 0; pg < PAGES; pg++) {
    uint32_t got = *first_word(area, pg);
    if (got != tag + (uint32_t)pg) {
      app_error("%s model: page %zu holds 0x%08x, expected 0x%08x", model_name, pg, got, tag + (uint32_t)pg);
      return;
    }
  }
}

/* One column of the table; us[] gets the rows. */
static void run_model(int model, const char *name, double us[NROWS]) {
  app_rc(RCCE_barrier(&RCCE_COMM_WORLD), "RCCE_barrier");
  double t0 = RCCE_wtime();
  unsigned char *area = svm_alloc(AREA_BYTES, model);
  double t = RCCE_wtime() - t0;
  if (!area) {
    app_error("svm_alloc(%u, %s) failed: %s", AREA_BYTES, name, svm_error_string(svm_last_error()));
    app_die("cannot continue without the area");
  }
  us[ALLOC] = app_max_time(t) * 1e6;
  us[PAGE_ALLOC] = write_pages(area, 0xA0000000u, 0);
  phase_barrier(model);
  us[PAGE_MAP] = write_pages(area, 0xB0000000u, 1);
  phase_barrier(model);
  us[PAGE_PERMISSION] = write_pages(area, 0xC0000000u, 0);
  phase_barrier(model);
  /* verification, untimed: UE 1 sees UE 0's writes, UE 0 sees UE 1's */
  check_pages(area, 0xC0000000u, 1, name);
  write_pages(area, 0xD0000000u, 1);
  phase_barrier(model);
  check_pages(area, 0xD0000000u, 0, name);
  svm_rc(svm_barrier(), "svm_barrier");
  svm_rc(svm_free(area), "svm_free");
}

static void print_table(double us[2][NROWS]) {
  for (int m = 0; m < 2; m++)
    for (int r = 0; r < NROWS; r++) {
      if (m == 1 && r == PAGE_PERMISSION)
        printf("table1: model=lazy row=%s us=n/a rewrite_us=%.3f\n", row_keys[r], us[m][r]);
      else printf("table1: model=%s row=%s us=%.3f\n", m == 0 ? "strong" : "lazy", row_keys[r], us[m][r]);
    }
  printf("\nsvm_table1: average overhead of the SVM system ([SVM-2012] Table 1), %d UEs\n", RCCE_num_ues());
  printf("%-48s %14s %14s\n", "", "Strong", "Lazy Release");
  for (int r = 0; r < NROWS; r++) {
    char lazy[32];
    if (r == PAGE_PERMISSION) snprintf(lazy, sizeof lazy, "-");
    else snprintf(lazy, sizeof lazy, "%.3f us", us[1][r]);
    printf("%-48s %11.3f us %14s\n", row_titles[r], us[0][r], lazy);
  }
  printf("(lazy release: UE 0's rewrite of a page took %.3f us)\n", us[1][PAGE_PERMISSION]);
  fflush(stdout);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int rc = app_args(argc, argv, NULL, 0, NULL);
  if (rc >= 0 || app_alone()) {
    RCCE_finalize();
    return rc > 0 ? rc : 0;
  }
  rc = svm_init();
  if (rc != SVM_SUCCESS) {
    app_error("svm_init failed: %s", svm_error_string(rc));
    app_die("cannot continue without SVM");
  }
  double us[2][NROWS];
  run_model(SVM_STRONG, "strong", us[0]);
  run_model(SVM_LAZY_RELEASE, "lazy", us[1]);
  if (RCCE_ue() == 0) print_table(us);
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

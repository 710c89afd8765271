/* A program that defines names the library uses (or used) internally, with
 * other types -- mb, svm, range_free before they were renamed, mailbox_g,
 * svm_g, rcce_g, timing_g, hw_job_attach, chip_load, rcce_range_free now --
 * and uses the mailboxes and RCCE messages.  librcce.a exports only the
 * public API (docs/architecture.md "The library's surface"), so it links,
 * and the library's state and the program's stay apart.  It also brings its
 * own id_compare and print_dividers, as programs that compile in Intel's
 * RCCE_qsort.c or power helpers do: the library's yield to them. */
#include "RCCE_lib.h"
#include "scc_mailbox.h"
#include "testprog.h"

int mb = 101, svm = 102, mailbox_g = 103, svm_g = 104, rcce_g = 105, timing_g = 106;
double hw_job_attach = 107.0;
static int freed;
void range_free(void);
void range_free(void) { freed++; }
void rcce_range_free(void);
void rcce_range_free(void) { freed++; }
long chip_load(void);
long chip_load(void) { return 108; }
/* Descending, where the library's id_compare sorts ascending. */
int id_compare(const void *e1, const void *e2) { return *(const int *)e2 - *(const int *)e1; }
static int dividers_printed;
void print_dividers(void);
void print_dividers(void) { dividers_printed++; }

static void check_own_names(void) {
  if (mb != 101 || svm != 102 || mailbox_g != 103 || svm_g != 104 || rcce_g != 105 || timing_g != 106 ||
      hw_job_attach != 107.0 || chip_load() != 108)
    fail("a variable of the program changed: mb %d svm %d mailbox_g %d svm_g %d rcce_g %d timing_g %d", mb, svm,
         mailbox_g, svm_g, rcce_g, timing_g);
  int before = freed;
  range_free();
  rcce_range_free();
  if (freed != before + 2) fail("the program's range_free or rcce_range_free did not run");
  int ids[] = {1, 3, 2};
  RCCE_qsort((char *)ids, 3, sizeof ids[0], id_compare);
  if (ids[0] != 3 || ids[1] != 2 || ids[2] != 1)
    fail("RCCE_qsort with the program's id_compare: %d %d %d", ids[0], ids[1], ids[2]);
  before = dividers_printed;
  print_dividers();
  if (dividers_printed != before + 1) fail("the library's print_dividers ran instead of the program's");
}

int main(int argc, char **argv) {
  testprog_name = "name_clash";
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues(), next = (me + 1) % np, prev = (me + np - 1) % np;
  testprog_ue = me;
  check_own_names();
  int rc = mailbox_init();
  if (rc != MAILBOX_SUCCESS) fail("mailbox_init: %s", mailbox_error_string(rc));
  /* A mail and an RCCE message around the ring, each carrying the sender. */
  if ((rc = mailbox_send(next, &me, sizeof me)) != MAILBOX_SUCCESS) fail("mailbox_send: %s", mailbox_error_string(rc));
  int src = -1, mail = -1;
  size_t len = sizeof mail;
  if ((rc = mailbox_recv(&src, &mail, &len, 0)) != MAILBOX_SUCCESS) fail("mailbox_recv: %s", mailbox_error_string(rc));
  if (src != prev || mail != prev || len != sizeof mail) fail("mail from UE %d says %d (%zu bytes)", src, mail, len);
  int msg = -1;
  if (me % 2 == 0) {
    RCCE_send((char *)&me, sizeof me, next);
    RCCE_recv((char *)&msg, sizeof msg, prev);
  } else {
    RCCE_recv((char *)&msg, sizeof msg, prev);
    RCCE_send((char *)&me, sizeof me, next);
  }
  if (msg != prev) fail("message from UE %d says %d", prev, msg);
  check_own_names();
  printf("UE %d: own names intact, mail and message from UE %d\n", me, prev);
  RCCE_finalize();
  return 0;
}

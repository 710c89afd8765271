/* id_compare (Intel's RCCE_qsort.c, declared in RCCE_lib.h): the ordering of
 * two ints for RCCE_qsort.  In its own object file so that a program defining
 * its own id_compare still links against librcce.a. */
#include "RCCE_lib.h"

int id_compare(const void *e1, const void *e2) {
  int a = *(const int *)e1, b = *(const int *)e2;
  return (a > b) - (a < b);
}

/* id_compare (Intel's RCCE_qsort.c, declared in RCCE_lib.h): the ordering of
 * two ints for RCCE_qsort.  Weak: a program that defines its own id_compare
 * (compiling in Intel's RCCE_qsort.c, say) links and uses its own, although
 * librcce.a is one object (docs/architecture.md "The library's surface"). */
#include "RCCE_lib.h"

__attribute__((weak)) int id_compare(const void *e1, const void *e2) {
  int a = *(const int *)e1, b = *(const int *)e2;
  return (a > b) - (a < b);
}

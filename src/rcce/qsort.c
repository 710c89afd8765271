/* RCCE_qsort (Intel's RCCE_qsort.c, declared in RCCE_lib.h): sorts nel
 * elements of width bytes at base with compar, as qsort(3) does.  RCCE used
 * it to rank the participating cores; programs call it too.  Weak, as
 * id_compare: a program compiling in Intel's RCCE_qsort.c uses its own. */
#include <stdlib.h>

#include "RCCE_lib.h"

__attribute__((weak)) int RCCE_qsort(char *base, size_t nel, size_t width, int (*compar)(const void *, const void *)) {
  if (base && nel > 1 && width && compar) qsort(base, nel, width, compar);
  return RCCE_SUCCESS;
}

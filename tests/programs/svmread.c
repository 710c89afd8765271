/*
 * svmread.c - UEs that leave right after faulting on a strong page.
 *
 * usage: svmread [write]
 * UE N-1 fills a strong page, then (after an svm_barrier) every UE reads it
 * -- a burst of faults, ownership moving from UE to UE with forwarded
 * requests -- and calls RCCE_finalize at once, without a closing
 * svm_barrier, while others still wait for the page.  With "write" each UE
 * then also stores into its own word of the page.  A wrong value exits 9;
 * UE 0 prints "svmread: OK" after RCCE_finalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_svm.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues(), bad = 0;
  int write = argc > 1 && strcmp(argv[1], "write") == 0;
  svm_init();
  volatile long *a = svm_alloc((size_t)np * 4096, SVM_STRONG);
  if (me == np - 1)
    for (int i = 0; i < 512; i++) a[i] = 1000 + i;
  svm_barrier();
  for (int i = 0; i < 512; i++)
    if (a[i] != 1000 + i) bad++;
  if (bad) {
    fprintf(stderr, "svmread: UE %d: %d WRONG values\n", me, bad);
    exit(9);
  }
  if (write) a[me] = 1000 + me; /* the value it holds: readers still checking see no change */
  RCCE_finalize();
  if (me == 0) printf("svmread: OK\n");
  return 0;
}

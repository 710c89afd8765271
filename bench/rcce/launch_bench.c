/*
 * launch_bench.c - trivial RCCE program for launch-to-finish timing.
 *
 * RCCE_init then RCCE_finalize; UE 0 prints one JSON line so the driver can
 * check the run really happened.  The driver times the whole
 * `rccerun -nue 48 ./launch_bench` command (wall clock).
 */
#include <stdio.h>
#include "RCCE.h"

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  if (RCCE_ue() == 0) {
    printf("{\"bench\":\"launch\",\"impl\":\"rcce\",\"ues\":%d}\n", RCCE_num_ues());
    fflush(stdout);
  }
  RCCE_finalize();
  return 0;
}

/*
 * collective_bench.c - RCCE_barrier(&RCCE_COMM_WORLD) and 8-byte RCCE_allreduce
 * (one double, RCCE_SUM) latency (common/collective_driver.h).
 */
#include "rcce_main.h"

#define BENCH_IMPL "rcce"
static void xport_barrier(void) { RCCE_barrier(&RCCE_COMM_WORLD); }
static double xport_allreduce_sum(double in) {
  double out = 0.0;
  RCCE_allreduce((char *)&in, (char *)&out, 1, RCCE_DOUBLE, RCCE_SUM, RCCE_COMM_WORLD);
  return out;
}
static void xport_bcast_ctl(int64_t ctl[2]) { RCCE_bcast((char *)ctl, 2 * sizeof ctl[0], 0, RCCE_COMM_WORLD); }
#include "../common/collective_driver.h"

int main(int argc, char **argv) { return rcce_bench_main(argc, argv, collective_run); }

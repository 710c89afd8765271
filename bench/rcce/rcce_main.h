/* rcce_main.h - main() of the RCCE benchmark programs: run one driver on all UEs. */
#ifndef BENCH_RCCE_MAIN_H
#define BENCH_RCCE_MAIN_H

#include "../common/bench_common.h"
#include "RCCE.h"

static int rcce_bench_main(int argc, char **argv, int (*run)(int me, int np, const bench_opts *o)) {
  RCCE_init(&argc, &argv);
  bench_opts o;
  bench_parse(argc, argv, &o);
  int rc = run(RCCE_ue(), RCCE_num_ues(), &o);
  RCCE_finalize();
  return rc;
}

#endif

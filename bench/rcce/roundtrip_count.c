/*
 * roundtrip_count.c - N round trips of 8 bytes between UE 0 and UE 1 with
 * RCCE_send / RCCE_recv, all inside counted_round_trips(): the program the
 * A/B group runs with UE 0 under callgrind to count the instructions of a
 * round trip outside waiting (openscc_bench/ab_instructions.py).  The other
 * UEs, if any, do nothing.  Usage: roundtrip_count N (default 20000).
 */
#include <stdlib.h>

#include "RCCE.h"

static char message[8];

/* noinline: callgrind's --toggle-collect names it */
__attribute__((noinline)) static void counted_round_trips(long n, int me) {
  for (long i = 0; i < n; i++) {
    if (me == 0) {
      RCCE_send(message, sizeof message, 1);
      RCCE_recv(message, sizeof message, 1);
    } else {
      RCCE_recv(message, sizeof message, 0);
      RCCE_send(message, sizeof message, 0);
    }
  }
}

int main(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 20000;
  if (RCCE_ue() < 2 && RCCE_num_ues() >= 2) counted_round_trips(n, RCCE_ue());
  RCCE_finalize();
  return 0;
}

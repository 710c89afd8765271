/* boards.c - a job over several boards (rccerun --boards, docs/cluster.md):
 * every UE reports iRCCE's board queries; then UE 0 and the last UE
 * ping-pong a message of `bytes` `iterations` times (its contents checked
 * every time) and UE 0 prints the half round trip.
 * usage: boards [bytes=8] [iterations=20] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "iRCCE.h"
#include "testprog.h"

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "boards";
  int me = testprog_ue = RCCE_ue(), last = RCCE_num_ues() - 1;
  int bytes = argc > 1 ? atoi(argv[1]) : 8, iterations = argc > 2 ? atoi(argv[2]) : 20;
  char line[200];
  int n = snprintf(line, sizeof line, "ue %d dev %d of %d:", me, iRCCE_dev(), iRCCE_num_devs());
  for (int d = 0; d < iRCCE_num_devs(); d++)
    n += snprintf(line + n, sizeof line - (size_t)n, " %d", RCCE_num_ues_dev(d));
  printf("%s\n", line);
  static char buf[1 << 16];
  if (bytes < 1 || bytes > (int)sizeof buf) fail("bytes must be 1..%zu", sizeof buf);
  RCCE_barrier(&RCCE_COMM_WORLD);
  double t0 = RCCE_wtime();
  for (int i = 0; i < iterations && last > 0; i++) {
    if (me == 0) {
      for (int k = 0; k < bytes; k++) buf[k] = (char)(i + k);
      RCCE_send(buf, (size_t)bytes, last);
      RCCE_recv(buf, (size_t)bytes, last);
      for (int k = 0; k < bytes; k++)
        if (buf[k] != (char)(i + k + 1)) fail("round %d: byte %d is %d, expected %d", i, k, buf[k], (char)(i + k + 1));
    } else if (me == last) {
      RCCE_recv(buf, (size_t)bytes, 0);
      for (int k = 0; k < bytes; k++) buf[k]++;
      RCCE_send(buf, (size_t)bytes, 0);
    }
  }
  double t = RCCE_wtime() - t0;
  if (me == 0 && last > 0) printf("half_rtt_us %.4f\n", t / iterations / 2 * 1e6);
  RCCE_finalize();
  return 0;
}

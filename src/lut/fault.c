/* A touch of an unmapped LUT window ends the UE, as on the chip, but with a
 * message naming the entry (docs/data-movement.md "Errors"); other faults go
 * to the handler installed before (SVM's) or the default action. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../hw/signal_chain.h"
#include "../rcce/rcce_iface.h"
#include "lut_internal.h"

static struct sigaction prev_segv;

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  int entry = scc_lut_entry_of(info->si_addr);
  if (entry >= 0) {
    char msg[200];
    const scc_lut_entry *e = &lut_g.entries[entry];
    int n = e->kind == SCC_LUT_UNMAPPED
                ? snprintf(msg, sizeof msg,
                           "UE %d: access to %p through LUT entry %d, which maps nothing (scc_lut_write)\n",
                           rcce_my_ue(), info->si_addr, entry)
                : snprintf(msg, sizeof msg, "UE %d: access to %p through LUT entry %d, beyond the memory it maps\n",
                           rcce_my_ue(), info->si_addr, entry);
    if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) { /* nothing more to say */
    }
    signal(SIGSEGV, SIG_DFL); /* the access faults again and ends the UE */
    return;
  }
  hw_signal_chain(&prev_segv, sig, info, ctx);
}

void lut_fault_report_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sa.sa_sigaction = on_segv;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &prev_segv);
}

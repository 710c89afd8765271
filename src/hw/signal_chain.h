/* hw layer: pass a signal on to the handler installed before one's own
 * (the layers that catch SIGSEGV for their windows: svm, lut). */
#ifndef OPENSCC_HW_SIGNAL_CHAIN_H
#define OPENSCC_HW_SIGNAL_CHAIN_H

#include <signal.h>

static inline void hw_signal_chain(const struct sigaction *prev, int sig, siginfo_t *info, void *ctx) {
  if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) prev->sa_sigaction(sig, info, ctx);
  else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) prev->sa_handler(sig);
  else signal(sig, SIG_DFL); /* returning re-raises it with the default action */
}

#endif

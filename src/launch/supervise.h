/* Job lifecycle: fork the UEs, supervise them, report failures, clean up. */
#ifndef OPENSCC_LAUNCH_SUPERVISE_H
#define OPENSCC_LAUNCH_SUPERVISE_H

#include "options.h"

/* Exit codes of rccerun. */
enum {
  RCCERUN_OK = 0,
  RCCERUN_UE_FAILED = 1, /* a UE crashed, exited non-zero, or left others waiting */
  RCCERUN_USAGE = 2,
  RCCERUN_DEADLOCK = 3,
  RCCERUN_SETUP = 4,       /* segment or fork failed */
  RCCERUN_TIMEOUT = 124,   /* as timeout(1) */
  RCCERUN_SIGNALLED = 128, /* + the signal that stopped rccerun, as a shell reports it */
};

/* Call first: rccerun ignores SIGPIPE, so a reader that leaves (`| head`)
 * cannot kill it before it stops the UEs and removes the segment; its own
 * messages are then lost (EPIPE).  The UEs get the disposition back. */
void launch_ignore_sigpipe(void);

/* Run the job to completion; returns rccerun's exit code. */
int launch_run(const struct launch_options *o);

#endif

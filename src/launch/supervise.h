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

/* rccerun --hosts: what the host agent (host_agent/) adds to a job's run on
 * its host, which starts and supervises the UEs of the host's boards only. */
struct launch_host_agent {
  void (*started)(struct hw_job *job); /* the host's replica exists, no UE runs yet */
  int (*verdict)(void);                /* each tick: 0, or the exit code another host ended the job with */
  int (*finish)(int rc);               /* this host's UEs are gone (rc): returns the job's exit code */
  int (*stuck)(int here); /* this host's UEs are all stuck (1) or not (0): are every host's stuck or ended? */
  int (*gather)(struct hw_job *job); /* the job succeeded: bring the monitoring records to the host that
                                        writes the job directory; 1 on that host */
};
void launch_set_host_agent(const struct launch_host_agent *agent);

/* Run the job to completion; returns rccerun's exit code. */
int launch_run(const struct launch_options *o);

#endif

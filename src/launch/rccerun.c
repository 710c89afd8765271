/* rccerun: run an RCCE program on emulated SCC cores, one process per UE. */
#include "hosts_launch.h"
#include "job_dir.h"
#include "options.h"
#include "supervise.h"

int main(int argc, char **argv) {
  static struct launch_options o;
  launch_ignore_sigpipe();
  int rc = launch_parse(argc, argv, &o);
  if (rc < 0) return RCCERUN_USAGE;
  if (rc > 0) return RCCERUN_OK;
  if (job_dir_wanted(&o) && job_dir_claim(&o) != 0) return RCCERUN_SETUP; /* before any UE starts */
  if (!o.hosts_file) rc = launch_run(&o);
  else if (job_dir_wanted(&o) && job_dir_hand_over() != 0) rc = RCCERUN_SETUP; /* host 0's agent writes it */
  else rc = launch_hosts_run(&o, argc, argv);
  job_dir_release();
  return rc;
}

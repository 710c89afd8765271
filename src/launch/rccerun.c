/* rccerun: run an RCCE program on emulated SCC cores, one process per UE. */
#include "options.h"
#include "supervise.h"

int main(int argc, char **argv) {
  static struct launch_options o;
  int rc = launch_parse(argc, argv, &o);
  if (rc < 0) return RCCERUN_USAGE;
  if (rc > 0) return RCCERUN_OK;
  return launch_run(&o);
}

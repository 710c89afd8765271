/* rccerun --hosts FILE: the hosts that run a job's boards (docs/cluster.md,
 * "Several hosts").  One host name per line, '#' comments; further words on a
 * line (an Open MPI hostfile's "slots=1") are ignored.  Boards go to hosts in
 * blocks, in the file's order: with B boards on H hosts, board b runs on host
 * b * H / B, so UEs stay numbered linearly across boards and hosts. */
#include <stdio.h>
#include <string.h>

#include "../chip/text_input.h"
#include "option_table.h"
#include "options.h"

static int read_names(struct launch_options *o, char *err, size_t errlen) {
  struct text_file tf;
  if (chip_text_file_open(&tf, o->hosts_file, "hosts file", err, errlen)) return -1;
  int n = 0, got;
  char *line;
  while ((got = chip_text_file_line(&tf, &line, err, errlen)) > 0) {
    char *save = NULL, *name = strtok_r(line, " \t\r\v\f", &save);
    if (!name) continue;
    if (n == HW_MAX_HOSTS || strlen(name) >= sizeof o->host_names[0]) {
      snprintf(err, errlen, "%s:%d: %s", o->hosts_file, tf.lineno,
               n == HW_MAX_HOSTS ? "more hosts than a job has boards at most (8)" : "host name too long");
      got = -1;
      break;
    }
    strcpy(o->host_names[n++], name);
  }
  chip_text_file_close(&tf);
  if (got >= 0 && n == 0) snprintf(err, errlen, "%s names no host", o->hosts_file), got = -1;
  return got < 0 ? -1 : n;
}

/* What needs one replica of state that hosts do not share yet. */
static const char *not_across_hosts(const struct launch_options *o) {
  if (o->mpi != LAUNCH_MPI_NONE) return "--mpi";
  if (o->job.set.model) return "--model";
  if (o->job.set.copy_cores) return "--copy-cores";
  return NULL;
}

int launch_hosts_read(struct launch_options *o) {
  o->job.set.hosts = 1;
  if (!o->hosts_file) return 0;
  char err[512];
  int hosts = read_names(o, err, sizeof err), boards = o->job.chip.boards;
  if (hosts < 0) return launch_fail("--hosts: %s", err);
  if (hosts > boards)
    return launch_fail("--hosts: %d hosts for %d board(s): every host runs at least one board (give --boards %d)",
                       hosts, boards, hosts);
  const char *option = not_across_hosts(o);
  if (option)
    return launch_fail("%s does not run across hosts yet (--hosts; docs/cluster.md \"Several hosts\")", option);
  o->job.set.hosts = hosts;
  for (int b = 0; b < boards; b++) o->job.set.board_host[b] = b * hosts / boards;
  o->job.set.single_copy = 0; /* process_vm_readv reaches this host's processes only */
  return 0;
}

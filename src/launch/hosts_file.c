/* rccerun --hosts FILE: the hosts that run a job's boards (docs/cluster.md,
 * "Several hosts").  One host name per line, '#' comments; further words on a
 * line (an Open MPI hostfile's "slots=1") are ignored.  Boards go to hosts in
 * blocks, in the file's order: with B boards on H hosts, board b runs on host
 * b * H / B, so UEs stay numbered linearly across boards and hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../chip/text_input.h"
#include "mpi_launch.h"
#include "option_table.h"
#include "options.h"

extern char **environ;

/* One more host name; 0, or -1 with err. */
static int add_name(struct launch_options *o, int n, const char *name, int lineno, char *err, size_t errlen) {
  if (n < HW_MAX_HOSTS && strlen(name) < sizeof o->host_names[0]) {
    strcpy(o->host_names[n], name);
    return 0;
  }
  snprintf(err, errlen, "%s:%d: %s", o->hosts_file, lineno,
           n == HW_MAX_HOSTS ? "more hosts than a job has boards at most (8)" : "host name too long");
  return -1;
}

/* An agent takes the names rccerun read (launch_hosts_hand_over): the file
 * need not exist on the agent's host. */
static int names_handed_over(struct launch_options *o, const char *given, char *err, size_t errlen) {
  char buf[HW_MAX_HOSTS * sizeof o->host_names[0] + 1];
  snprintf(buf, sizeof buf, "%s", given);
  int n = 0;
  char *save = NULL;
  for (char *name = strtok_r(buf, " ", &save); name; name = strtok_r(NULL, " ", &save), n++)
    if (add_name(o, n, name, 0, err, errlen) != 0) return -1;
  return n;
}

static int as_agent; /* launch_hosts_as_agent */
void launch_hosts_as_agent(void) { as_agent = 1; }

static int read_names(struct launch_options *o, char *err, size_t errlen) {
  const char *given = getenv(LAUNCH_HOSTS_NAMES_ENV);
  if (as_agent && given) return names_handed_over(o, given, err, errlen);
  struct text_file tf;
  if (chip_text_file_open(&tf, o->hosts_file, "hosts file", err, errlen)) return -1;
  int n = 0, got;
  char *line;
  while ((got = chip_text_file_line(&tf, &line, err, errlen)) > 0) {
    char *save = NULL, *name = strtok_r(line, " \t\r\v\f", &save);
    if (!name) continue;
    if (add_name(o, n++, name, tf.lineno, err, errlen) != 0) {
      got = -1;
      break;
    }
  }
  chip_text_file_close(&tf);
  if (got >= 0 && n == 0) snprintf(err, errlen, "%s names no host", o->hosts_file), got = -1;
  return got < 0 ? -1 : n;
}

/* What needs one replica of state that hosts do not share yet. */
static const char *not_across_hosts(const struct launch_options *o) {
  if (o->mpi_spawn_ues > 0) return "--mpi-spawn-ues";
  if (o->job.set.model) return "--model";
  if (o->job.set.copy_cores) return "--copy-cores";
  return NULL;
}

int launch_hosts_hand_over(const struct launch_options *o) {
  char names[HW_MAX_HOSTS * sizeof o->host_names[0] + 1] = "";
  for (int h = 0; h < o->job.set.hosts; h++) {
    if (h) strcat(names, " ");
    strcat(names, o->host_names[h]);
  }
  char job[16], mpi_env[8192] = "";
  snprintf(job, sizeof job, "%d", (int)getpid());
  /* The MPI variables set here, before mpirun adds its own (mpi_hosts.c). */
  for (char **e = environ; *e; e++) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    size_t used = strlen(mpi_env);
    if (mpi_hosts_mpi_variable(name)) snprintf(mpi_env + used, sizeof mpi_env - used, "%s%s", used ? " " : "", name);
  }
  return setenv(LAUNCH_HOSTS_NAMES_ENV, names, 1) || setenv(LAUNCH_HOSTS_JOB_ENV, job, 1) ||
                 setenv(LAUNCH_HOSTS_MPI_ENV, mpi_env, 1)
             ? -1
             : 0;
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
  char list[HW_MAX_HOSTS * 80], why[512];
  if (o->mpi != LAUNCH_MPI_NONE && mpi_hosts_list(o, list, sizeof list, why, sizeof why) != 0)
    return launch_fail("%s", why);
  o->job.set.single_copy = 0; /* process_vm_readv reaches this host's processes only */
  const char *job = getenv(LAUNCH_HOSTS_JOB_ENV);
  o->job.set.hosts_job = as_agent && job ? atoi(job) : (int32_t)getpid(); /* the head's pid */
  return 0;
}

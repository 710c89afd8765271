/*
 * rccerun --mpi openmpi --hosts FILE (docs/cluster.md "MPI across hosts"):
 * host 0's agent runs the program's mpirun, which starts the ranks of every
 * host through the same rsh/ssh agent that started the host agents; each
 * rank's wrapper attaches to its own host's replica of the job
 * (OPENSCC_SHM_PATHS, rank/openscc_rank.c).  Here: mpirun's host list (the
 * ranks of a host are consecutive, as its UEs are), the variables it passes
 * to remote ranks, and the environment of the agents' own MPI job that a
 * second mpirun must not see.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_launch.h"

extern char **environ;

/* The host of world rank u (its UE's core's board's). */
static int host_of_rank(const struct launch_options *o, int u) {
  return o->job.set.board_host[chip_board_of_core(&o->job.chip, o->job.ue_core[u])];
}

int mpi_hosts_list(const struct launch_options *o, char *list, size_t len, char *err, size_t errlen) {
  list[0] = '\0';
  int count = 0;
  for (int u = 0; u < o->mpi_world; u++) {
    int h = host_of_rank(o, u), next = u + 1 < o->mpi_world ? host_of_rank(o, u + 1) : -1;
    count++;
    if (next == h) continue;
    if (next >= 0 && next < h)
      return snprintf(err, errlen,
                      "--mpi across hosts starts each host's ranks as one block: rank %d runs on host %d (%s), rank %d "
                      "on host %d (%s); place the UEs with --cores so that every host's ranks follow each other",
                      u, h, o->host_names[h], u + 1, next, o->host_names[next]),
             -1;
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%s:%d", used ? "," : "", o->host_names[h], count);
    count = 0;
  }
  return 0;
}

/* What a rank of another host must get from mpirun's environment: the
 * launcher's settings for the ranks but its temporary directories (host 0's),
 * the job's segments, and OpenSCC's and PMIx's own variables. */
static int enclosing_job_variable(const char *name);

/* Whether the launcher's command sets `name` (mpi_command_build's add_env). */
static int set_by_command(const struct mpi_command *c, const char *name) {
  for (int i = 0; i < c->nenv; i++)
    if (!strcmp(c->env[i][0], name)) return 1;
  return 0;
}

static int exported(const struct mpi_command *c, const char *name) {
  if (enclosing_job_variable(name)) return 0;                           /* gone when mpirun starts */
  if (!strcmp(name, "TMPDIR") || !strncmp(name, "PMIX_S", 6)) return 0; /* PMIX_SYSTEM_/SERVER_TMPDIR */
  return set_by_command(c, name) || !strncmp(name, "OPENSCC_", 8) || !strncmp(name, "PMIX_MCA_", 9);
}

int mpi_hosts_exports(const struct mpi_command *c, const char **out, int max) {
  int n = 0;
  for (int i = 0; i < c->nenv && n + 2 <= max; i++)
    if (exported(c, c->env[i][0])) out[n++] = "-x", out[n++] = c->env[i][0];
  for (char **e = environ; *e && n + 2 <= max; e++) {
    char *name = strndup(*e, strcspn(*e, "="));
    if (!set_by_command(c, name) && exported(c, name)) out[n++] = "-x", out[n++] = name; /* not twice */
    else free(name);
  }
  /* Set only when mpirun starts (the agent's start, mpi_command_exec). */
  static const char *const job[] = {"OPENSCC_SHM_PATHS", "OPENSCC_NUE"};
  for (size_t i = 0; i < sizeof job / sizeof job[0] && n + 2 <= max; i++)
    if (!getenv(job[i])) out[n++] = "-x", out[n++] = job[i];
  return n;
}

/* The agent is a process of the agents' Open MPI job, whose variables would
 * make the program's mpirun refuse to start ("mpirun does not support
 * recursive calls") or join the wrong job.  Kept are those rccerun itself
 * had (LAUNCH_HOSTS_MPI_ENV: the user's settings, e.g. the rsh agent). */
int mpi_hosts_mpi_variable(const char *name) {
  static const char *const prefixes[] = {"OMPI_", "PMIX_", "OPAL_", "ORTE_"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) return 1;
  return 0;
}

static int enclosing_job_variable(const char *name) {
  if (!mpi_hosts_mpi_variable(name)) return 0;
  const char *kept = getenv(LAUNCH_HOSTS_MPI_ENV);
  char list[8192], padded[300];
  snprintf(list, sizeof list, " %s ", kept ? kept : "");
  snprintf(padded, sizeof padded, " %s ", name);
  return strstr(list, padded) == NULL;
}

void mpi_hosts_forget_enclosing_job(void) {
  for (int again = 1; again;) { /* unsetenv changes environ: start over after each */
    again = 0;
    for (char **e = environ; *e && !again; e++) {
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
      if (enclosing_job_variable(name)) again = unsetenv(name) == 0;
    }
  }
}

/* rccerun's command line: OpenSCC's options plus the SCC rccerun forms
 * (-nue N, -f hostfile, -clock GHz); the options are the rows of
 * option_table.c. */
#ifndef OPENSCC_LAUNCH_OPTIONS_H
#define OPENSCC_LAUNCH_OPTIONS_H

#include "../hw/hosts.h"
#include "../hw/segment.h"

/* rccerun --mpi: the MPI library whose launcher starts the ranks (mpi_launch.h). */
enum launch_mpi { LAUNCH_MPI_NONE = 0, LAUNCH_MPI_OPENMPI = 1, LAUNCH_MPI_MPICH = 2 };

struct launch_options {
  struct hw_job_params job;   /* what the UEs see (settings.h), written by the option table's rows */
  double timeout_s;           /* 0: none */
  const char *job_dir;        /* --job-dir, or NULL */
  int replace_job_dir;        /* --replace-job-dir */
  const char *chip_name;      /* --chip, */
  const char *cores_text;     /* --cores, */
  const char *hostfile;       /* -f */
  const char *clock_text;     /* and -clock: checked once the options are all read */
  double compute_slowdown;    /* -1: the chip's */
  long boards;                /* --boards, -1: the chip's */
  long wait_spin, wait_yield; /* OPENSCC_SPIN / OPENSCC_YIELD, -1 when unset (adaptive waiting) */
  int asym_fence;             /* OPENSCC_ASYM_FENCE */
  int mpi;                    /* enum launch_mpi (--mpi) */
  int mpi_spawn_ues;          /* --mpi-spawn-ues: spare UEs after the world's, in job.nue */
  int mpi_world;              /* MPI jobs: the ranks the launcher starts (-nue) */
  const char *hosts_file;     /* --hosts: the hosts that run the boards (hosts_file.c), or NULL */
  char host_names[HW_MAX_HOSTS][64];
  const char *app; /* resolved path of the program */
  char **app_argv; /* argv for the UEs, app_argv[0] = program */
  char app_path[4096];
};

/* Parse argv; on error print a message naming the option and return -1.
 * Returns 1 when --help was printed. */
int launch_parse(int argc, char **argv, struct launch_options *o);

/* --hosts FILE (hosts_file.c): read the host names, place the boards on them
 * (job.set.hosts, board_host) and refuse what does not run across hosts yet;
 * 0, or -1 after a message.  Nothing to do without --hosts. */
int launch_hosts_read(struct launch_options *o);
/* rccerun --hosts: the names it read go to the agents in the environment
 * mpirun passes on; an agent (after launch_hosts_as_agent) takes them from
 * there instead of reading FILE, which need not exist on its host.
 * launch_hosts_hand_over returns 0 or -1. */
#define LAUNCH_HOSTS_NAMES_ENV "OPENSCC_HOSTS_NAMES"
/* The names of the MPI variables rccerun had (the agents' MPI job adds its own: mpi_hosts.c). */
#define LAUNCH_HOSTS_MPI_ENV "OPENSCC_HOSTS_MPI_ENV"
#define LAUNCH_HOSTS_JOB_ENV "OPENSCC_HOSTS_JOB" /* the head rccerun's pid: the job's number on every host */
int launch_hosts_hand_over(const struct launch_options *o);
void launch_hosts_as_agent(void);

#endif

/* rccerun --mpi: the MPI library's own launcher, configured so that every byte
 * between ranks goes through OpenSCC's libfabric provider (docs/rccerun.md
 * "MPI jobs"). */
#ifndef OPENSCC_LAUNCH_MPI_LAUNCH_H
#define OPENSCC_LAUNCH_MPI_LAUNCH_H

#include "options.h"

#include <time.h>

#define MPI_LAUNCH_MAX_ENV 20

/* The launcher's command line and the environment it (and through it every
 * rank) gets. */
struct mpi_command {
  const char *name; /* "mpirun" or "mpiexec", for messages */
  char **argv;      /* launcher, its options, openscc-rank, the program and its arguments */
  int nenv;
  const char *env[MPI_LAUNCH_MAX_ENV][2];                           /* name, value */
  char launcher[4096], provider_dir[4096 + 64], wrapper[4096 + 64]; /* + a suffix to rccerun's directory */
  char mpi4py_libmpi[4096 + 32];                                    /* the library mpi4py loads (MPI4PY_LIBMPI) */
  char universe[32], world[16]; /* the universe's size (launcher argument), the world's (OPENSCC_MPI_WORLD) */
  /* MPICH with --mpi-spawn-ues: libopenscc-spawn.so, LD_PRELOAD for the launcher (it and the user's),
   * LD_PRELOAD=<the user's> for the world's wrappers (mpi_launch.c mpich_spawn_preload). */
  char spawn_preload[4096 + 64], preload_all[2 * 4096 + 128], user_preload[4096 + 16];
  /* --model: what openscc-rank preloads into the program (OPENSCC_RANK_PRELOAD): the
   * provider, for the virtual MPI_Wtime and counted builds (docs/mpi.md "Model mode"). */
  char preload[3 * 4096 + 128];
  /* The launcher's private temporary directory (its session directories,
   * PMIx rendezvous files), removed by mpi_command_free. */
  char tmpdir[4096];
  struct timespec started;           /* CLOCK_REALTIME when built: files of the job are newer */
  int mpich;                         /* MPICH's launcher (its segments in /dev/shm are swept) */
  int across_hosts;                  /* rccerun --hosts: host 0's agent runs the launcher (mpi_hosts.c) */
  char host_list[HW_MAX_HOSTS * 80]; /* its --host: NAME:RANKS,... */
};

/* Find the library's launcher, OpenSCC's provider for it and openscc-rank,
 * and build the command.  Returns 0, or -1 after printing why (nothing has
 * started yet). */
int mpi_command_build(const struct launch_options *o, struct mpi_command *c);
/* Exec the launcher for the job whose segment is shm_name (in rccerun's child). */
void mpi_command_exec(const struct mpi_command *c, const char *shm_name, int nue) __attribute__((noreturn));
/* Removes the MPI launchers' temporary directories of earlier rccerun
 * processes of this user that were killed (kill -9) before removing theirs,
 * as hw_clean_stale_segments does for segments. */
void mpi_remove_stale_tmpdirs(void);
/* Once nothing of the job runs any more: remove what the MPI library leaves
 * behind when its processes are killed (the private temporary directory;
 * MPICH's per-rank segments in /dev/shm), and free what mpi_command_build
 * allocated. */
void mpi_command_free(struct mpi_command *c);

/* Across hosts (mpi_hosts.c): mpirun's --host list, each host's ranks in a
 * block (0, or -1 with err set: they are not); the -x NAME pairs for remote ranks
 * into out (at most max entries; how many); the enclosing agents' job's
 * variables removed before a second mpirun starts. */
int mpi_hosts_list(const struct launch_options *o, char *list, size_t len, char *err, size_t errlen);
int mpi_hosts_exports(const struct mpi_command *c, const char **out, int max);
void mpi_hosts_forget_enclosing_job(void);
/* Whether `name` is one of Open MPI's or PMIx's variables (OMPI_, PMIX_, OPAL_, ORTE_): rccerun
 * lists its own (LAUNCH_HOSTS_MPI_ENV), the agent's launcher forgets the others. */
int mpi_hosts_mpi_variable(const char *name);
#define MPI_HOSTS_MAX_EXPORTS 128

/* MPICH's per-rank segments in /dev/shm created since `since` that nothing
 * has open or mapped any more are removed; returns how many are still in use. */
int mpi_remove_orphaned_mpich_segments(const struct timespec *since);
/* Now, as the files of a job starting now will be stamped at the earliest
 * (a second early: file systems stamp times coarsely). */
void mpi_job_files_since(struct timespec *since);

/* Open MPI's launcher on PATH (mpirun.openmpi, else mpirun) into out: 1 found, 0 not. */
int mpi_find_openmpi_launcher(char *out, size_t len);

#endif

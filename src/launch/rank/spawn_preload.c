/*
 * libopenscc-spawn.so: puts the processes MPICH's MPI_Comm_spawn starts under
 * openscc-rank (docs/mpi.md "Dynamic processes").  MPICH's launcher (hydra)
 * execs a spawned program itself in a new proxy, with no hook for a wrapper
 * (Open MPI has its fork agent); rccerun --mpi mpich --mpi-spawn-ues K
 * preloads this library into everything hydra starts (LD_PRELOAD), and its
 * constructor, in a process hydra marked spawned (PMI_SPAWNED=1) that is not
 * yet a UE (no OPENSCC_UE), re-executes the process as
 *   openscc-rank PROGRAM ARGS
 * before main, so before MPI_Init opens the PMI connection it inherited
 * (PMI_FD stays open across exec).  The wrapper, in the same pid hydra
 * waits for, claims a spare UE and runs the program as a rank of the job.
 * Everything else (hydra itself, the world's ranks) passes through untouched.
 * Built without sanitizers: it is preloaded into programs that have none.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 4096

/* Killed, not an exit status: hydra waits on for a spawned process that
 * exits before MPI_Init, but ends the job when one is killed (as
 * openscc-rank does when no spare UE is free). */
static void fail_spawned_rank(void) {
  kill(getpid(), SIGKILL);
  _exit(127);
}

/* This library's entry removed from LD_PRELOAD (the wrapper, which may be
 * built with AddressSanitizer, must not get it: ASan's runtime comes first). */
static void drop_own_preload(const char *own) {
  const char *list = getenv("LD_PRELOAD");
  if (!list || !own) return;
  char *kept = calloc(1, strlen(list) + 1), *copy = strdup(list), *save = NULL;
  if (!kept || !copy) return;
  for (char *e = strtok_r(copy, ": ", &save); e; e = strtok_r(NULL, ": ", &save))
    if (strcmp(e, own) != 0) {
      if (*kept) strcat(kept, ":");
      strcat(kept, e);
    }
  if (*kept) setenv("LD_PRELOAD", kept, 1);
  else unsetenv("LD_PRELOAD");
  free(copy);
  free(kept);
}

/* The process's own arguments, from /proc/self/cmdline: their count, or -1
 * (unreadable, or more than buf/argv hold: never a cut argument list). */
static int own_arguments(char *buf, size_t len, char **argv, int max) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t n = 0;
  ssize_t r;
  while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) > 0) n += (size_t)r;
  close(fd);
  if (n == len - 1) return -1;
  buf[n] = '\0';
  int argc = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    if (argc == max) return -1;
    argv[argc++] = buf + i;
  }
  return argc;
}

__attribute__((constructor)) static void rewrap_spawned_process(void) {
  const char *spawned = getenv("PMI_SPAWNED"), *wrapper = getenv("OPENSCC_SPAWN_WRAPPER");
  /* OPENSCC_SPAWN_REWRAPPED: this process is already the wrapper started
   * for it (or its program): never a second re-execution, even when the
   * preload could not be dropped from LD_PRELOAD. */
  if (!spawned || strcmp(spawned, "0") == 0 || !wrapper || getenv("OPENSCC_UE") || getenv("OPENSCC_SPAWN_REWRAPPED"))
    return;
  static char args[1 << 16];
  static char *argv[MAX_ARGS + 2];
  int argc = own_arguments(args, sizeof args, argv + 1, MAX_ARGS);
  if (argc < 1) {
    fprintf(stderr, "openscc-spawn: cannot read the arguments of a spawned rank (more than %d or %zu bytes?)\n",
            MAX_ARGS, sizeof args - 1);
    fail_spawned_rank();
  }
  argv[0] = (char *)wrapper;
  argv[argc + 1] = NULL;
  drop_own_preload(getenv("OPENSCC_SPAWN_PRELOAD"));
  setenv("OPENSCC_SPAWN_REWRAPPED", "1", 1);
  execv(wrapper, argv);
  fprintf(stderr, "openscc-spawn: cannot execute %s for a spawned rank: %m\n", wrapper);
  fail_spawned_rank();
}

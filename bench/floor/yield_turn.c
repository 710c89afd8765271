/*
 * yield_turn.c - the cost of one scheduler turn when N processes share the
 * host's CPUs and all of them only yield: the floor under any transport
 * whose waiting ranks stay runnable and yield (Open MPI's vader when
 * oversubscribed, OpenSCC's provider in its first 20 ms of an idle
 * stretch).  Forks N processes that call sched_yield ITERS times each and
 * prints the wall time per yield and CPU:
 *   yield_turn procs=48 yields=20000 cpus=2 usec_per_turn=1.571
 * Usage: yield_turn N ITERS (README "MPI through the provider").
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  long procs = argc > 1 ? atol(argv[1]) : 48, iters = argc > 2 ? atol(argv[2]) : 20000;
  if (procs < 1 || iters < 1) {
    fprintf(stderr, "usage: yield_turn PROCESSES YIELDS (both at least 1)\n");
    return 2;
  }
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  double t0 = now_us();
  for (long p = 0; p < procs; p++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("yield_turn: fork");
      return 1;
    }
    if (pid == 0) {
      for (long k = 0; k < iters; k++) sched_yield();
      _exit(0);
    }
  }
  while (wait(NULL) > 0) continue;
  double us = now_us() - t0;
  printf("yield_turn procs=%ld yields=%ld cpus=%d usec_per_turn=%.3f\n", procs, iters, cpus,
         us * cpus / ((double)procs * (double)iters));
  return 0;
}

/*
 * cacheline_pingpong.c - the physical floor of inter-process message latency.
 *
 * Two processes (fork) ping-pong a 64-bit counter that lives in one 64-byte
 * cache line of a MAP_SHARED|MAP_ANONYMOUS mapping, with C11 atomics and pure
 * busy-waiting (no pause, no syscalls).  The parent writes odd values, the
 * child answers with the next even value; one exchange = one round trip.
 * If at least 2 CPUs are available the parent is pinned to the first and the
 * child to the second allowed CPU.
 *
 * Warm-up, then calibration batches of 1, 2, 4, ... round trips until one
 * lasts >= 10 % of the time box, then a timed loop of about the time box
 * (-t, default 0.2 s) split into 10 equal sub-loops.  Prints one line in the
 * pingpong format (the counter is 8 bytes); half_rtt_us is the MEDIAN
 * sub-loop's mean (robust to preemption of a busy-waiting process),
 * half_rtt_us_mean the mean of the whole timed loop:
 *   {"bench":"floor_pingpong","impl":"floor","ues":2,"size":8,"iters":...,
 *    "half_rtt_us":...,"half_rtt_us_mean":...,"valid":true,"pinned":true}
 */
#define _GNU_SOURCE
#include "../common/bench_common.h"
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
  _Alignas(64) _Atomic int64_t counter; /* the ping-pong line */
  char pad1[64 - sizeof(int64_t)];
  _Alignas(64) _Atomic int64_t stop; /* separate line: child exit request */
  char pad2[64 - sizeof(int64_t)];
};

static int single_cpu; /* spin with sched_yield if we cannot run in parallel */

static inline void relax(void) {
  if (single_cpu) sched_yield();
}

static void child(struct shared *sh) {
  int64_t expect = 1;
  for (;;) {
    int64_t v;
    while ((v = atomic_load_explicit(&sh->counter, memory_order_acquire)) != expect) {
      if (atomic_load_explicit(&sh->stop, memory_order_relaxed)) _exit(0);
      relax();
    }
    atomic_store_explicit(&sh->counter, expect + 1, memory_order_release);
    expect += 2;
  }
}

/* Parent: n round trips; returns elapsed seconds. */
static double batch(struct shared *sh, int64_t *next, long n) {
  int64_t v = *next;
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    atomic_store_explicit(&sh->counter, v, memory_order_release);
    while (atomic_load_explicit(&sh->counter, memory_order_acquire) != v + 1) relax();
    v += 2;
  }
  double dt = bench_now() - t0;
  *next = v;
  return dt;
}

static int pin_to(int nth) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
  int seen = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed)) continue;
    if (seen++ == nth) {
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      return sched_setaffinity(0, sizeof one, &one) == 0;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  bench_opts o;
  bench_parse(argc, argv, &o);
  cpu_set_t allowed;
  int ncpu = 1;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) ncpu = CPU_COUNT(&allowed);
  single_cpu = ncpu < 2;

  struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  atomic_store(&sh->counter, 0);
  atomic_store(&sh->stop, 0);

  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    if (!single_cpu) pin_to(1);
    child(sh);
    _exit(0);
  }
  int pinned = !single_cpu && pin_to(0);

  int64_t next = 1;
  batch(sh, &next, 1000); /* warm-up */
  long n = 1;
  double dt = batch(sh, &next, n);
  while (!bench_calib_done(o.target_s, n, dt)) {
    n *= 2;
    dt = batch(sh, &next, n);
  }
  long iters = bench_iters_for(o.target_s, n, dt, o.min_iters);
  /* The timed loop runs as NSUB equal sub-loops.  A sub-loop hit by a
   * preemption of either busy-waiting process (2 CPUs shared with everything
   * else) is an outlier, so the floor reported is the median sub-loop mean;
   * the mean of the whole loop is reported too. */
  enum { NSUB = 10 };
  long sub_iters = iters / NSUB > 0 ? iters / NSUB : 1;
  double sub[NSUB], total = 0.0;
  for (int i = 0; i < NSUB; i++) {
    sub[i] = batch(sh, &next, sub_iters);
    total += sub[i];
  }
  for (int i = 1; i < NSUB; i++) /* insertion sort, NSUB is tiny */
    for (int j = i; j > 0 && sub[j - 1] > sub[j]; j--) {
      double t = sub[j];
      sub[j] = sub[j - 1];
      sub[j - 1] = t;
    }
  double med = (sub[NSUB / 2 - 1] + sub[NSUB / 2]) / 2.0;
  iters = sub_iters * NSUB;
  int valid = atomic_load(&sh->counter) == next - 1;

  atomic_store(&sh->stop, 1);
  int status = 0;
  waitpid(pid, &status, 0);
  valid = valid && WIFEXITED(status) && WEXITSTATUS(status) == 0;

  printf("{\"bench\":\"floor_pingpong\",\"impl\":\"floor\",\"ues\":2,\"size\":8,\"iters\":%ld,"
         "\"half_rtt_us\":%.4f,\"half_rtt_us_mean\":%.4f,\"valid\":%s,\"pinned\":%s}\n",
         iters, med / (double)sub_iters / 2.0 * 1e6, total / (double)iters / 2.0 * 1e6, valid ? "true" : "false",
         pinned ? "true" : "false");
  fflush(stdout);
  return valid ? 0 : 1;
}

/*
 * spawn_common.h - what spawn_parent.c, spawn_child.c and connect_accept.c share: the data they
 * exchange over an intercommunicator and check, then over the intracommunicator that
 * MPI_Intercomm_merge makes of it.  Plain MPI, nothing of OpenSCC.
 */
#ifndef SPAWN_COMMON_H
#define SPAWN_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The byte i of the message that rank `from` of group `group` sends to its partner. */
static inline unsigned char spawn_pattern(int group, int from, size_t i) {
  return (unsigned char)(i * 131u + (size_t)from * 17u + (size_t)group * 101u + (i >> 8));
}

static inline void spawn_fail(const char *prog, int rank, const char *what) {
  printf("%s: rank %d: %s\n", prog, rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Over intercommunicator `inter`, local rank me (of group `group`, 0 or 1) exchanges `bytes` with
 * rank me % remote_size of the other group, in both directions; every remote rank r talks to the
 * local ranks congruent to r.  Each message is checked byte by byte. */
static inline void spawn_exchange(const char *prog, MPI_Comm inter, int group, size_t bytes) {
  int me, nlocal, nremote;
  MPI_Comm_rank(inter, &me);
  MPI_Comm_size(inter, &nlocal);
  MPI_Comm_remote_size(inter, &nremote);
  unsigned char *out = malloc(bytes ? bytes : 1), *in = malloc(bytes ? bytes : 1);
  if (!out || !in) spawn_fail(prog, me, "out of memory");
  for (size_t i = 0; i < bytes; i++) out[i] = spawn_pattern(group, me, i);
  MPI_Request req;
  MPI_Isend(out, (int)bytes, MPI_BYTE, me % nremote, 7, inter, &req);
  /* The remote ranks whose partner I am: r with r % nlocal == me. */
  for (int r = me; r < nremote; r += nlocal) {
    MPI_Recv(in, (int)bytes, MPI_BYTE, r, 7, inter, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < bytes; i++)
      if (in[i] != spawn_pattern(1 - group, r, i)) {
        char what[160];
        snprintf(what, sizeof what, "byte %zu from remote rank %d is %u, expected %u", i, r, in[i],
                 spawn_pattern(1 - group, r, i));
        spawn_fail(prog, me, what);
      }
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  free(out);
  free(in);
}

/* The merged communicator of both groups (group 0 first): an allreduce of every rank's number and
 * a broadcast of `bytes` from the last rank, both checked.  Returns the merged size. */
static inline int spawn_check_merged(const char *prog, MPI_Comm inter, int group, size_t bytes) {
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, group, &merged);
  int me, n;
  MPI_Comm_rank(merged, &me);
  MPI_Comm_size(merged, &n);
  long sum = 0, mine = me + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, merged);
  if (sum != (long)n * (n + 1) / 2) {
    char what[96];
    snprintf(what, sizeof what, "allreduce over the merged communicator gave %ld, expected %ld", sum,
             (long)n * (n + 1) / 2);
    spawn_fail(prog, me, what);
  }
  unsigned char *buf = malloc(bytes ? bytes : 1);
  if (!buf) spawn_fail(prog, me, "out of memory");
  for (size_t i = 0; i < bytes; i++) buf[i] = me == n - 1 ? spawn_pattern(2, n - 1, i) : 0;
  MPI_Bcast(buf, (int)bytes, MPI_BYTE, n - 1, merged);
  for (size_t i = 0; i < bytes; i++)
    if (buf[i] != spawn_pattern(2, n - 1, i)) spawn_fail(prog, me, "broadcast over the merged communicator differs");
  free(buf);
  MPI_Comm_free(&merged);
  return n;
}

/* A whole non-negative number, or -1. */
static inline long spawn_number(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  return *s && !*end && v >= 0 ? v : -1;
}

#endif

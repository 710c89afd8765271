/*
 * The launch layer's state in the job segment (hw/region.h):
 *   launch.ue  per UE  what the rank wrapper (rank/openscc_rank.c) records of
 *                      an MPI job's rank: its pid, its program's pid and how
 *                      the program ended
 * Written by openscc-rank, read by rccerun's supervision (supervise.c): the
 * ranks of `rccerun --mpi` are children of the MPI library's launcher, not of
 * rccerun, so their exit statuses reach rccerun through here
 * (docs/rccerun.md "MPI jobs").
 */
#ifndef OPENSCC_LAUNCH_SHARED_H
#define OPENSCC_LAUNCH_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise the version whenever struct launch_ue_shared changes. */
#define LAUNCH_UE_REGION "launch.ue"
#define LAUNCH_UE_VERSION 2

struct launch_ue_shared {
  _Atomic int32_t wrapper_pid; /* openscc-rank, once it has attached */
  _Atomic int32_t program_pid; /* its child, the rank's program, once forked */
  int32_t status;              /* the program's waitpid status, valid once exited */
  _Atomic int32_t exited;      /* 1 once status (and exit_ns) are written */
  uint64_t exit_ns;            /* CLOCK_MONOTONIC when the wrapper reaped the program: orders failures */
  /* A spare UE (rccerun --mpi-spawn-ues) claimed by a rank MPI_Comm_spawn
   * started: 1, and its rank in its own MPI_COMM_WORLD (written right after
   * the claim, `spawned` last). */
  _Atomic int32_t spawned;
  int32_t spawned_rank;
} HW_ALIGNED;

/* UE ue's block. */
static inline struct launch_ue_shared *launch_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct launch_ue_shared *)hw_region_ue(j, LAUNCH_UE_REGION, ue);
}

#endif

/* Human-readable reports of UE states: what each UE waits for. */
#ifndef OPENSCC_LAUNCH_REPORT_H
#define OPENSCC_LAUNCH_REPORT_H

#include <stdio.h>

#include "../hw/segment.h"

struct ue_exit {
  int exited; /* process reaped */
  int status; /* waitpid status */
  int spare;  /* MPI jobs: a spare UE no spawned rank has claimed (yet) */
  int remote; /* rccerun --hosts: the UE runs on another host (its agent supervises it) */
};

/* A UE's state and wait as the launcher saw them at one moment: a report
 * of a deadlock names what the check judged, not what the UEs show a moment
 * later (an MPI rank's bounded nap ends now and then). */
struct ue_seen {
  int32_t state;
  struct hw_wait_desc wait;
};

/* Copies UE u's state and wait description into *seen. */
void report_see(const struct hw_job *job, int u, struct ue_seen *seen);
/* One line describing UE u: its state, or what it is blocked in, as seen in
 * *seen, or read now when seen is NULL. */
void report_ue_line(FILE *f, const struct hw_job *job, int u, const struct ue_exit *ex, const struct ue_seen *seen);
/* Every UE, one line each, prefixed by a headline; seen: one entry per UE,
 * or NULL to read the states now. */
void report_all(FILE *f, const struct hw_job *job, const struct ue_exit *ex, const struct ue_seen *seen,
                const char *headline);
/* "UE 3 (core 6)", in an MPI job (rccerun --mpi) "rank 3 (UE 3 on core 6)",
 * a rank of a spawned group "spawned rank 0 (UE 5 on core 5)" */
void report_ue_name(char *buf, size_t len, const struct hw_job *job, int u);
/* What a UE calls to leave the job: "RCCE_finalize", or in an MPI job
 * "MPI_Finalize" (where an RCCE program calls RCCE_finalize). */
const char *report_finalize_call(const struct hw_job *job);

#endif

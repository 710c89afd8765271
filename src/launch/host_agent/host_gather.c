/* The monitoring records of a job across hosts (host_gather.h): every UE
 * writes its counters and event log into its own host's replica of the
 * segment (hw/trace.h: one writer per block), so after a successful job each
 * agent sends its UEs' blocks to host 0, which puts them into its replica
 * and writes the job directory as rccerun does on one host. */
#define _GNU_SOURCE
#include "host_gather.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../mpi/mpi_shared.h"
#include "../../rcce/rcce_shared.h"
#include "../../trace/trace_export.h"

/* Clock samples per host: the one with the shortest round trip is kept. */
#define CLOCK_SAMPLES 8

/* What travels per UE, before its channel statistics (an MPI job's) and its
 * trace block (hw_trace_ue_bytes). */
struct ue_head {
  uint64_t sleeps;
  struct rcce_ue_counters counters;
};

/* Bytes of UE ue's trace block in use: the head, the counts per peer and the kept events. */
static uint64_t block_bytes(const struct hw_job *job, int ue) {
  const unsigned char *end = (const unsigned char *)(hw_trace_events(job, ue) + trace_kept_events(job, ue));
  return (uint64_t)(end - (const unsigned char *)hw_trace(job, ue));
}

/* Event times travel as CLOCK_MONOTONIC nanoseconds of their host (time-stamp
 * counters are per host); host 0 shifts them by the hosts' clock offset and
 * turns them into its own ticks, relative to its job start (hw_trace_ns). */
static void events_to_ns(const struct hw_job *job, int ue) {
  uint64_t ticks1 = hw_trace_clock(), ns1 = hw_trace_monotonic_ns();
  struct hw_trace_event *e = hw_trace_events(job, ue);
  for (uint64_t i = 0; i < trace_kept_events(job, ue); i++)
    e[i].host_ticks = (uint64_t)llround(hw_trace_ns(job, e[i].host_ticks, ticks1, ns1));
}

static void events_from_ns(const struct hw_job *job, int ue, int64_t offset_ns) {
  const struct hw_header *h = job->hdr;
  uint64_t ticks1 = hw_trace_clock(), ns1 = hw_trace_monotonic_ns();
  double ticks_per_ns = ns1 > h->trace_ns0 ? (double)(ticks1 - h->trace_ticks0) / (double)(ns1 - h->trace_ns0) : 1.0;
  struct hw_trace_event *e = hw_trace_events(job, ue);
  for (uint64_t i = 0; i < trace_kept_events(job, ue); i++) {
    double since_start = (double)((int64_t)e[i].host_ticks - offset_ns - (int64_t)h->trace_ns0);
    e[i].host_ticks = (uint64_t)((int64_t)h->trace_ticks0 + llround(since_start * ticks_per_ns));
  }
}

/* Host h's CLOCK_MONOTONIC minus host 0's (Cristian's algorithm: the sample
 * with the shortest round trip, its reply taken at the trip's middle). */
static int64_t clock_offset(MPI_Comm comm, int h) {
  int64_t best = 0;
  uint64_t best_trip = UINT64_MAX;
  for (int i = 0; i < CLOCK_SAMPLES; i++) {
    uint64_t sent = hw_trace_monotonic_ns(), theirs;
    MPI_Send(NULL, 0, MPI_BYTE, h, HOST_TAG_CLOCK, comm);
    MPI_Recv(&theirs, sizeof theirs, MPI_BYTE, h, HOST_TAG_CLOCK, comm, MPI_STATUS_IGNORE);
    uint64_t back = hw_trace_monotonic_ns();
    if (back - sent < best_trip) best_trip = back - sent, best = (int64_t)theirs - (int64_t)(sent + (back - sent) / 2);
  }
  return best;
}

static void answer_clock(MPI_Comm comm) {
  for (int i = 0; i < CLOCK_SAMPLES; i++) {
    MPI_Recv(NULL, 0, MPI_BYTE, 0, HOST_TAG_CLOCK, comm, MPI_STATUS_IGNORE);
    uint64_t now = hw_trace_monotonic_ns();
    MPI_Send(&now, sizeof now, MPI_BYTE, 0, HOST_TAG_CLOCK, comm);
  }
}

static void send_ue(MPI_Comm comm, const struct hw_job *job, int ue, int tracing) {
  struct ue_head head = {hw_ue(job, ue)->sleeps, rcce_ue_shared_of(job, ue)->counters};
  MPI_Send(&head, sizeof head, MPI_BYTE, 0, HOST_TAG_UE, comm);
  if (job->hdr->set.mpi_library) /* the channel's statistics (an MPI job) */
    MPI_Send(mpi_ue_shared_of(job, ue), sizeof(struct mpi_ue_shared), MPI_BYTE, 0, HOST_TAG_UE, comm);
  if (!tracing) return;
  events_to_ns(job, ue);
  MPI_Send(hw_trace(job, ue), (int)block_bytes(job, ue), MPI_BYTE, 0, HOST_TAG_UE, comm);
}

static void receive_ue(MPI_Comm comm, const struct hw_job *job, int ue, int from, int tracing, int64_t offset_ns) {
  struct ue_head head;
  MPI_Recv(&head, sizeof head, MPI_BYTE, from, HOST_TAG_UE, comm, MPI_STATUS_IGNORE);
  hw_ue(job, ue)->sleeps = head.sleeps;
  rcce_ue_shared_of(job, ue)->counters = head.counters;
  if (job->hdr->set.mpi_library)
    MPI_Recv(mpi_ue_shared_of(job, ue), sizeof(struct mpi_ue_shared), MPI_BYTE, from, HOST_TAG_UE, comm,
             MPI_STATUS_IGNORE);
  if (!tracing) return;
  /* The block's size follows from its event count, known only once it is here. */
  MPI_Recv(hw_trace(job, ue), (int)job->hdr->trace_ue_bytes, MPI_BYTE, from, HOST_TAG_UE, comm, MPI_STATUS_IGNORE);
  events_from_ns(job, ue, offset_ns);
}

int host_gather(MPI_Comm comm, struct hw_job *job, int me, int hosts) {
  int tracing = job->hdr->trace_ue_bytes > 0;
  int nue = (int)job->hdr->nue;
  if (me != 0) {
    answer_clock(comm);
    for (int u = 0; u < nue; u++)
      if (hw_host_of_ue(job, u) == me) send_ue(comm, job, u, tracing);
    return 0;
  }
  int64_t offset[HW_MAX_HOSTS] = {0};
  for (int h = 1; h < hosts; h++) offset[h] = clock_offset(comm, h);
  /* In UE order: each host sends its own UEs in that order. */
  for (int u = 0; u < nue; u++) {
    int h = hw_host_of_ue(job, u);
    if (h != 0) receive_ue(comm, job, u, h, tracing, offset[h]);
  }
  return 1;
}

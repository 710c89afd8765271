/*
 * trace layer: the job directory's monitoring files, written by the launcher
 * from the UEs' records in the job segment (hw/trace.h, docs/monitoring.md).
 * Each returns 0, or -1 with errno set when the file cannot be written.
 */
#ifndef OPENSCC_TRACE_EXPORT_H
#define OPENSCC_TRACE_EXPORT_H

#include <stdint.h>

#include "../hw/trace.h"

/* comm_matrix.csv: src,dst,messages,bytes for every pair that exchanged messages. */
int trace_write_comm_matrix(const struct hw_job *j, const char *path);
/* message_sizes.csv: bytes,messages over every message sent (sizes level). */
int trace_write_message_sizes(const struct hw_job *j, const char *path);
/* trace.json: Chrome/Perfetto trace events, one track per UE, messages as flows (timeline level). */
int trace_write_chrome(const struct hw_job *j, const char *path);

/* The events of UE ue that were kept (the log may have dropped later ones). */
static inline uint64_t trace_kept_events(const struct hw_job *j, int ue) {
  uint64_t n = hw_trace(j, ue)->n_events;
  return n < j->hdr->trace_capacity ? n : j->hdr->trace_capacity;
}

#endif

/*
 * The copy layer's state in the job segment (hw/region.h):
 *   copy.ue  per UE  a copy core's stop word (set by the launcher when the
 *                    program's UEs are gone) and its counters
 * and the request lines it keeps in a copy core's MPB (docs/data-movement.md
 * "Copy cores"): line c holds UE c's request, line nue + c the answer, each
 * with its sequence number in the line's last word (a flag, stamped in
 * model mode as RCCE's flags are).
 */
#ifndef OPENSCC_COPY_SHARED_H
#define OPENSCC_COPY_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

#define COPY_UE_REGION "copy.ue"
#define COPY_UE_VERSION 1

struct copy_ue_shared {
  _Atomic int32_t stop HW_ALIGNED; /* the program's UEs have all left: serve no more */
  uint64_t requests, bytes;        /* served by this copy core */
};

static inline struct copy_ue_shared *copy_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct copy_ue_shared *)hw_region_ue(j, COPY_UE_REGION, ue);
}

/* One request line (32 bytes, the MPB's line): copy `bytes` from segment
 * offset src_off to dst_off, the chunks part, part + parts, ... of `chunk`
 * bytes each; seq last (the flag that says the line is new). */
struct copy_request {
  uint64_t src_off, dst_off;
  uint32_t bytes, chunk;
  uint16_t parts, part;
  volatile uint32_t seq;
};
_Static_assert(sizeof(struct copy_request) == 32, "a request is one MPB line");

/* The answer line: the last request done, and how (SCC_COPY_SUCCESS, or
 * SCC_COPY_ERROR_ADDRESS when the copy core could not map the ranges). */
struct copy_answer {
  int32_t status;
  uint32_t unused[6];
  volatile uint32_t seq;
};
_Static_assert(sizeof(struct copy_answer) == 32, "an answer is one MPB line");

/* UE client's lines in copy core `core`'s MPB (nue: the job's UEs). */
static inline struct copy_request *copy_request_line(const struct hw_job *j, int copy_ue, int client) {
  return (struct copy_request *)hw_mpb(j, hw_ue(j, copy_ue)->core) + client;
}
static inline struct copy_answer *copy_answer_line(const struct hw_job *j, int copy_ue, int client) {
  return (struct copy_answer *)hw_mpb(j, hw_ue(j, copy_ue)->core) + j->hdr->nue + client;
}

#endif

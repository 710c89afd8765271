/* The pipeline layer (include/scc_pipeline.h): above rcce and lut. */
#ifndef OPENSCC_PIPELINE_INTERNAL_H
#define OPENSCC_PIPELINE_INTERNAL_H

#include "scc_pipeline.h"

/* RCCE_SUCCESS, or the RCCE error code of a bad layout over `bytes`,
 * reported for `where` (run.c). */
int pipe_check_layout(const scc_pipe_layout *l, size_t bytes, const char *where);
/* The UE of stage s. */
static inline int pipe_stage_ue(const scc_pipe_layout *l, int s) { return l->order ? l->order[s] : s; }

#endif

/*
 * scc_pipeline.h - pipelines of stages on cores, and their cost model
 * ([PIPELINE-2011] (docs/references.md); docs/data-movement.md "Pipelines").
 *
 * D bytes are cut into N = D / C chunks of C bytes; stage s (0..m-1) runs on
 * UE order[s] and, for every chunk in turn, receives it from stage s-1 (the
 * first stage reads it from the input), runs the stage function on it, and
 * passes it to stage s+1 (the last stage writes it to the output).  The
 * chunks live in one of two places:
 *   SCC_PIPE_PRIVATE         each stage's private memory: a chunk travels as
 *                            an RCCE message (private memory -> the sender's
 *                            MPB -> the receiver's private memory);
 *   SCC_PIPE_SHARED          the off-chip shared memory (RCCE_shmalloc),
 *                            uncached: the chunk stays, a 4-byte token with
 *                            its number travels;
 *   SCC_PIPE_SHARED_CACHED   the same, each stage seeing the shared memory
 *                            through MPBT LUT entries (scc_lut.h: level 1
 *                            and the write-combine buffer).
 * RCCE's messages are synchronous, so the stages move in lock-step.
 *
 * The cost model predicts the time of a layout (stage order on the mesh,
 * chunk size, memory) from the chip description: [PIPELINE-2011]'s message
 * time (eq. 3: the sender reads its private memory, writes its MPB, the
 * receiver reads that MPB over the mesh and writes its private memory), each
 * term priced with the chip's latencies, and a stage period of receive +
 * compute + send; scc_pipe_best searches orders and chunk sizes with it.
 */
#ifndef SCC_PIPELINE_H
#define SCC_PIPELINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define SCC_PIPE_PRIVATE 0
#define SCC_PIPE_SHARED 1
#define SCC_PIPE_SHARED_CACHED 2

typedef struct {
  int stages;       /* m: 1 .. RCCE_num_ues() */
  const int *order; /* order[s]: the UE of stage s, each UE once; NULL: UE s */
  size_t chunk;     /* C: bytes of a chunk (the last may be shorter) */
  int memory;       /* SCC_PIPE_PRIVATE, SCC_PIPE_SHARED or SCC_PIPE_SHARED_CACHED */
} scc_pipe_layout;

/* What a stage does to a chunk, in place. */
typedef void (*scc_pipe_stage)(unsigned char *chunk, size_t bytes, int stage, void *arg);

typedef struct {
  double seconds;     /* from the common start to the last chunk out (RCCE_wtime: virtual in model mode) */
  double tc_per_byte; /* the slowest stage's compute time per byte (RCCE_wtime around the stage function) */
  double predicted;   /* the cost model's time for this layout with that tc_per_byte */
} scc_pipe_result;

/* Run the pipeline: collective over RCCE_COMM_WORLD (UEs without a stage
 * take part in its set-up only).  `in` (bytes) is read on the first stage's
 * UE, `out` (bytes) written on the last stage's UE; other UEs may pass
 * NULL.  res (may be NULL) gets the same values on every UE.  Returns
 * RCCE_SUCCESS or an RCCE error code (RCCE_ERROR_ARG for a bad layout). */
int scc_pipe_run(const scc_pipe_layout *layout, const void *in, void *out, size_t bytes, scc_pipe_stage fn, void *arg,
                 scc_pipe_result *res);

/* The model's time for a layout over `bytes`, the stages computing
 * tc_per_byte seconds a byte (0 when the layout is invalid). */
double scc_pipe_predict(const scc_pipe_layout *layout, size_t bytes, double tc_per_byte);

/* The layout the model finds fastest for `stages` stages over the job's
 * UEs: the order (written to order_out, `stages` entries) among candidate
 * chains on the mesh, and the chunk among the nchunks sizes given; memory
 * as in layout->memory.  Fills layout (its order points at order_out) and
 * returns the predicted seconds, or 0 for bad arguments. */
double scc_pipe_best(scc_pipe_layout *layout, int stages, int memory, size_t bytes, double tc_per_byte,
                     const size_t *chunks, int nchunks, int *order_out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

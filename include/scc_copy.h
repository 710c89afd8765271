/*
 * scc_copy.h - copy cores (docs/data-movement.md).
 *
 * [SVP-SCC] sec. III.C dedicated some cores to copying: a program hands a
 * copy to them and they move it, several at once, each with its own path to
 * memory -- as DMA engines would.  `rccerun --copy-cores K` starts K such
 * UEs after the program's (on free cores next to the memory controllers,
 * where the paper put them); RCCE_num_ues() does not count them.
 *
 * A copy is split into SCC_COPY_CHUNK-byte pieces dealt round-robin over
 * the copy cores.  Each copy core maps both ranges through its lookup table
 * with the MPBT attribute (scc_lut.h), invalidates its MPBT lines, copies,
 * and empties its write-combine buffer: the paper's remapping, done by
 * several cores.  Source and destination must be memory a LUT can map: a
 * UE's private memory (scc_private_base, or a scc_map_private window), the
 * shared memory (RCCE_shmalloc) or an MPB (RCCE_malloc, or a window of an
 * MPB entry; a range stays within one tile's MPB).  As with remapping, the
 * owner of cached source data flushes its level 2 first (scc_l2_flush).
 */
#ifndef SCC_COPY_H
#define SCC_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define SCC_COPY_CHUNK 8192 /* bytes dealt to one copy core at a time */

#define SCC_COPY_SUCCESS 0
#define SCC_COPY_ERROR_NOT_INIT 1 /* before RCCE_init */
#define SCC_COPY_ERROR_NO_CORES 2 /* the job has no copy cores (rccerun --copy-cores K) */
#define SCC_COPY_ERROR_ADDRESS 3  /* a range that is not one LUT-mappable memory */
#define SCC_COPY_ERROR_OVERLAP 4  /* source and destination overlap */
#define SCC_COPY_ERROR_ARG 5      /* NULL handle, or a handle not started */
const char *scc_copy_error_string(int code);

/* A copy under way. */
typedef struct {
  unsigned seq; /* 0: none */
  int parts;    /* copy cores it went to */
} scc_copy_handle;

/* The job's copy cores (0 without --copy-cores). */
int scc_copy_cores(void);

/* Start copying bytes from src to dst on the copy cores; returns once every
 * copy core has its request.  A copy core takes one request per UE at a
 * time: a second copy waits for the first's part there. */
int scc_copy_async(void *dst, const void *src, size_t bytes, scc_copy_handle *h);
/* Wait until the copy is done (dst holds it). */
int scc_copy_wait(scc_copy_handle *h);
/* Both. */
int scc_copy(void *dst, const void *src, size_t bytes);

/* This UE copies by itself (memcpy; model mode charges the P54C's copy loop
 * through the caches as the addresses are mapped). */
void scc_copy_local(void *dst, const void *src, size_t bytes);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

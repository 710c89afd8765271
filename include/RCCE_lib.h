/*
 * RCCE_lib.h - RCCE's internal names that SCC programs and libraries built
 * on RCCE (iRCCE, RCKMPI ports) commonly touch.  Valid after RCCE_init.
 */
#ifndef RCCE_LIB_H
#define RCCE_LIB_H

#include "RCCE.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

#define RCCE_BUFF_SIZE RCCE_BUFF_SIZE_MAX
/* RCCE_lib.h's PAD32byte: n bytes rounded up to whole 32-byte lines. */
#define PAD32byte(n) (((n) + 31) / 32 * 32)

/* RCCE's auxiliary MPB pointer and dereferenced types. */
typedef volatile unsigned int *t_vintp;
typedef volatile unsigned char t_vchar;
typedef volatile unsigned int t_vint;

extern int RCCE_IAM;                          /* my UE number */
extern int RCCE_NP;                           /* number of UEs */
extern t_vcharp RCCE_comm_buffer[RCCE_MAXNP]; /* start of each UE's MPB */
extern t_vcharp RCCE_buff_ptr;                /* basic interface: my send buffer in my MPB */
extern size_t RCCE_chunk;                     /* basic interface: its size in bytes */
extern int RCCE_debug_synch, RCCE_debug_comm, RCCE_debug_debug, RCCE_debug_RPC;

/* CL1INVMB on the SCC; a no-op on a coherent host, kept for source compatibility. */
void RCCE_cache_invalidate(void);
#define RC_cache_invalidate RCCE_cache_invalidate /* RCCE's internal name for it */

/* Intel's RCCE_qsort.c: qsort(3) under RCCE's name (returns RCCE_SUCCESS),
 * and the comparison of two ints it is used with. */
int RCCE_qsort(char *base, size_t nel, size_t width, int (*compar)(const void *, const void *));
int id_compare(const void *e1, const void *e2);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

/* The copy layer's parts (client.c, remap.c, service.c): above lut and rcce. */
#ifndef OPENSCC_COPY_INTERNAL_H
#define OPENSCC_COPY_INTERNAL_H

#include <stdint.h>

#include "copy_shared.h"

/* A copy core's life: serve requests until the launcher says stop
 * (service.c, called by openscc-copy-core after rcce_init_service). */
void copy_serve(void);

/* [SVP-SCC] sec. III.B's copy by remapping, by this UE (remap.c): the
 * pieces of `chunk` bytes at first, first + stride, ... below `bytes` of
 * the memory at job-segment offset src_off, to dst_off, both mapped through
 * its lookup table as MPBT (CL1INVMB before, the write-combine buffer
 * flushed after), the bytes copied added to *copied.  SCC_COPY_SUCCESS, or
 * SCC_COPY_ERROR_ADDRESS when a range cannot be mapped.  The copy cores'
 * service and svp's remapped families use it. */
int copy_remapped(uint64_t dst_off, uint64_t src_off, uint64_t bytes, uint64_t first, uint64_t chunk, uint64_t stride,
                  uint64_t *copied);

#endif

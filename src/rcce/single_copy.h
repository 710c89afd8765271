/*
 * Native-mode transfer of large messages without MPB chunks: after one
 * handshake in which the two ends exchange their buffer addresses through a
 * descriptor in the sender's comm buffer, the receiver pulls the first part
 * (process_vm_readv) while the sender pushes the rest (process_vm_writev),
 * in parallel; a second handshake reports completion both ways.  If the
 * kernel refuses cross-memory attach, both ends fall back to chunks, and the
 * job keeps using chunks.  Splitting the copy between the two cores halves
 * the 1 MiB half round trip on a 2-CPU host (make bench: ~95 us split vs
 * ~170 us receiver-only).
 */
#ifndef OPENSCC_SINGLE_COPY_H
#define OPENSCC_SINGLE_COPY_H

#include <stddef.h>

#include "rcce_internal.h"

/* Messages at least this large (and longer than one chunk) skip the chunks. */
#define RCCE_SINGLE_COPY_MIN (32 * 1024)
/* From this size on the sender copies half of the message itself (below it
 * the second copy's system call costs more than it saves). */
#define RCCE_SINGLE_COPY_SPLIT_MIN (64 * 1024)

int rcce_single_copy_wanted(size_t size, size_t chunk);
/* Advance the single-copy steps of a transfer without blocking: 1 when the
 * message moved, 0 when stuck (x->wait_flag / wait_value say on what), -1
 * when both ends must move the message in chunks instead. */
int rcce_single_copy_poll(struct rcce_xfer *x);

#endif

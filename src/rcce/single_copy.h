/*
 * Native-mode single-copy transfer of large messages: the receiver copies
 * straight out of the sender's private buffer with process_vm_readv (Linux
 * cross-memory attach), after one MPB handshake that carries a descriptor.
 * If the kernel refuses, the job falls back to chunks for good.
 */
#ifndef OPENSCC_SINGLE_COPY_H
#define OPENSCC_SINGLE_COPY_H

#include <stddef.h>

#include "rcce_internal.h"

/* Messages at least this large (and longer than one chunk) go single-copy. */
#define RCCE_SINGLE_COPY_MIN (32 * 1024)

int rcce_single_copy_wanted(size_t size, size_t chunk);
/* Both return 1 when the whole message moved, 0 when chunks must follow. */
int rcce_single_copy_send(const char *priv, unsigned char *combuf, struct rcce_iflag ready, struct rcce_iflag sent,
                          size_t size, int dest);
int rcce_single_copy_recv(char *priv, const unsigned char *src_combuf, struct rcce_iflag ready,
                          struct rcce_iflag sent, size_t size, int src);

#endif

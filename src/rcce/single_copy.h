/*
 * Native-mode transfer of large messages without MPB chunks: the sender
 * publishes its buffer's address in a descriptor in its comm buffer and
 * raises "sent"; the receiver copies the whole message straight out of the
 * sender's memory (process_vm_readv, Linux cross-memory attach), records the
 * outcome in the descriptor and raises "ready".  One handshake, so RCCE's
 * synchronous semantics hold.  If the kernel refuses, both ends continue with
 * chunks, and the job keeps using chunks.  (Splitting the copy between both
 * ends measured no faster: the cost is cross-core cache traffic.)
 */
#ifndef OPENSCC_SINGLE_COPY_H
#define OPENSCC_SINGLE_COPY_H

#include <stddef.h>

#include "rcce_internal.h"

/* Messages at least this large (and longer than one chunk) skip the chunks. */
#define RCCE_SINGLE_COPY_MIN (32 * 1024)

int rcce_single_copy_wanted(size_t size, size_t chunk);
/* Both return 1 when the whole message moved, 0 when chunks must follow. */
int rcce_single_copy_send(const char *priv, unsigned char *combuf, struct rcce_link *l, size_t size, int dest);
int rcce_single_copy_recv(char *priv, const unsigned char *src_combuf, struct rcce_link *l, size_t size, int src);

#endif

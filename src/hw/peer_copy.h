/*
 * Copies between the memory of two UEs' processes, for the native-mode
 * single-copy paths of the layers above (rcce/single_copy.c, the MPI
 * channel's channel_copy.c): process_vm_readv/writev, which need ptrace
 * access to the peer (docs/rccerun.md, "Single-copy transfers and ptrace").
 * The copies bypass the emulated MPB: callers use them in native mode only,
 * or charge the MPB traffic they replace themselves.
 */
#ifndef OPENSCC_HW_PEER_COPY_H
#define OPENSCC_HW_PEER_COPY_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "segment.h"

/* Copy between the local iov and the iov of process pid (write 0: read
 * theirs into mine; 1: write mine into theirs), min of the two totals; 0
 * when every byte moved, -1 when the kernel refused or failed part way
 * (errno set: EPERM under Yama's ptrace_scope 2 or 3, ESRCH, EFAULT). */
int hw_peer_copyv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote,
                  int write);

/* Let the other UEs of the job copy from this process: under Yama's
 * ptrace_scope 1 only a declared ptracer and its descendants may, so the
 * UE declares the job's launcher (rccerun); its UEs are its descendants.
 * Nothing is declared when the job has no single copy (--no-single-copy) or
 * a single UE.  Without Yama the declaration fails harmlessly (same-user
 * access is the kernel's default). */
void hw_allow_peer_copies(const struct hw_header *h);

#endif

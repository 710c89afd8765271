/*
 * Native single copy of large payloads (docs/mpi-channel.md, "Single
 * copy"), as RCCE's native path copies large messages (rcce/single_copy.c):
 * a packet whose payload is at least CHAN_COPY_MIN bytes moves in one round
 * of the usual protocol, the rendezvous, which carries the packet's header
 * and a descriptor of the sender's payload (its process and the address of
 * its iov array) instead of the payload.  The receiver copies the payload
 * straight from the sender's buffers into the provider's target
 * (process_vm_readv, hw/peer_copy.h), writes the outcome into the EWS
 * payload and then publishes its receive sequence as for any round: the
 * sender, seeing the round consumed, reads the outcome, and the packet is
 * done (its buffers reusable) only then.  A refused copy (Yama's
 * ptrace_scope 2 or 3, a sender that forbids ptrace) leaves the payload to
 * the ordinary rounds that follow, and the sender sends no more single
 * copies.  The EWS, the sequences, the doorbells, the packet order, the
 * statistics' packets and bytes and the monitoring records are those of the
 * MPB path; only the payload bypasses the MPB.  Model mode never takes this
 * path: its rounds are what the model charges (timing.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../hw/peer_copy.h"
#include "channel_internal.h"

/* Payloads from this size on go by single copy: below it the rounds through
 * the MPB cost less than the two system calls and the round trip
 * (measured, docs/mpi-channel.md "Single copy"). */
#define CHAN_COPY_MIN (32 * 1024)
/* The sender's iov entries the receiver reads at most (the provider's are fewer). */
#define CHAN_COPY_IOV_MAX 64

/* The descriptor after the header in the rendezvous round. */
struct chan_copy_desc {
  int32_t pid;
  uint32_t iov_count;
  uint64_t iov_addr; /* the sender's struct iovec[iov_count] */
};
_Static_assert(sizeof(struct chan_copy_desc) == CHAN_COPY_DESC_BYTES, "descriptor size");

void chan_copy_open(void) {
  const struct hw_header *h = chan.job->hdr;
  /* The rendezvous (header + descriptor) must fit one EWS round. */
  chan.copy_ok = h->set.single_copy && !h->set.model && chan.g.ews_payload >= MPI_PACKET_HEADER + CHAN_COPY_DESC_BYTES;
  if (chan.copy_ok) hw_allow_peer_copies(h);
}

int chan_copy_wanted(const struct mpi_out_packet *p) {
  return chan.copy_ok && p->payload_bytes >= CHAN_COPY_MIN && p->iov_count <= CHAN_COPY_IOV_MAX;
}

void chan_copy_describe(const struct mpi_out_packet *p, unsigned char *to) {
  const struct chan_copy_desc d = {(int32_t)getpid(), (uint32_t)p->iov_count, (uint64_t)(uintptr_t)p->iov};
  memcpy(to, &d, sizeof d);
}

uint8_t chan_copy_pull(int src, const unsigned char *desc, struct chan_rx *r) {
  struct chan_copy_desc d;
  memcpy(&d, desc, sizeof d);
  if (d.iov_count > CHAN_COPY_IOV_MAX) {
    fprintf(stderr, "openscc mpi channel: UE %d: corrupt single-copy descriptor from UE %d (%u iov entries)\n", chan.me,
            src, d.iov_count);
    abort();
  }
  /* Only from the process that is UE src (a stale descriptor of an exited
   * sender must not read whatever process now has its pid). */
  if (d.pid != hw_ue(chan.job, src)->pid) return CHAN_COPY_REFUSED;
  struct iovec theirs[CHAN_COPY_IOV_MAX];
  const struct iovec table = {theirs, d.iov_count * sizeof *theirs},
                     where = {(void *)(uintptr_t)d.iov_addr, d.iov_count * sizeof *theirs};
  /* Their iov array, then the payload into the target (bytes beyond its
   * end stay unread, as the rounds would discard them).  An iov array that
   * does not hold the packet's payload is not the packet's: refused. */
  if (hw_peer_copyv(d.pid, &table, 1, &where, 1, 0) != 0) return CHAN_COPY_REFUSED;
  uint64_t total = 0;
  for (uint32_t i = 0; i < d.iov_count; i++) total += theirs[i].iov_len;
  if (total != r->packet_bytes - MPI_PACKET_HEADER) return CHAN_COPY_REFUSED;
  if (hw_peer_copyv(d.pid, r->t.iov, r->t.iov_count, theirs, d.iov_count, 0) != 0) return CHAN_COPY_REFUSED;
  return CHAN_COPY_DONE;
}

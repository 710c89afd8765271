/* One-sided operations as active messages through the channel
 * (docs/mpi-provider.md, "One-sided operations"): what prov_rma.c (the
 * initiator), prov_rma_target.c (the target's progress) and prov_atomic.c
 * (the atomic calls and arithmetic) share. */
#ifndef OPENSCC_MPI_PROV_RMA_H
#define OPENSCC_MPI_PROV_RMA_H

#include "mpi_shared.h"
#include "provider.h"

/* An atomic's class: fi_atomic, fi_fetch_atomic, fi_compare_atomic. */
enum prov_atomic_kind { PROV_ATOMIC_PLAIN = 0, PROV_ATOMIC_FETCH = 1, PROV_ATOMIC_COMPARE = 2 };

/* The header of a one-sided packet, in place of struct prov_hdr (the same
 * first byte, the operation, and endpoint fields).  Payload: WRITE the data;
 * READ none; ATOMIC the operands (none for FI_ATOMIC_READ), then for
 * compare atomics as many compare values; REPLY a READ's data or the
 * atomic's old values when the status is 0, else nothing. */
struct prov_rma_hdr {
  uint8_t op;          /* PROV_OP_WRITE, READ, ATOMIC, REPLY */
  uint8_t atomic_kind; /* enum prov_atomic_kind */
  uint16_t src_ep, dst_ep;
  uint8_t atomic_op, datatype; /* enum fi_op, enum fi_datatype */
  uint64_t key;                /* REPLY: the status, 0 or an fi_errno */
  uint64_t addr;               /* in the target's registration (prov_mr.c) */
  uint32_t request;            /* the initiator's packet, echoed by the REPLY */
  uint32_t count;              /* READ: bytes wanted; ATOMIC: elements; REPLY: bytes of data */
};
_Static_assert(sizeof(struct prov_rma_hdr) == MPI_PACKET_HEADER, "the one-sided header is 32 bytes");

/* One call, in bytes: a remote iov entry per packet. */
struct prov_rma_request {
  enum prov_op op; /* PROV_OP_WRITE, READ, ATOMIC */
  enum prov_atomic_kind kind;
  enum fi_op atomic_op;
  enum fi_datatype datatype;
  const struct iovec *local; /* WRITE data, ATOMIC operands */
  size_t local_count;
  const struct iovec *compare; /* compare atomics */
  size_t compare_count;
  const struct iovec *result; /* READ destination, fetched old values */
  size_t result_count;
  const struct fi_rma_iov *remote; /* addr, len in bytes, key */
  size_t remote_count;
  fi_addr_t dest;
  void *ctx;
  uint64_t flags;
  int inject_call; /* fi_inject_write, fi_inject_atomic: no CQ entry (counters count) */
};
/* Post one call's packets: 0 or a negative fi_errno (nothing posted). */
ssize_t prov_rma_post(struct prov_ep *ep, const struct prov_rma_request *r);

/* This UE's channel statistics, where the one-sided counts go (mpi_shared.h). */
struct mpi_ue_shared *prov_rma_stats(void);

/* Send a packet (every byte through the MPB; to this process's own UE
 * straight to the sink, as if it had arrived). */
void prov_rma_packet_post(struct mpi_out_packet *p);

/* A REPLY's header arrived: where its data lands (the initiator's buffers,
 * or nowhere once its endpoint closed).  Then its last byte: the
 * operation's part is done. */
void prov_rma_reply_target(const struct prov_rma_hdr *h, struct iovec *iov, size_t *iov_count);
void prov_rma_reply_done(const struct prov_rma_hdr *h);
/* Whether the REPLY h answers a call of endpoint ep. */
int prov_rma_reply_is_for(const struct prov_rma_hdr *h, const struct prov_ep *ep);

/* ---- atomics (prov_atomic.c) ---- */
/* The size of one element of datatype, or 0 when the provider has no
 * atomics on it. */
size_t prov_atomic_size(enum fi_datatype datatype);
/* Whether (op, datatype) is an operation the provider offers (in every
 * call class: prov_atomic.c). */
int prov_atomic_valid(enum fi_op op, enum fi_datatype datatype);
/* Apply a valid operation to count elements at target (operand NULL for
 * FI_ATOMIC_READ, compare NULL but for compare atomics -- the compare
 * values are then zero; the old values to result unless it is NULL). */
void prov_atomic_apply(enum fi_op op, enum fi_datatype datatype, void *target, const void *operand, const void *compare,
                       void *result, size_t count);

#endif

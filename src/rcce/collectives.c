/*
 * RCCE_bcast, RCCE_reduce, RCCE_allreduce (basic interface).
 *
 * Small payloads go through the MPB: every member puts its piece into its
 * own send buffer (all members are inside the collective, so no send is
 * using it), a barrier publishes the pieces, readers fetch them from the
 * members' MPBs, and a second barrier frees the buffers.  Reductions combine
 * in member order, so every UE gets bit-identical results.  Broadcasts larger
 * than the send buffer use one synchronous send per member, as RCCE does.
 *
 * Reductions of at most one MPB line over a communicator of every UE take one
 * barrier in native mode (piece_slot below); model mode keeps the two
 * barriers it was validated with.
 */
#include <string.h>

#include "rcce_internal.h"

static size_t type_size(int type) {
  switch (type) {
    case RCCE_INT: return sizeof(int);
    case RCCE_LONG: return sizeof(long);
    case RCCE_FLOAT: return sizeof(float);
    case RCCE_DOUBLE: return sizeof(double);
    default: return 0;
  }
}

#define COMBINE(T)                               \
  do {                                           \
    T *a = (T *)acc;                             \
    const T *b = (const T *)in;                  \
    for (size_t i = 0; i < n; i++) switch (op) { \
        case RCCE_SUM: a[i] += b[i]; break;      \
        case RCCE_PROD: a[i] *= b[i]; break;     \
        case RCCE_MIN:                           \
          if (b[i] < a[i]) a[i] = b[i];          \
          break;                                 \
        default:                                 \
          if (b[i] > a[i]) a[i] = b[i];          \
          break;                                 \
      }                                          \
  } while (0)

static void combine(void *acc, const void *in, size_t n, int type, int op) {
  switch (type) {
    case RCCE_INT: COMBINE(int); break;
    case RCCE_LONG: COMBINE(long); break;
    case RCCE_FLOAT: COMBINE(float); break;
    default: COMBINE(double); break;
  }
}

static int check(const RCCE_COMM *comm, int root, const char *where) {
  if (!rcce_g.initialized || rcce_g.gory)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, where, "RCCE_init of the basic interface not done");
  if (!comm->initialized || comm->my_rank < 0)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, where, "UE %d is not in the communicator", rcce_g.ue);
  if (root < 0 || root >= comm->size)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "root %d is not a rank of a %d-UE communicator", root,
                      comm->size);
  if (rcce_xfer_buffer_busy())
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_DATA_OVERLAP, where,
                      "a non-blocking request still moves data through UE %d's send buffer; wait for it first",
                      rcce_g.ue);
  return RCCE_SUCCESS;
}

/* A NULL buffer that a call would read (code RCCE_ERROR_SOURCE) or write
 * (RCCE_ERROR_TARGET), as RCCE_send / RCCE_recv report it; NULL is fine
 * when no byte moves. */
int rcce_check_buffer(const void *buf, size_t bytes, int code, const char *where, const char *what) {
  if (buf || !bytes) return RCCE_SUCCESS;
  return rcce_error(RCCE_DEBUG_COMM, code, where, "NULL %s", what);
}

/* Where a reduction's pieces go: the send buffer (`call` < 0), or for a small
 * reduction over every UE the line of "self" flags (sent[ue] or ready[ue] in
 * UE ue's own MPB, which no message uses: a UE never sends to itself),
 * alternating between the two with each such call.  A UE writes a line again
 * only two calls later, after passing the barrier of the call between, which
 * every UE reaches only once it has read this call's pieces; so no second
 * barrier has to free the line, and what the UE sends meanwhile (through the
 * send buffer) cannot disturb a reader.  Only calls over every UE may use
 * the lines: every UE makes those calls, so `call` counts alike everywhere. */
static volatile unsigned char *piece_slot(int ue, long call) {
  if (call < 0) return rcce_mpb_of(ue) + (RCCE_buff_ptr - RCCE_comm_buffer[rcce_g.ue]);
  return rcce_mpb_of(ue) + (call & 1 ? rcce_g.ready[ue] : rcce_g.sent[ue]).off;
}

static long slot_calls; /* small reductions over every UE so far */

static long slot_call(const RCCE_COMM *comm, size_t bytes) {
  int usable =
      !timing_enabled && rcce_g.flag_mode == RCCE_FLAGMODE_BIG && comm->size == rcce_g.nue && bytes <= rcce_g.line;
  return usable ? slot_calls++ : -1;
}

/* Reduce into outbuf at rank `root`, or at every rank when `everywhere`. */
static int reduce_general(char *inbuf, char *outbuf, int num, int type, int op, int root, int everywhere,
                          RCCE_COMM *comm, const char *where) {
  int rc = check(comm, root, where);
  if (rc != RCCE_SUCCESS) return rc;
  size_t ts = type_size(type);
  if (!ts) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ILLEGAL_TYPE, where, "type %d", type);
  if (op != RCCE_SUM && op != RCCE_MIN && op != RCCE_MAX && op != RCCE_PROD)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ILLEGAL_OP, where, "operator %d", op);
  if (num < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where, "count %d", num);
  size_t bytes = (size_t)num * ts, piece = RCCE_chunk / ts * ts;
  /* As in RCCE 1.0.13, every member contributes inbuf but only the root of a
   * reduce fills outbuf: other members may pass NULL there (docs/rcce.md). */
  int reader = everywhere || comm->my_rank == root;
  if ((rc = rcce_check_buffer(inbuf, bytes, RCCE_ERROR_SOURCE, where, "input buffer")) != RCCE_SUCCESS ||
      (reader && (rc = rcce_check_buffer(outbuf, bytes, RCCE_ERROR_TARGET, where, "output buffer")) != RCCE_SUCCESS))
    return rc;
  long call = slot_call(comm, bytes);
  for (size_t off = 0; off < bytes; off += piece) {
    size_t n = bytes - off < piece ? bytes - off : piece;
    rcce_mpb_write(piece_slot(rcce_g.ue, call), inbuf + off, n);
    RCCE_barrier(comm);
    if (reader) {
      rcce_mpb_read(outbuf + off, piece_slot(comm->member[0], call), n);
      for (int r = 1; r < comm->size; r++) {
        const volatile unsigned char *in = piece_slot(comm->member[r], call);
        combine(outbuf + off, (const void *)in, n / ts, type, op);
        timing_mpb_copy(in, n, 0);
      }
    }
    if (call < 0) RCCE_barrier(comm);
  }
  return RCCE_SUCCESS;
}

int RCCE_reduce(char *inbuf, char *outbuf, int num, int type, int op, int root, RCCE_COMM comm) {
  TIMING_SCOPE();
  return reduce_general(inbuf, outbuf, num, type, op, root, 0, &comm, "RCCE_reduce");
}

int RCCE_allreduce(char *inbuf, char *outbuf, int num, int type, int op, RCCE_COMM comm) {
  TIMING_SCOPE();
  return reduce_general(inbuf, outbuf, num, type, op, 0, 1, &comm, "RCCE_allreduce");
}

int RCCE_bcast(char *buf, size_t num, int root, RCCE_COMM comm) {
  TIMING_SCOPE();
  int rc = check(&comm, root, "RCCE_bcast");
  if (rc == RCCE_SUCCESS) /* the root's buffer is read, the others' written */
    rc = rcce_check_buffer(buf, num, comm.my_rank == root ? RCCE_ERROR_SOURCE : RCCE_ERROR_TARGET, "RCCE_bcast",
                           "buffer");
  /* RCCE 1.0.13 broadcasts with RCCE_send/RCCE_recv, which return at once for 0 bytes. */
  if (rc != RCCE_SUCCESS || num == 0) return rc;
  int root_ue = comm.member[root];
  if (num > RCCE_chunk) {
    if (comm.my_rank != root) return RCCE_recv(buf, num, root_ue);
    for (int r = 0; r < comm.size && rc == RCCE_SUCCESS; r++)
      if (r != root) rc = RCCE_send(buf, num, comm.member[r]);
    return rc;
  }
  if (comm.my_rank == root) rcce_mpb_write(RCCE_buff_ptr, buf, num);
  RCCE_barrier(&comm);
  if (comm.my_rank != root) rcce_mpb_read(buf, piece_slot(root_ue, -1), num);
  RCCE_barrier(&comm);
  return RCCE_SUCCESS;
}

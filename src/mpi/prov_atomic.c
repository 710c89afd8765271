/* Atomics (fi_atomic(3)): the calls, their validity queries, and the
 * arithmetic the target's progress applies (prov_rma_target.c).  Offered,
 * as MPI's accumulate operations need them (MPI-3.1 11.3.4):
 *  - integers (8 to 64 bits, signed and unsigned): every operation;
 *  - float, double, long double: MIN, MAX, SUM, PROD, READ, WRITE and the
 *    ordered compare-and-swaps (no logical or bitwise operations);
 *  - their complex types: SUM, PROD, READ, WRITE, CSWAP, CSWAP_NE.
 * Every call class takes every operation of its datatype.  fi_atomic(3)
 * names the usual ones per class (fi_atomic MIN..BXOR and ATOMIC_WRITE,
 * fi_fetch_atomic those and ATOMIC_READ, fi_compare_atomic CSWAP..MSWAP);
 * the others mean here: fi_atomic with ATOMIC_READ leaves the target as it
 * is; fi_atomic and fi_fetch_atomic carry no compare values, so their
 * CSWAP..MSWAP compare with zero; fi_compare_atomic's compare values count
 * only for CSWAP..MSWAP.  MPICH 5.0.2 needs the wider classes: it uses the
 * provider's atomics for a window only when the validity queries accept
 * (fi_atomic, ATOMIC_READ), (fi_atomic and fi_fetch_atomic, CSWAP, CSWAP_NE,
 * CSWAP_LT), (fi_fetch_atomic, CSWAP_LE) and (fi_compare_atomic, MIN) --
 * found by bisecting the queries' answers (docs/mpi-provider.md, "One-sided
 * operations").  Other combinations (128-bit integers, libfabric 2's small
 * floats) give -FI_EOPNOTSUPP, at the call and in the queries. */
#include <complex.h>
#include <string.h>

#include "prov_rma.h"

#define EP(e) ((struct prov_ep *)(e))

/* ---- arithmetic ---- */
/* One element: o the old value, v the operand, c the compare value, n the new value. */
#define CASES_COMMON                  \
  case FI_ATOMIC_READ: break;         \
  case FI_ATOMIC_WRITE: n = v; break; \
  case FI_CSWAP:                      \
    if (c == o) n = v;                \
    break;                            \
  case FI_CSWAP_NE:                   \
    if (c != o) n = v;                \
    break;
#define CASES_ORDERED                    \
  case FI_MIN: n = v < o ? v : o; break; \
  case FI_MAX: n = v > o ? v : o; break; \
  case FI_CSWAP_LE:                      \
    if (c <= o) n = v;                   \
    break;                               \
  case FI_CSWAP_LT:                      \
    if (c < o) n = v;                    \
    break;                               \
  case FI_CSWAP_GE:                      \
    if (c >= o) n = v;                   \
    break;                               \
  case FI_CSWAP_GT:                      \
    if (c > o) n = v;                    \
    break;
#define CASES_BITS                   \
  case FI_LOR: n = o || v; break;    \
  case FI_LAND: n = o && v; break;   \
  case FI_LXOR: n = !o != !v; break; \
  case FI_BOR: n = o | v; break;     \
  case FI_BAND: n = o & v; break;    \
  case FI_BXOR: n = o ^ v; break;    \
  case FI_MSWAP: n = (v & c) | (o & ~c); break;

/* Integers wrap around as MPI_Accumulate's sums do: computed in uint64_t
 * (signed overflow is undefined in C; the conversion back to the element's
 * type keeps the low bits, as GCC and Clang define it). */
#define CASES_WRAPPING_ARITH                         \
  case FI_SUM: n = (uint64_t)o + (uint64_t)v; break; \
  case FI_PROD:                                      \
    n = (uint64_t)o * (uint64_t)v;                   \
    break;
#define CASES_ARITH              \
  case FI_SUM: n = o + v; break; \
  case FI_PROD:                  \
    n = o * v;                   \
    break;

#define CASES_INT CASES_WRAPPING_ARITH CASES_COMMON CASES_ORDERED CASES_BITS
#define CASES_REAL CASES_ARITH CASES_COMMON CASES_ORDERED
#define CASES_COMPLEX CASES_ARITH CASES_COMMON

/* The operations each class of datatype offers (bit i: enum fi_op i). */
#define BIT(op) (1u << (op))
#define OPS_COMMON \
  (BIT(FI_SUM) | BIT(FI_PROD) | BIT(FI_ATOMIC_READ) | BIT(FI_ATOMIC_WRITE) | BIT(FI_CSWAP) | BIT(FI_CSWAP_NE))
#define OPS_ORDERED \
  (BIT(FI_MIN) | BIT(FI_MAX) | BIT(FI_CSWAP_LE) | BIT(FI_CSWAP_LT) | BIT(FI_CSWAP_GE) | BIT(FI_CSWAP_GT))
#define OPS_BITS (BIT(FI_LOR) | BIT(FI_LAND) | BIT(FI_LXOR) | BIT(FI_BOR) | BIT(FI_BAND) | BIT(FI_BXOR) | BIT(FI_MSWAP))
#define OPS_INT (OPS_COMMON | OPS_ORDERED | OPS_BITS)
#define OPS_REAL (OPS_COMMON | OPS_ORDERED)
#define OPS_COMPLEX OPS_COMMON

/* X(libfabric datatype, C type, class) */
#define DATATYPES(X)                            \
  X(FI_INT8, int8_t, INT)                       \
  X(FI_UINT8, uint8_t, INT)                     \
  X(FI_INT16, int16_t, INT)                     \
  X(FI_UINT16, uint16_t, INT)                   \
  X(FI_INT32, int32_t, INT)                     \
  X(FI_UINT32, uint32_t, INT)                   \
  X(FI_INT64, int64_t, INT)                     \
  X(FI_UINT64, uint64_t, INT)                   \
  X(FI_FLOAT, float, REAL)                      \
  X(FI_DOUBLE, double, REAL)                    \
  X(FI_LONG_DOUBLE, long double, REAL)          \
  X(FI_FLOAT_COMPLEX, float complex, COMPLEX)   \
  X(FI_DOUBLE_COMPLEX, double complex, COMPLEX) \
  X(FI_LONG_DOUBLE_COMPLEX, long double complex, COMPLEX)

/* apply_FI_xxx: count elements, loaded and stored with memcpy (the target
 * address need not be aligned); ATOMIC_READ stores nothing (its target may
 * be registered for remote reads only). */
#define DEFINE_APPLY(dt, T, class)                                                            \
  static void apply_##dt(enum fi_op op, unsigned char *target, const unsigned char *operand,  \
                         const unsigned char *compare, unsigned char *result, size_t count) { \
    for (size_t i = 0; i < count; i++) {                                                      \
      T o, v = 0, c = 0, n;                                                                   \
      memcpy(&o, target + i * sizeof(T), sizeof(T));                                          \
      if (operand) memcpy(&v, operand + i * sizeof(T), sizeof(T));                            \
      if (compare) memcpy(&c, compare + i * sizeof(T), sizeof(T));                            \
      n = o;                                                                                  \
      switch (op) { CASES_##class default : break; }                                          \
      if (result) memcpy(result + i * sizeof(T), &o, sizeof(T));                              \
      if (op != FI_ATOMIC_READ) memcpy(target + i * sizeof(T), &n, sizeof(T));                \
    }                                                                                         \
  }
DATATYPES(DEFINE_APPLY)

size_t prov_atomic_size(enum fi_datatype datatype) {
#define SIZE_CASE(dt, T, class) \
  case dt: return sizeof(T);
  switch ((int)datatype) {
    DATATYPES(SIZE_CASE)
    default: return 0;
  }
}

static unsigned ops_of(enum fi_datatype datatype) {
#define OPS_CASE(dt, T, class) \
  case dt: return OPS_##class;
  switch ((int)datatype) {
    DATATYPES(OPS_CASE)
    default: return 0;
  }
}

int prov_atomic_valid(enum fi_op op, enum fi_datatype datatype) {
  if ((unsigned)op >= 32) return 0;
  return (ops_of(datatype) & BIT(op)) != 0;
}

void prov_atomic_apply(enum fi_op op, enum fi_datatype datatype, void *target, const void *operand, const void *compare,
                       void *result, size_t count) {
#define APPLY_CASE(dt, T, class) \
  case dt: apply_##dt(op, target, operand, compare, result, count); break;
  switch ((int)datatype) {
    DATATYPES(APPLY_CASE)
    default: break;
  }
}

/* ---- validity queries ---- */
/* Elements per call: as many as the largest message holds. */
static int valid(enum fi_datatype datatype, enum fi_op op, size_t *count) {
  if (!prov_atomic_valid(op, datatype)) return -FI_EOPNOTSUPP;
  *count = PROV_MAX_MSG_SIZE / prov_atomic_size(datatype);
  return 0;
}

/* The same answer for every class (flags FI_FETCH_ATOMIC, FI_COMPARE_ATOMIC or neither). */
int prov_atomic_query(struct fid_domain *d, enum fi_datatype datatype, enum fi_op op, struct fi_atomic_attr *attr,
                      uint64_t flags) {
  size_t count;
  int r = valid(datatype, op, &count);
  if (r) return r;
  attr->size = prov_atomic_size(datatype);
  attr->count = count;
  return 0;
}

/* fi_atomicvalid, fi_fetch_atomicvalid and fi_compare_atomicvalid: one answer. */
static int classvalid(struct fid_ep *e, enum fi_datatype dt, enum fi_op op, size_t *count) {
  return valid(dt, op, count);
}

/* ---- the calls: each a translation into one prov_rma_post ---- */
/* Element iovs (fi_ioc) as byte iovs: 0 or -FI_EINVAL (too many, or too large). */
static int ioc_bytes(const struct fi_ioc *ioc, size_t count, size_t size, struct iovec *out) {
  if (count > PROV_IOV_LIMIT) return -FI_EINVAL;
  for (size_t i = 0; i < count; i++) {
    if (ioc[i].count > PROV_MAX_MSG_SIZE / size) return -FI_EINVAL; /* count * size must not wrap */
    out[i] = (struct iovec){ioc[i].addr, ioc[i].count * size};
  }
  return 0;
}

/* One atomic call in libfabric's terms: msg (operands, target), compare and result iovs. */
static ssize_t atomic_post(struct fid_ep *e, enum prov_atomic_kind kind, const struct fi_msg_atomic *m,
                           const struct fi_ioc *comparev, size_t compare_count, const struct fi_ioc *resultv,
                           size_t result_count, uint64_t flags, int inject_call) {
  if (!prov_atomic_valid(m->op, m->datatype)) return -FI_EOPNOTSUPP;
  size_t size = prov_atomic_size(m->datatype);
  struct iovec local[PROV_IOV_LIMIT], compare[PROV_IOV_LIMIT], result[PROV_IOV_LIMIT];
  struct fi_rma_iov remote[PROV_IOV_LIMIT];
  if (m->rma_iov_count > PROV_IOV_LIMIT || ioc_bytes(m->msg_iov, m->iov_count, size, local) ||
      ioc_bytes(comparev, compare_count, size, compare) || ioc_bytes(resultv, result_count, size, result))
    return -FI_EINVAL;
  for (size_t i = 0; i < m->rma_iov_count; i++) {
    if (m->rma_iov[i].count > PROV_MAX_MSG_SIZE / size) return -FI_EMSGSIZE;
    remote[i] = (struct fi_rma_iov){m->rma_iov[i].addr, m->rma_iov[i].count * size, m->rma_iov[i].key};
  }
  struct prov_rma_request r = {.op = PROV_OP_ATOMIC,
                               .kind = kind,
                               .atomic_op = m->op,
                               .datatype = m->datatype,
                               .local = local,
                               .local_count = m->iov_count,
                               .compare = compare,
                               .compare_count = compare_count,
                               .result = result,
                               .result_count = result_count,
                               .remote = remote,
                               .remote_count = m->rma_iov_count,
                               .dest = m->addr,
                               .ctx = m->context,
                               .flags = flags,
                               .inject_call = inject_call};
  return prov_rma_post(EP(e), &r);
}

/* The fi_msg_atomic of a call naming one target (addr, key) with `count` elements. */
#define MSG(iov_, iov_count_, dest_, rma_, dt_, op_, ctx_) \
  (&(struct fi_msg_atomic){.msg_iov = (iov_),              \
                           .iov_count = (iov_count_),      \
                           .addr = (dest_),                \
                           .rma_iov = (rma_),              \
                           .rma_iov_count = 1,             \
                           .datatype = (dt_),              \
                           .op = (op_),                    \
                           .context = (ctx_)})
#define ONE_IOC(buf, count) (&(struct fi_ioc){(void *)(buf), (count)})
#define ONE_RMA_IOC(addr, count, key) (&(struct fi_rma_ioc){(addr), (count), (key)})

static size_t ioc_count(const struct fi_ioc *ioc, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n && i < PROV_IOV_LIMIT; i++) c += ioc[i].count;
  return c;
}

static ssize_t at_write(struct fid_ep *e, const void *buf, size_t count, void *desc, fi_addr_t dest, uint64_t addr,
                        uint64_t key, enum fi_datatype dt, enum fi_op op, void *ctx) {
  return atomic_post(e, PROV_ATOMIC_PLAIN,
                     MSG(ONE_IOC(buf, count), 1, dest, ONE_RMA_IOC(addr, count, key), dt, op, ctx), NULL, 0, NULL, 0,
                     EP(e)->tx_op_flags, 0);
}
static ssize_t at_writev(struct fid_ep *e, const struct fi_ioc *iov, void **desc, size_t count, fi_addr_t dest,
                         uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op, void *ctx) {
  return atomic_post(e, PROV_ATOMIC_PLAIN,
                     MSG(iov, count, dest, ONE_RMA_IOC(addr, ioc_count(iov, count), key), dt, op, ctx), NULL, 0, NULL,
                     0, EP(e)->tx_op_flags, 0);
}
static ssize_t at_writemsg(struct fid_ep *e, const struct fi_msg_atomic *m, uint64_t flags) {
  return atomic_post(e, PROV_ATOMIC_PLAIN, m, NULL, 0, NULL, 0, flags, 0);
}
static ssize_t at_inject(struct fid_ep *e, const void *buf, size_t count, fi_addr_t dest, uint64_t addr, uint64_t key,
                         enum fi_datatype dt, enum fi_op op) {
  return atomic_post(e, PROV_ATOMIC_PLAIN,
                     MSG(ONE_IOC(buf, count), 1, dest, ONE_RMA_IOC(addr, count, key), dt, op, NULL), NULL, 0, NULL, 0,
                     FI_INJECT, 1);
}
static ssize_t at_readwrite(struct fid_ep *e, const void *buf, size_t count, void *desc, void *result,
                            void *result_desc, fi_addr_t dest, uint64_t addr, uint64_t key, enum fi_datatype dt,
                            enum fi_op op, void *ctx) {
  /* FI_ATOMIC_READ sends no operand (buf is ignored, fi_atomic(3)). */
  return atomic_post(
      e, PROV_ATOMIC_FETCH,
      MSG(ONE_IOC(buf, count), op == FI_ATOMIC_READ ? 0 : 1, dest, ONE_RMA_IOC(addr, count, key), dt, op, ctx), NULL, 0,
      ONE_IOC(result, count), 1, EP(e)->tx_op_flags, 0);
}
static ssize_t at_readwritev(struct fid_ep *e, const struct fi_ioc *iov, void **desc, size_t count,
                             struct fi_ioc *resultv, void **result_desc, size_t result_count, fi_addr_t dest,
                             uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op, void *ctx) {
  return atomic_post(e, PROV_ATOMIC_FETCH,
                     MSG(iov, op == FI_ATOMIC_READ ? 0 : count, dest,
                         ONE_RMA_IOC(addr, ioc_count(resultv, result_count), key), dt, op, ctx),
                     NULL, 0, resultv, result_count, EP(e)->tx_op_flags, 0);
}
static ssize_t at_readwritemsg(struct fid_ep *e, const struct fi_msg_atomic *m, struct fi_ioc *resultv,
                               void **result_desc, size_t result_count, uint64_t flags) {
  struct fi_msg_atomic copy = *m;
  if (m->op == FI_ATOMIC_READ) copy.iov_count = 0;
  return atomic_post(e, PROV_ATOMIC_FETCH, &copy, NULL, 0, resultv, result_count, flags, 0);
}
static ssize_t at_compwrite(struct fid_ep *e, const void *buf, size_t count, void *desc, const void *compare,
                            void *compare_desc, void *result, void *result_desc, fi_addr_t dest, uint64_t addr,
                            uint64_t key, enum fi_datatype dt, enum fi_op op, void *ctx) {
  return atomic_post(e, PROV_ATOMIC_COMPARE,
                     MSG(ONE_IOC(buf, count), 1, dest, ONE_RMA_IOC(addr, count, key), dt, op, ctx),
                     ONE_IOC(compare, count), 1, ONE_IOC(result, count), 1, EP(e)->tx_op_flags, 0);
}
static ssize_t at_compwritev(struct fid_ep *e, const struct fi_ioc *iov, void **desc, size_t count,
                             const struct fi_ioc *comparev, void **compare_desc, size_t compare_count,
                             struct fi_ioc *resultv, void **result_desc, size_t result_count, fi_addr_t dest,
                             uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op, void *ctx) {
  return atomic_post(e, PROV_ATOMIC_COMPARE,
                     MSG(iov, count, dest, ONE_RMA_IOC(addr, ioc_count(iov, count), key), dt, op, ctx), comparev,
                     compare_count, resultv, result_count, EP(e)->tx_op_flags, 0);
}
static ssize_t at_compwritemsg(struct fid_ep *e, const struct fi_msg_atomic *m, const struct fi_ioc *comparev,
                               void **compare_desc, size_t compare_count, struct fi_ioc *resultv, void **result_desc,
                               size_t result_count, uint64_t flags) {
  return atomic_post(e, PROV_ATOMIC_COMPARE, m, comparev, compare_count, resultv, result_count, flags, 0);
}

struct fi_ops_atomic prov_atomic_ops = {.size = sizeof(struct fi_ops_atomic),
                                        .write = at_write,
                                        .writev = at_writev,
                                        .writemsg = at_writemsg,
                                        .inject = at_inject,
                                        .readwrite = at_readwrite,
                                        .readwritev = at_readwritev,
                                        .readwritemsg = at_readwritemsg,
                                        .compwrite = at_compwrite,
                                        .compwritev = at_compwritev,
                                        .compwritemsg = at_compwritemsg,
                                        .writevalid = classvalid,
                                        .readwritevalid = classvalid,
                                        .compwritevalid = classvalid};

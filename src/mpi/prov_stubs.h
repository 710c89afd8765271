/* The operations the openscc provider does not offer.  libfabric's own
 * fi_no_* helpers live in its internal ofi_util sources, which are not
 * installed, so an external provider carries its own: one list (X-macro),
 * declared here and defined once in prov_stubs.c, each returning -FI_ENOSYS. */
#ifndef OPENSCC_MPI_PROV_STUBS_H
#define OPENSCC_MPI_PROV_STUBS_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

/* X(return type, name, parameter list) */
#define PROV_STUB_LIST(X)                                                                                         \
  X(int, prov_no_bind, (struct fid * f, struct fid * b, uint64_t flags))                                          \
  X(int, prov_no_control, (struct fid * f, int cmd, void *arg))                                                   \
  X(int, prov_no_ops_open, (struct fid * f, const char *name, uint64_t flags, void **ops, void *ctx))             \
  X(int, prov_no_tostr, (const struct fid *f, char *buf, size_t len))                                             \
  X(int, prov_no_ops_set, (struct fid * f, const char *name, uint64_t flags, void *ops, void *ctx))               \
  X(ssize_t, prov_no_cq_sread, (struct fid_cq * cq, void *buf, size_t n, const void *cond, int timeout))          \
  X(ssize_t, prov_no_cq_sreadfrom,                                                                                \
    (struct fid_cq * cq, void *buf, size_t n, fi_addr_t *src, const void *cond, int timeout))                     \
  X(int, prov_no_cq_signal, (struct fid_cq * cq))                                                                 \
  X(int, prov_no_av_insertsvc,                                                                                    \
    (struct fid_av * av, const char *node, const char *svc, fi_addr_t *addr, uint64_t flags, void *ctx))          \
  X(int, prov_no_av_insertsym,                                                                                    \
    (struct fid_av * av, const char *node, size_t nodecnt, const char *svc, size_t svccnt, fi_addr_t *addr,       \
     uint64_t flags, void *ctx))                                                                                  \
  X(int, prov_no_av_set, (struct fid_av * av, struct fi_av_set_attr * attr, struct fid_av_set * *set, void *ctx)) \
  X(int, prov_no_setname, (fid_t f, void *addr, size_t len))                                                      \
  X(int, prov_no_getpeer, (struct fid_ep * ep, void *addr, size_t *len))                                          \
  X(int, prov_no_connect, (struct fid_ep * ep, const void *addr, const void *param, size_t len))                  \
  X(int, prov_no_listen, (struct fid_pep * pep))                                                                  \
  X(int, prov_no_accept, (struct fid_ep * ep, const void *param, size_t len))                                     \
  X(int, prov_no_reject, (struct fid_pep * pep, fid_t handle, const void *param, size_t len))                     \
  X(int, prov_no_shutdown, (struct fid_ep * ep, uint64_t flags))                                                  \
  X(int, prov_no_join, (struct fid_ep * ep, const void *addr, uint64_t flags, struct fid_mc **mc, void *ctx))     \
  X(int, prov_no_tx_ctx, (struct fid_ep * sep, int index, struct fi_tx_attr *attr, struct fid_ep **ep, void *c))  \
  X(int, prov_no_rx_ctx, (struct fid_ep * sep, int index, struct fi_rx_attr *attr, struct fid_ep **ep, void *c))  \
  X(ssize_t, prov_no_size_left, (struct fid_ep * ep))                                                             \
  X(int, prov_no_scalable_ep, (struct fid_domain * d, struct fi_info * info, struct fid_ep * *sep, void *ctx))    \
  X(int, prov_no_poll_open, (struct fid_domain * d, struct fi_poll_attr * attr, struct fid_poll * *poll))         \
  X(int, prov_no_stx_ctx, (struct fid_domain * d, struct fi_tx_attr * attr, struct fid_stx * *stx, void *ctx))    \
  X(int, prov_no_srx_ctx, (struct fid_domain * d, struct fi_rx_attr * attr, struct fid_ep * *rx, void *ctx))      \
  X(int, prov_no_query_collective,                                                                                \
    (struct fid_domain * d, enum fi_collective_op op, struct fi_collective_attr * attr, uint64_t flags))          \
  X(int, prov_no_passive_ep, (struct fid_fabric * f, struct fi_info * info, struct fid_pep * *pep, void *ctx))    \
  X(int, prov_no_eq_open, (struct fid_fabric * f, struct fi_eq_attr * attr, struct fid_eq * *eq, void *ctx))      \
  X(int, prov_no_wait_open, (struct fid_fabric * f, struct fi_wait_attr * attr, struct fid_wait * *w))            \
  X(int, prov_no_trywait, (struct fid_fabric * f, struct fid * *fids, int count))                                 \
  PROV_STUB_LIST_V2(X)

/* libfabric 2.x added authorization keys and user ids to the AV operations. */
#if FI_MAJOR_VERSION >= 2
#define PROV_STUB_LIST_V2(X)                                                                            \
  X(int, prov_no_av_insert_auth_key,                                                                    \
    (struct fid_av * av, const void *key, size_t key_size, fi_addr_t *addr, uint64_t flags))            \
  X(int, prov_no_av_lookup_auth_key, (struct fid_av * av, fi_addr_t addr, void *key, size_t *key_size)) \
  X(int, prov_no_av_set_user_id, (struct fid_av * av, fi_addr_t addr, fi_addr_t user_id, uint64_t flags))
#else
#define PROV_STUB_LIST_V2(X)
#endif

#define PROV_STUB_DECLARE(ret, name, params) ret name params;
PROV_STUB_LIST(PROV_STUB_DECLARE)
#undef PROV_STUB_DECLARE

/* The fid operations of an object that only closes. */
#define PROV_FID_OPS(close_fn)                                                                            \
  {                                                                                                       \
    .size = sizeof(struct fi_ops), .close = (close_fn), .bind = prov_no_bind, .control = prov_no_control, \
    .ops_open = prov_no_ops_open, .tostr = prov_no_tostr, .ops_set = prov_no_ops_set                      \
  }

#endif

/* The endpoint's data transfer calls (fi_msg(3), fi_tagged(3)), each a thin
 * translation into prov_send / prov_recv.  Calls without flags use the
 * endpoint's operation flags (fi_endpoint(3), FI_SETOPSFLAG). */
#include "provider.h"

#define EP(e) ((struct prov_ep *)(e))
#define ONE_IOV(buf, len) (&(struct iovec){(void *)(buf), (len)})

/* ---- untagged ---- */
static ssize_t msg_recv(struct fid_ep *e, void *buf, size_t len, void *desc, fi_addr_t src, void *ctx) {
  struct prov_recv_args a = {.iov = ONE_IOV(buf, len), .count = 1, .src = src, .flags = EP(e)->rx_op_flags, .ctx = ctx};
  return prov_recv(EP(e), &a);
}
static ssize_t msg_recvv(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t src,
                         void *ctx) {
  struct prov_recv_args a = {.iov = iov, .count = count, .src = src, .flags = EP(e)->rx_op_flags, .ctx = ctx};
  return prov_recv(EP(e), &a);
}
static ssize_t msg_recvmsg(struct fid_ep *e, const struct fi_msg *m, uint64_t flags) {
  struct prov_recv_args a = {
      .iov = m->msg_iov, .count = m->iov_count, .src = m->addr, .flags = flags, .ctx = m->context};
  return prov_recv(EP(e), &a);
}
static ssize_t msg_send(struct fid_ep *e, const void *buf, size_t len, void *desc, fi_addr_t dest, void *ctx) {
  struct prov_send_args a = {
      .iov = ONE_IOV(buf, len), .count = 1, .dest = dest, .flags = EP(e)->tx_op_flags, .ctx = ctx};
  return prov_send(EP(e), &a);
}
static ssize_t msg_sendv(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t dest,
                         void *ctx) {
  struct prov_send_args a = {.iov = iov, .count = count, .dest = dest, .flags = EP(e)->tx_op_flags, .ctx = ctx};
  return prov_send(EP(e), &a);
}
static ssize_t msg_sendmsg(struct fid_ep *e, const struct fi_msg *m, uint64_t flags) {
  struct prov_send_args a = {
      .iov = m->msg_iov, .count = m->iov_count, .dest = m->addr, .data = m->data, .flags = flags, .ctx = m->context};
  return prov_send(EP(e), &a);
}
static ssize_t msg_inject(struct fid_ep *e, const void *buf, size_t len, fi_addr_t dest) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len), .count = 1, .dest = dest, .flags = FI_INJECT, .inject_call = 1};
  return prov_send(EP(e), &a);
}
static ssize_t msg_senddata(struct fid_ep *e, const void *buf, size_t len, void *desc, uint64_t data, fi_addr_t dest,
                            void *ctx) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .data = data,
                             .flags = EP(e)->tx_op_flags | FI_REMOTE_CQ_DATA,
                             .ctx = ctx};
  return prov_send(EP(e), &a);
}
static ssize_t msg_injectdata(struct fid_ep *e, const void *buf, size_t len, uint64_t data, fi_addr_t dest) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .data = data,
                             .flags = FI_INJECT | FI_REMOTE_CQ_DATA,
                             .inject_call = 1};
  return prov_send(EP(e), &a);
}

struct fi_ops_msg prov_msg_ops = {.size = sizeof(struct fi_ops_msg),
                                  .recv = msg_recv,
                                  .recvv = msg_recvv,
                                  .recvmsg = msg_recvmsg,
                                  .send = msg_send,
                                  .sendv = msg_sendv,
                                  .sendmsg = msg_sendmsg,
                                  .inject = msg_inject,
                                  .senddata = msg_senddata,
                                  .injectdata = msg_injectdata};

/* ---- tagged ---- */
/* Tagged receives never use multi-receive buffers. */
#define RX_TAGGED_FLAGS(e) (EP(e)->rx_op_flags & ~(uint64_t)FI_MULTI_RECV)

static ssize_t tag_recv(struct fid_ep *e, void *buf, size_t len, void *desc, fi_addr_t src, uint64_t tag,
                        uint64_t ignore, void *ctx) {
  struct prov_recv_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .src = src,
                             .tag = tag,
                             .ignore = ignore,
                             .flags = RX_TAGGED_FLAGS(e),
                             .ctx = ctx,
                             .tagged = 1};
  return prov_recv(EP(e), &a);
}
static ssize_t tag_recvv(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t src,
                         uint64_t tag, uint64_t ignore, void *ctx) {
  struct prov_recv_args a = {.iov = iov,
                             .count = count,
                             .src = src,
                             .tag = tag,
                             .ignore = ignore,
                             .flags = RX_TAGGED_FLAGS(e),
                             .ctx = ctx,
                             .tagged = 1};
  return prov_recv(EP(e), &a);
}
static ssize_t tag_recvmsg(struct fid_ep *e, const struct fi_msg_tagged *m, uint64_t flags) {
  struct prov_recv_args a = {.iov = m->msg_iov,
                             .count = m->iov_count,
                             .src = m->addr,
                             .tag = m->tag,
                             .ignore = m->ignore,
                             .flags = flags,
                             .ctx = m->context,
                             .tagged = 1};
  return prov_recv(EP(e), &a);
}
static ssize_t tag_send(struct fid_ep *e, const void *buf, size_t len, void *desc, fi_addr_t dest, uint64_t tag,
                        void *ctx) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .tag = tag,
                             .flags = EP(e)->tx_op_flags,
                             .ctx = ctx,
                             .tagged = 1};
  return prov_send(EP(e), &a);
}
static ssize_t tag_sendv(struct fid_ep *e, const struct iovec *iov, void **desc, size_t count, fi_addr_t dest,
                         uint64_t tag, void *ctx) {
  struct prov_send_args a = {
      .iov = iov, .count = count, .dest = dest, .tag = tag, .flags = EP(e)->tx_op_flags, .ctx = ctx, .tagged = 1};
  return prov_send(EP(e), &a);
}
static ssize_t tag_sendmsg(struct fid_ep *e, const struct fi_msg_tagged *m, uint64_t flags) {
  struct prov_send_args a = {.iov = m->msg_iov,
                             .count = m->iov_count,
                             .dest = m->addr,
                             .tag = m->tag,
                             .data = m->data,
                             .flags = flags,
                             .ctx = m->context,
                             .tagged = 1};
  return prov_send(EP(e), &a);
}
static ssize_t tag_inject(struct fid_ep *e, const void *buf, size_t len, fi_addr_t dest, uint64_t tag) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .tag = tag,
                             .flags = FI_INJECT,
                             .tagged = 1,
                             .inject_call = 1};
  return prov_send(EP(e), &a);
}
static ssize_t tag_senddata(struct fid_ep *e, const void *buf, size_t len, void *desc, uint64_t data, fi_addr_t dest,
                            uint64_t tag, void *ctx) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .tag = tag,
                             .data = data,
                             .flags = EP(e)->tx_op_flags | FI_REMOTE_CQ_DATA,
                             .ctx = ctx,
                             .tagged = 1};
  return prov_send(EP(e), &a);
}
static ssize_t tag_injectdata(struct fid_ep *e, const void *buf, size_t len, uint64_t data, fi_addr_t dest,
                              uint64_t tag) {
  struct prov_send_args a = {.iov = ONE_IOV(buf, len),
                             .count = 1,
                             .dest = dest,
                             .tag = tag,
                             .data = data,
                             .flags = FI_INJECT | FI_REMOTE_CQ_DATA,
                             .tagged = 1,
                             .inject_call = 1};
  return prov_send(EP(e), &a);
}

struct fi_ops_tagged prov_tagged_ops = {.size = sizeof(struct fi_ops_tagged),
                                        .recv = tag_recv,
                                        .recvv = tag_recvv,
                                        .recvmsg = tag_recvmsg,
                                        .send = tag_send,
                                        .sendv = tag_sendv,
                                        .sendmsg = tag_sendmsg,
                                        .inject = tag_inject,
                                        .senddata = tag_senddata,
                                        .injectdata = tag_injectdata};

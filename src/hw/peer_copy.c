/* Copies between UEs' processes (peer_copy.h). */
#define _GNU_SOURCE
#include "peer_copy.h"

#include <sys/prctl.h>

/* A position in an iov array. */
struct iov_cursor {
  const struct iovec *v;
  size_t n, i, off;
};

/* Up to max entries from the cursor on, into w; returns how many. */
static size_t iov_window(const struct iov_cursor *c, struct iovec *w, size_t max) {
  size_t k = 0, off = c->off;
  for (size_t i = c->i; i < c->n && k < max; i++, off = 0)
    if (c->v[i].iov_len > off) w[k++] = (struct iovec){(char *)c->v[i].iov_base + off, c->v[i].iov_len - off};
  return k;
}

static void iov_advance(struct iov_cursor *c, size_t bytes) {
  while (bytes > 0 && c->i < c->n) {
    size_t k = c->v[c->i].iov_len - c->off < bytes ? c->v[c->i].iov_len - c->off : bytes;
    c->off += k;
    bytes -= k;
    if (c->off == c->v[c->i].iov_len) c->i++, c->off = 0;
  }
}

static size_t iov_total(const struct iovec *v, size_t n) {
  size_t s = 0;
  for (size_t i = 0; i < n; i++) s += v[i].iov_len;
  return s;
}

int hw_peer_copyv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote,
                  int write) {
  enum { WINDOW = 64 }; /* entries per system call (the kernel takes up to IOV_MAX) */
  struct iov_cursor lc = {local, nlocal, 0, 0}, rc = {remote, nremote, 0, 0};
  size_t lt = iov_total(local, nlocal), rt = iov_total(remote, nremote), left = lt < rt ? lt : rt;
  while (left > 0) {
    struct iovec lw[WINDOW], rw[WINDOW];
    size_t nl = iov_window(&lc, lw, WINDOW), nr = iov_window(&rc, rw, WINDOW);
    /* A partial transfer stops at an entry the kernel could not copy (or at
     * the end of a window): go on from where it stopped. */
    ssize_t n = write ? process_vm_writev(pid, lw, nl, rw, nr, 0) : process_vm_readv(pid, lw, nl, rw, nr, 0);
    if (n <= 0) return -1;
    size_t moved = (size_t)n < left ? (size_t)n : left;
    iov_advance(&lc, moved);
    iov_advance(&rc, moved);
    left -= moved;
  }
  return 0;
}

void hw_allow_peer_copies(const struct hw_header *h) {
  if (h->set.single_copy && h->nue > 1) prctl(PR_SET_PTRACER, (unsigned long)h->launcher_pid, 0, 0, 0);
}

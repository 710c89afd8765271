#define _GNU_SOURCE
#include "single_copy.h"

#include <sys/uio.h>
#include <unistd.h>

enum { SC_CMA = 1, SC_CHUNKED = 2 };
enum { SC_PENDING = 0, SC_DONE = 1, SC_FAILED = 2 };

/* Lives in the sender's comm buffer; status is written by the receiver. */
struct sc_desc {
  uint32_t mode;
  int32_t pid;
  uint64_t addr;
  uint64_t size;
  uint32_t status;
};

int rcce_single_copy_wanted(size_t size, size_t chunk) {
  return rcce_g.job.hdr->single_copy && size > chunk && size >= RCCE_SINGLE_COPY_MIN &&
         chunk >= sizeof(struct sc_desc);
}

int rcce_single_copy_send(const char *priv, unsigned char *combuf, struct rcce_link *l, size_t size, int dest) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)combuf;
  d->mode = __atomic_load_n(&rcce_g.job.hdr->cma_broken, __ATOMIC_RELAXED) ? SC_CHUNKED : SC_CMA;
  d->pid = (int32_t)getpid();
  d->addr = (uint64_t)(uintptr_t)priv;
  d->size = size;
  d->status = SC_PENDING;
  rcce_link_send_step(l, dest);
  if (d->status == SC_FAILED) __atomic_store_n(&rcce_g.job.hdr->cma_broken, 1, __ATOMIC_RELAXED);
  return d->status == SC_DONE;
}

int rcce_single_copy_recv(char *priv, const unsigned char *src_combuf, struct rcce_link *l, size_t size, int src) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)src_combuf;
  rcce_link_recv_wait(l, src);
  uint32_t status = SC_PENDING; /* the sender chose chunks: they follow */
  if (d->mode == SC_CMA && d->size == size) {
    size_t done = 0;
    while (done < size) {
      struct iovec local = {priv + done, size - done};
      struct iovec remote = {(void *)(uintptr_t)(d->addr + done), size - done};
      ssize_t n = process_vm_readv((pid_t)d->pid, &local, 1, &remote, 1, 0);
      if (n <= 0) break;
      done += (size_t)n;
    }
    status = done == size ? SC_DONE : SC_FAILED;
  }
  d->status = status;
  rcce_link_recv_ack(l, src);
  return status == SC_DONE;
}

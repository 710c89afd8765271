#define _GNU_SOURCE
#include "single_copy.h"

#include <sys/uio.h>
#include <unistd.h>

enum { SC_CMA = 1, SC_CHUNKED = 2 };
enum { SC_PENDING = 0, SC_DONE = 1, SC_FAILED = 2 };

/* Written by the sender into its comm buffer (one line); status is written
 * back by the receiver before it sets the ready flag. */
struct sc_desc {
  uint32_t mode;
  int32_t pid;
  uint32_t status;
  uint32_t pad;
  uint64_t addr;
  uint64_t size;
};

int rcce_single_copy_wanted(size_t size, size_t chunk) {
  return rcce_g.job.hdr->single_copy && size > chunk && size >= RCCE_SINGLE_COPY_MIN &&
         chunk >= sizeof(struct sc_desc);
}

int rcce_single_copy_send(const char *priv, unsigned char *combuf, struct rcce_iflag ready, struct rcce_iflag sent,
                          size_t size, int dest) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)combuf;
  int broken = __atomic_load_n(&rcce_g.job.hdr->cma_broken, __ATOMIC_RELAXED);
  d->mode = broken ? SC_CHUNKED : SC_CMA;
  d->pid = (int32_t)getpid();
  d->status = SC_PENDING;
  d->addr = (uint64_t)(uintptr_t)priv;
  d->size = size;
  struct hw_wait_desc why = {.kind = HW_WAIT_SEND, .peer = dest};
  rcce_iflag_write(sent, RCCE_FLAG_SET, dest);
  rcce_iflag_wait(ready, RCCE_FLAG_SET, &why);
  rcce_iflag_write(ready, RCCE_FLAG_UNSET, rcce_g.ue);
  uint32_t status = __atomic_load_n(&d->status, __ATOMIC_ACQUIRE);
  if (status == SC_FAILED) __atomic_store_n(&rcce_g.job.hdr->cma_broken, 1, __ATOMIC_RELAXED);
  return d->mode == SC_CMA && status == SC_DONE;
}

int rcce_single_copy_recv(char *priv, const unsigned char *src_combuf, struct rcce_iflag ready,
                          struct rcce_iflag sent, size_t size, int src) {
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = src};
  rcce_iflag_wait(sent, RCCE_FLAG_SET, &why);
  rcce_iflag_write(sent, RCCE_FLAG_UNSET, rcce_g.ue);
  volatile struct sc_desc *d = (volatile struct sc_desc *)src_combuf;
  uint32_t status = SC_PENDING; /* the sender chose chunks: they follow */
  if (d->mode == SC_CMA && d->size == size) {
    status = SC_FAILED;
    size_t done = 0;
    while (done < size) {
      struct iovec local = {priv + done, size - done};
      struct iovec remote = {(void *)(uintptr_t)(d->addr + done), size - done};
      ssize_t n = process_vm_readv((pid_t)d->pid, &local, 1, &remote, 1, 0);
      if (n <= 0) break;
      done += (size_t)n;
    }
    if (done == size) status = SC_DONE;
  }
  __atomic_store_n(&d->status, status, __ATOMIC_RELEASE);
  rcce_iflag_write(ready, RCCE_FLAG_SET, src);
  return status == SC_DONE;
}

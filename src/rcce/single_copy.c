#define _GNU_SOURCE
#include "single_copy.h"

#include <sys/uio.h>
#include <unistd.h>

enum { SC_CMA = 1, SC_CHUNKED = 2 };
enum { SC_PENDING = 0, SC_DONE = 1, SC_FAILED = 2 };

/* Lives in the sender's comm buffer; the receiver fills in its half. */
struct sc_desc {
  uint32_t mode;
  int32_t sender_pid;
  uint64_t sender_addr;
  uint64_t size;
  uint32_t sender_status;
  int32_t receiver_pid;
  uint64_t receiver_addr; /* 0: the receiver declined (chunks follow) */
  uint32_t receiver_status;
};

int rcce_single_copy_wanted(size_t size, size_t chunk) {
  return rcce_g.job.hdr->single_copy && size > chunk && size >= RCCE_SINGLE_COPY_MIN &&
         chunk >= sizeof(struct sc_desc);
}

static size_t split_point(size_t size) {
  return size >= RCCE_SINGLE_COPY_SPLIT_MIN ? (size / 2) & ~(size_t)4095 : size;
}

/* Copy len bytes between this process and pid; returns SC_DONE or SC_FAILED. */
static uint32_t cross_copy(pid_t pid, char *local, uint64_t remote, size_t len, int write) {
  size_t done = 0;
  while (done < len) {
    struct iovec l = {local + done, len - done};
    struct iovec r = {(void *)(uintptr_t)(remote + done), len - done};
    ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n <= 0) return SC_FAILED;
    done += (size_t)n;
  }
  return SC_DONE;
}

int rcce_single_copy_send(const char *priv, unsigned char *combuf, struct rcce_link *l, size_t size, int dest) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)combuf;
  d->mode = __atomic_load_n(&rcce_g.job.hdr->cma_broken, __ATOMIC_RELAXED) ? SC_CHUNKED : SC_CMA;
  d->sender_pid = (int32_t)getpid();
  d->sender_addr = (uint64_t)(uintptr_t)priv;
  d->size = size;
  d->sender_status = SC_PENDING;
  d->receiver_addr = 0;
  d->receiver_status = SC_PENDING;
  rcce_link_send_step(l, dest); /* handshake 1: the receiver posts its address */
  if (d->mode != SC_CMA || d->receiver_addr == 0) return 0;
  size_t split = split_point(size);
  d->sender_status = split == size ? SC_DONE
                                   : cross_copy(d->receiver_pid, (char *)priv + split, d->receiver_addr + split,
                                                size - split, 1);
  rcce_link_send_step(l, dest); /* handshake 2: both parts done */
  int ok = d->sender_status == SC_DONE && d->receiver_status == SC_DONE;
  if (!ok) __atomic_store_n(&rcce_g.job.hdr->cma_broken, 1, __ATOMIC_RELAXED);
  return ok;
}

int rcce_single_copy_recv(char *priv, const unsigned char *src_combuf, struct rcce_link *l, size_t size, int src) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)src_combuf;
  rcce_link_recv_wait(l, src);
  if (d->mode != SC_CMA || d->size != size) {
    d->receiver_addr = 0;
    rcce_link_recv_ack(l, src);
    return 0;
  }
  d->receiver_pid = (int32_t)getpid();
  d->receiver_addr = (uint64_t)(uintptr_t)priv;
  rcce_link_recv_ack(l, src);
  d->receiver_status = cross_copy(d->sender_pid, priv, d->sender_addr, split_point(size), 0);
  rcce_link_recv_wait(l, src);
  int ok = d->sender_status == SC_DONE && d->receiver_status == SC_DONE;
  rcce_link_recv_ack(l, src);
  return ok;
}

#define _GNU_SOURCE
#include "single_copy.h"

#include <unistd.h>

#include "../hw/peer_copy.h"

enum { SC_CMA = 1, SC_CHUNKED = 2 };
enum { SC_PENDING = 0, SC_DONE = 1, SC_FAILED = 2 };
enum { SC_STEP_PUBLISH = 0, SC_STEP_ADDRESS, SC_STEP_COMPLETE };

/* Lives in the comm buffer the message would use (the sender's under
 * local put, the receiver's under remote put); the receiver fills in its
 * half.  The receiver's final status goes to the sender's hw_ue instead: under
 * remote put the receiver's buffer belongs to the next sender as soon as it
 * acknowledged the last step. */
struct sc_desc {
  uint32_t mode;
  int32_t sender_pid;
  uint64_t sender_addr;
  uint64_t size;
  uint32_t sender_status;
  int32_t receiver_pid;
  uint64_t receiver_addr; /* 0: the receiver declined (chunks follow) */
};

int rcce_single_copy_wanted(size_t size, size_t chunk) {
  return rcce_g.job.hdr->set.single_copy && size > chunk && size >= RCCE_SINGLE_COPY_MIN &&
         chunk >= sizeof(struct sc_desc);
}

static size_t split_point(size_t size) {
  return size >= RCCE_SINGLE_COPY_SPLIT_MIN ? (size / 2) & ~(size_t)4095 : size;
}

/* Copy len bytes between this process and pid; returns SC_DONE or SC_FAILED. */
static uint32_t cross_copy(pid_t pid, char *local, uint64_t remote, size_t len, int write) {
  struct iovec l = {local, len}, r = {(void *)(uintptr_t)remote, len};
  return hw_peer_copyv(pid, &l, 1, &r, 1, write) == 0 ? SC_DONE : SC_FAILED;
}

static void announce(struct rcce_xfer *x) {
  x->wait_flag = x->link.ready;
  x->wait_value = rcce_link_announce(&x->link, x->peer, &x->msg, NULL);
}

/* Sender: publish the descriptor; on the first ack push the upper part; on
 * the second ack both parts are done. */
static int sender_poll(struct rcce_xfer *x, volatile struct sc_desc *d) {
  for (;;) {
    switch (x->sc_step) {
      case SC_STEP_PUBLISH:
        d->mode = __atomic_load_n(&rcce_g.shared->cma_broken, __ATOMIC_RELAXED) ? SC_CHUNKED : SC_CMA;
        d->sender_pid = (int32_t)getpid();
        d->sender_addr = (uint64_t)(uintptr_t)x->priv;
        d->size = x->size;
        d->sender_status = SC_PENDING;
        d->receiver_addr = 0;
        __atomic_store_n(&rcce_g.ue_shared[rcce_g.ue].sc_receiver_status, SC_PENDING, __ATOMIC_RELAXED);
        announce(x);
        x->sc_step = SC_STEP_ADDRESS;
        break;
      case SC_STEP_ADDRESS: {
        if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
        if (d->mode != SC_CMA || d->receiver_addr == 0) return -1;
        size_t split = split_point(x->size);
        x->sc_status = split == x->size
                           ? SC_DONE
                           : cross_copy(d->receiver_pid, x->priv + split, d->receiver_addr + split, x->size - split, 1);
        d->sender_status = x->sc_status;
        announce(x);
        x->sc_step = SC_STEP_COMPLETE;
        break;
      }
      default: {
        if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
        uint32_t theirs = __atomic_load_n(&rcce_g.ue_shared[rcce_g.ue].sc_receiver_status, __ATOMIC_ACQUIRE);
        int ok = x->sc_status == SC_DONE && theirs == SC_DONE;
        if (!ok) __atomic_store_n(&rcce_g.shared->cma_broken, 1, __ATOMIC_RELAXED);
        return ok ? 1 : -1;
      }
    }
  }
}

/* Receiver: on the first step post the address, ack, pull the lower part; on
 * the second step (the sender's part is done) ack. */
static int receiver_poll(struct rcce_xfer *x, volatile struct sc_desc *d) {
  for (;;) {
    x->wait_flag = x->link.sent;
    x->wait_value = rcce_link_next_value(&x->link);
    if (!rcce_link_arrived(&x->link)) return 0;
    if (x->sc_step != SC_STEP_PUBLISH) {
      int ok = d->sender_status == SC_DONE && x->sc_status == SC_DONE;
      __atomic_store_n(&rcce_g.ue_shared[x->peer].sc_receiver_status, x->sc_status, __ATOMIC_RELEASE);
      rcce_link_recv_ack(&x->link, x->peer);
      return ok ? 1 : -1;
    }
    if (d->mode != SC_CMA || d->size != x->size) {
      d->receiver_addr = 0;
      rcce_link_recv_ack(&x->link, x->peer);
      return -1;
    }
    d->receiver_pid = (int32_t)getpid();
    d->receiver_addr = (uint64_t)(uintptr_t)x->priv;
    rcce_link_recv_ack(&x->link, x->peer);
    x->sc_status = cross_copy(d->sender_pid, x->priv, d->sender_addr, split_point(x->size), 0);
    /* Model mode: the chunks the SCC would have moved (this copy makes two handshakes). */
    if (timing_enabled)
      timing_bulk_transfer(hw_ue(&rcce_g.job, x->peer)->core,
                           hw_ue(&rcce_g.job, rcce_g.rplg ? rcce_g.ue : x->peer)->core, x->size, x->chunk, 2);
    x->sc_step = SC_STEP_COMPLETE;
  }
}

int rcce_single_copy_poll(struct rcce_xfer *x) {
  volatile struct sc_desc *d = (volatile struct sc_desc *)x->combuf;
  return x->sending ? sender_poll(x, d) : receiver_poll(x, d);
}

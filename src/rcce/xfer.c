/*
 * Resumable transfers and their queues (rcce_internal.h, struct rcce_xfer):
 * the same local-put/remote-get protocol as the blocking path in
 * sendrecv.c, cut into steps that never block, for non-blocking requests.
 * A UE has one send buffer, so its outgoing transfers form one FIFO; incoming
 * ones form a FIFO per source.  Only queue heads move.  Waiting moves every
 * queue (a request may need the peer to see one of ours first) and sleeps on
 * the doorbell: every flag a queue head waits for lies in this UE's MPB.
 */
#include <string.h>

#include "rcce_internal.h"
#include "single_copy.h"

enum {
  XFER_NEXT_CHUNK = 0, /* put (sender) or wait for (receiver) the next chunk */
  XFER_CHUNK_ACK,      /* sender: chunk announced, waiting for its acknowledgement */
  XFER_SINGLE_COPY,    /* single_copy.c owns the steps */
  XFER_DONE,
};

void rcce_xfer_start(struct rcce_xfer *x, char *priv, size_t size, unsigned char *combuf, size_t chunk,
                     const struct rcce_link *l, int peer, int sending) {
  memset(x, 0, sizeof *x);
  x->priv = priv;
  x->size = size;
  x->combuf = combuf;
  x->chunk = chunk;
  x->link = *l;
  x->peer = peer;
  x->sending = sending;
  x->step = rcce_single_copy_wanted(size, chunk) ? XFER_SINGLE_COPY : XFER_NEXT_CHUNK;
  rcce_count_message(sending, size, 1);
}

int rcce_xfer_done(const struct rcce_xfer *x) { return x->step == XFER_DONE; }

/* One chunk step; 1 when it made progress, 0 when stuck. */
static int chunk_step(struct rcce_xfer *x) {
  size_t n = x->size - x->done < x->chunk ? x->size - x->done : x->chunk;
  if (x->sending && x->step == XFER_NEXT_CHUNK) {
    memcpy(x->combuf, x->priv + x->done, n);
    x->pending = n;
    x->wait_flag = x->link.ready;
    x->wait_value = rcce_link_announce(&x->link, x->peer);
    x->step = XFER_CHUNK_ACK;
    return 1;
  }
  if (x->sending) { /* XFER_CHUNK_ACK */
    if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
    x->done += x->pending;
    x->step = XFER_NEXT_CHUNK;
    return 1;
  }
  x->wait_flag = x->link.sent;
  x->wait_value = rcce_link_next_value(&x->link);
  if (!rcce_link_arrived(&x->link)) return 0;
  memcpy(x->priv + x->done, x->combuf, n);
  rcce_link_recv_ack(&x->link, x->peer);
  x->done += n;
  return 1;
}

static int xfer_poll(struct rcce_xfer *x) {
  for (;;) {
    if (x->step == XFER_DONE) return 1;
    if (x->step == XFER_SINGLE_COPY) {
      int r = rcce_single_copy_poll(x);
      if (r == 0) return 0;
      x->step = r > 0 ? XFER_DONE : XFER_NEXT_CHUNK; /* r < 0: chunks, from the start */
      continue;
    }
    if (x->step == XFER_NEXT_CHUNK && x->done == x->size) {
      x->step = XFER_DONE;
      continue;
    }
    if (!chunk_step(x)) return 0;
  }
}

static struct rcce_xfer **queue_of(const struct rcce_xfer *x) {
  return x->sending ? &rcce_g.send_queue : &rcce_g.recv_queue[x->peer];
}

/* Move one queue: completed heads leave, the new head starts. */
static void progress_queue(struct rcce_xfer **q) {
  while (*q && xfer_poll(*q)) {
    (*q)->queued = 0;
    *q = (*q)->next;
    rcce_g.queued--;
  }
}

void rcce_xfer_progress(void) {
  if (rcce_g.extra_waiting) rcce_g.extra_progress();
  if (!rcce_g.queued) return;
  progress_queue(&rcce_g.send_queue);
  for (int src = 0; src < rcce_g.nue && rcce_g.queued; src++) progress_queue(&rcce_g.recv_queue[src]);
}

int rcce_xfer_submit(struct rcce_xfer *x) {
  struct rcce_xfer **q = queue_of(x);
  while (*q) q = &(*q)->next;
  x->next = NULL;
  x->queued = 1;
  *q = x;
  rcce_g.queued++;
  rcce_xfer_progress();
  return rcce_xfer_done(x);
}

static int head_can_move(const struct rcce_xfer *h) {
  return h && rcce_iflag_read(h->wait_flag, rcce_g.ue) == h->wait_value;
}

/* After rcce_xfer_progress every non-empty queue's head is stuck on a flag
 * of this UE's MPB; wake when any of them holds its value. */
static int any_head_can_move(void *unused) {
  (void)unused;
  if (head_can_move(rcce_g.send_queue)) return 1;
  if (rcce_g.extra_waiting && rcce_g.extra_can_move()) return 1;
  for (int src = 0; src < rcce_g.nue; src++)
    if (head_can_move(rcce_g.recv_queue[src])) return 1;
  return 0;
}

int rcce_xfer_can_move(void) { return any_head_can_move(NULL); }

static void sleep_until_movable(const struct rcce_xfer *x) {
  struct hw_wait_desc why = {.kind = x->sending ? HW_WAIT_SEND : HW_WAIT_RECV, .peer = x->peer};
  hw_wait_cond(&rcce_g.job, rcce_g.ue, any_head_can_move, NULL, &why);
}

void rcce_xfer_wait(struct rcce_xfer *x) {
  for (;;) {
    rcce_xfer_progress();
    if (rcce_xfer_done(x)) return;
    sleep_until_movable(x);
  }
}

void rcce_xfer_idle(void) {
  rcce_xfer_progress();
  if (!rcce_g.queued && !rcce_g.extra_waiting) return;
  /* Report the wait as one of the heads' (or as a receive from anyone). */
  const struct rcce_xfer *h = rcce_g.send_queue;
  for (int src = 0; !h && src < rcce_g.nue; src++) h = rcce_g.recv_queue[src];
  struct hw_wait_desc why = {.kind = h && h->sending ? HW_WAIT_SEND : HW_WAIT_RECV, .peer = h ? h->peer : -1};
  hw_wait_cond(&rcce_g.job, rcce_g.ue, any_head_can_move, NULL, &why);
}

void rcce_xfer_drain_sends(void) {
  while (rcce_g.send_queue) rcce_xfer_wait(rcce_g.send_queue);
}

void rcce_xfer_drain_recvs(int src) {
  while (rcce_g.recv_queue[src]) rcce_xfer_wait(rcce_g.recv_queue[src]);
}

int rcce_xfer_cancel(struct rcce_xfer *x) {
  struct rcce_xfer **q = queue_of(x);
  if (!x->queued || *q == x) return 0; /* finished, or the head: already under way */
  while (*q != x) q = &(*q)->next;
  *q = x->next;
  x->queued = 0;
  rcce_g.queued--;
  rcce_count_message(x->sending, x->size, -1); /* it never announced anything */
  return 1;
}

/*
 * Resumable transfers and their queues (rcce_internal.h, struct rcce_xfer):
 * the message protocol in steps that never block: the one engine of the
 * blocking calls (rcce_send_general / rcce_recv_general, below, through
 * xfer_run) and of the non-blocking requests (ircce).
 *
 * A message starts with one step that tells the receiver what follows
 * (link.h): a tagged message is complete with it; under remote-put/local-get
 * ([SCC-2BOARD] sec. IV (docs/references.md)) it is the sender's request (the "probe flag"), which
 * the receiver grants once its buffer is free, after which the sender puts
 * the data into the receiver's buffer; under local-put/remote-get the first
 * step already carries the first chunk in the sender's buffer.  The data then
 * moves in chunks, in pipelined half-buffer chunks (iRCCE_ssend: copy-in and
 * copy-out overlap), or with one cross-process copy (single_copy.c).
 *
 * A UE has one send buffer, so its outgoing transfers form one FIFO; incoming
 * ones form a FIFO per source.  Only queue heads move.  Waiting moves every
 * queue (a request may need the peer to see one of ours first) and sleeps on
 * the doorbell: every flag a queue head waits for lies in this UE's MPB.
 *
 * A blocking call with nothing else under way does not queue: xfer_run
 * steps its transfer directly and, when stuck, sleeps on exactly the flag
 * value the step is waiting for (docs/architecture.md "The transfer engine").
 */

#include "rcce_internal.h"
#include "single_copy.h"

/* On every blocking call's path (xfer_run): inlined whole, so that the call
 * runs its steps without a function call per step. */
#define XFER_HOT static inline __attribute__((always_inline))

enum {
  XFER_BEGIN = 0,   /* sender: first announcement; receiver: wait for the first step */
  XFER_GRANT,       /* RPLG: sender waits for / receiver gives the buffer */
  XFER_TAG_ACK,     /* sender of a tagged message: waiting for the acknowledgement */
  XFER_CHUNKS,      /* one chunk at a time */
  XFER_PIPELINE,    /* two half-buffer chunks in flight */
  XFER_SINGLE_COPY, /* single_copy.c owns the steps */
  XFER_DONE,
  XFER_FAILED, /* the receive did not fit the message (x->error) */
};

/* Start a transfer (inline in this file's blocking calls and in
 * rcce_xfer_start_basic); size RCCE_ANY_LENGTH_INTERNAL: a receive of any
 * size (into a buffer the caller made large enough); pipelined: the sender
 * asks for the two-half protocol (iRCCE_ssend). */
static inline void xfer_init(struct rcce_xfer *x, char *priv, size_t size, uint32_t comb_off, size_t chunk,
                             const struct rcce_link *l, int peer, int sending, int pipelined) {
  /* Field by field, not a memset of the whole struct (every blocking call
   * starts one): the fields left out -- combuf, sc_status, first_value,
   * wait_flag/wait_value, next, and the receiver's msg -- are written by the
   * step, stuck_on or rcce_xfer_submit that first needs them. */
  x->priv = priv;
  x->size = size;
  x->done = x->pending = 0;
  x->chunk = chunk;
  x->comb_off = comb_off;
  x->link = *l;
  x->peer = peer;
  x->sending = sending;
  x->step = XFER_BEGIN;
  x->sc_step = x->queued = 0;
  x->any_length = size == RCCE_ANY_LENGTH_INTERNAL;
  x->error = RCCE_SUCCESS;
  x->acked = 0;
  x->wait_landing = 0;
  if (!sending) return; /* the receiver learns the rest from the first step (first_step_info) */
  x->msg = (struct rcce_msg_info){
      .size = size, .tagged = rcce_link_tagged(l, size), .sender_addr = (uint64_t)(uintptr_t)priv};
  if (size <= chunk) return; /* one chunk: neither single-copy nor pipelined */
  if (rcce_single_copy_wanted(size, chunk)) x->msg.mode = RCCE_MSG_SINGLE_COPY;
  else if (pipelined && rcce_link_has_header(l)) x->msg.mode = RCCE_MSG_PIPELINED;
}

void rcce_xfer_start_basic(struct rcce_xfer *x, char *priv, size_t size, int peer, int sending) {
  struct rcce_link l = sending ? rcce_basic_send_link(peer) : rcce_basic_recv_link(peer);
  xfer_init(x, priv, size, rcce_basic_buff_off(), RCCE_chunk, &l, peer, sending, 0);
}

int rcce_xfer_done(const struct rcce_xfer *x) { return x->step >= XFER_DONE; }
size_t rcce_xfer_size(const struct rcce_xfer *x) { return x->size; }
int rcce_xfer_error(const struct rcce_xfer *x) { return x->error; }

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t half_of(const struct rcce_xfer *x) { return rcce_pipeline_half(x->chunk); }

static int data_step(const struct rcce_xfer *x) {
  if (x->msg.mode & RCCE_MSG_SINGLE_COPY) return XFER_SINGLE_COPY;
  return x->msg.mode & RCCE_MSG_PIPELINED ? XFER_PIPELINE : XFER_CHUNKS;
}

static void stuck_on(struct rcce_xfer *x, struct rcce_iflag f, int v) {
  x->wait_flag = f;
  x->wait_value = v;
  x->wait_landing = 0;
}

static void finish(struct rcce_xfer *x) {
  if (!x->sending && rcce_g.landing_owner == x->peer) rcce_g.landing_owner = -1;
  x->step = XFER_DONE;
}

/* --- sender ----------------------------------------------------------- */

/* Copy the next chunk into the send buffer and announce it. */
XFER_HOT void put_chunk(struct rcce_xfer *x) {
  x->pending = min_size(x->chunk, x->size - x->done);
  rcce_mpb_write(x->combuf, x->priv + x->done, x->pending);
  stuck_on(x, x->link.ready, rcce_link_announce(&x->link, x->peer, &x->msg, NULL));
}

XFER_HOT int send_begin(struct rcce_xfer *x) {
  rcce_counters_add_message(1, x->peer, x->size);
  if (x->msg.tagged) {
    stuck_on(x, x->link.ready, rcce_link_announce(&x->link, x->peer, &x->msg, x->priv));
    x->step = XFER_TAG_ACK;
  } else if (rcce_g.rplg) {
    stuck_on(x, x->link.ready, rcce_link_announce(&x->link, x->peer, &x->msg, NULL));
    x->step = XFER_GRANT;
  } else {
    x->combuf = rcce_mpb_of(rcce_g.ue) + x->comb_off;
    x->step = data_step(x);
    /* LPRG: the first chunk goes with the first step (inline here: a 64-byte
     * ping-pong took a third longer in the host's slow state when the driver
     * ran it as a step of its own; docs/architecture.md, "The transfer engine"). */
    if (x->step == XFER_CHUNKS) put_chunk(x);
  }
  return 1;
}

static int send_granted(struct rcce_xfer *x) {
  if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
  x->combuf = rcce_mpb_of(x->peer) + x->comb_off; /* remote put */
  x->step = data_step(x);
  return 1;
}

static int send_chunk(struct rcce_xfer *x) {
  if (x->pending) { /* announced, waiting for the acknowledgement */
    if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
    x->done += x->pending;
    x->pending = 0;
    if (x->done == x->size) finish(x);
    return 1;
  }
  put_chunk(x);
  return 1;
}

/* Pipelined (iRCCE 2.0's two sub-chunks): chunk k goes to half k % 2, and
 * the sender may run one chunk ahead of the receiver's acknowledgements;
 * x->done counts bytes announced, x->acked chunks acknowledged. */
static int ack_value(const struct rcce_xfer *x, uint32_t k) {
  return (int)(((uint32_t)x->first_value + k) & RCCE_SEQ_MASK);
}

static int send_pipelined(struct rcce_xfer *x) {
  size_t half = half_of(x);
  uint32_t nchunks = (uint32_t)((x->size + half - 1) / half);
  uint32_t announced = (uint32_t)((x->done + half - 1) / half);
  int moved = 0;
  while (x->acked < announced && rcce_link_acked(&x->link, ack_value(x, x->acked))) {
    x->acked++;
    moved = 1;
  }
  if (x->acked == nchunks) {
    finish(x);
    return 1;
  }
  while (announced < nchunks && announced - x->acked < 2) {
    size_t n = min_size(half, x->size - x->done);
    rcce_mpb_write(x->combuf + (announced % 2) * half, x->priv + x->done, n);
    /* the header goes with the first chunk only: the receiver may be reading it */
    int v = rcce_link_announce(&x->link, x->peer, announced ? NULL : &x->msg, NULL);
    if (!announced) x->first_value = v; /* chunk k is acknowledged with value v + k */
    x->done += n;
    announced++;
    moved = 1;
  }
  stuck_on(x, x->link.ready, ack_value(x, x->acked));
  return moved;
}

/* --- receiver --------------------------------------------------------- */

/* What the waiting first step of a message says: its header (big flags), or
 * what a receive of `size` expects (single-bit flags carry no header). */
XFER_HOT void first_step_info(const struct rcce_link *l, size_t size, size_t chunk, struct rcce_msg_info *m) {
  if (rcce_link_has_header(l)) rcce_link_header(l, m);
  else
    *m = (struct rcce_msg_info){.size = size, .mode = rcce_single_copy_wanted(size, chunk) ? RCCE_MSG_SINGLE_COPY : 0};
}

static int recv_fail(struct rcce_xfer *x, size_t got) {
  x->error = rcce_length_error("RCCE_recv", x->peer, got, x->size);
  x->step = XFER_FAILED; /* the message stays pending for a receive that fits */
  return 1;
}

/* Whether the link's next step is there (not consumed); stuck on it if not
 * (recorded only then: the blocking receive usually finds it there). */
XFER_HOT int next_step_there(struct rcce_xfer *x) {
  int v = rcce_link_next_value(&x->link);
  if (__builtin_expect(rcce_link_reached(&x->link, x->link.sent, v), 1)) return 1;
  stuck_on(x, x->link.sent, v);
  return 0;
}

/* Consume the announced chunk (at most unit bytes at from), copy it out and
 * acknowledge it. */
XFER_HOT void take_chunk(struct rcce_xfer *x, size_t unit, const unsigned char *from) {
  rcce_link_recv_take(&x->link);
  size_t n = min_size(unit, x->size - x->done);
  rcce_mpb_read(x->priv + x->done, from, n);
  rcce_link_recv_ack(&x->link, x->peer);
  x->done += n;
  if (x->done == x->size) finish(x);
}

XFER_HOT int recv_begin(struct rcce_xfer *x) {
  if (!next_step_there(x)) return 0;
  first_step_info(&x->link, x->size, x->chunk, &x->msg);
  if (x->any_length) x->size = x->msg.size;
  else if (x->msg.size != x->size) return recv_fail(x, x->msg.size);
  rcce_counters_add_message(0, x->peer, x->size);
  rcce_g.last_recv_size = x->size;
  if (x->msg.tagged) {
    rcce_link_tag_copy(&x->link, x->priv, x->size);
    rcce_link_recv_take(&x->link);
    rcce_link_recv_ack(&x->link, x->peer);
    finish(x);
  } else if (rcce_g.rplg) {
    rcce_link_recv_take(&x->link); /* the request; the data follows the grant */
    x->step = XFER_GRANT;
  } else {
    x->combuf = rcce_mpb_of(x->peer) + x->comb_off; /* remote get; the first chunk is there */
    x->step = data_step(x);
    /* ... and taken at once, as the sender announced it (put_chunk): a step of
     * its own cost the blocking receive a tenth of a short message's time. */
    if (x->step == XFER_CHUNKS) take_chunk(x, x->chunk, x->combuf);
  }
  return 1;
}

/* RPLG: one sender at a time may put into my buffer. */
static int recv_grant(struct rcce_xfer *x) {
  if (rcce_g.landing_owner >= 0 && rcce_g.landing_owner != x->peer) {
    x->wait_landing = 1;
    return 0;
  }
  rcce_g.landing_owner = x->peer;
  x->wait_landing = 0;
  x->combuf = rcce_mpb_of(rcce_g.ue) + x->comb_off; /* local get */
  rcce_link_recv_ack(&x->link, x->peer);
  x->step = data_step(x);
  return 1;
}

/* One chunk, or one half-buffer chunk when pipelined. */
static int recv_chunk(struct rcce_xfer *x, size_t unit, const unsigned char *from) {
  if (!next_step_there(x)) return 0;
  take_chunk(x, unit, from);
  return 1;
}

static int recv_pipelined(struct rcce_xfer *x) {
  size_t half = half_of(x);
  return recv_chunk(x, half, x->combuf + (x->done / half % 2) * half);
}

/* --- one transfer ------------------------------------------------------- */

static int single_copy_step(struct rcce_xfer *x) {
  int r = rcce_single_copy_poll(x);
  if (r == 0) return 0;
  if (r > 0) finish(x);
  else x->step = XFER_CHUNKS; /* both ends move the message in chunks, from the start */
  return 1;
}

/* One step of a transfer in direction `sending` (x->sending); 1 when it
 * made progress, 0 when stuck.  Inline, so that a blocking call, whose
 * direction is a constant, keeps only its own direction's steps. */
XFER_HOT int xfer_step_dir(struct rcce_xfer *x, int sending) {
  /* The first step, which a blocking call always takes and a receive
   * usually retries after its wait, without the jump table. */
  if (x->step == XFER_BEGIN) return sending ? send_begin(x) : recv_begin(x);
  switch (x->step) {
    case XFER_GRANT: return sending ? send_granted(x) : recv_grant(x);
    case XFER_TAG_ACK:
      if (!rcce_link_acked(&x->link, x->wait_value)) return 0;
      finish(x);
      return 1;
    case XFER_CHUNKS: return sending ? send_chunk(x) : recv_chunk(x, x->chunk, x->combuf);
    case XFER_PIPELINE: return sending ? send_pipelined(x) : recv_pipelined(x);
    case XFER_SINGLE_COPY: return single_copy_step(x);
    default: return 0;
  }
}

static unsigned long steps_taken; /* by every transfer of this UE: polls compare it */

/* A transfer of zero bytes is complete before it starts: nothing travels. */
static inline void skip_if_empty(struct rcce_xfer *x) {
  if (x->step == XFER_BEGIN && x->size == 0) x->step = XFER_DONE;
}

/* Move x as far as it goes without blocking; 1 when it is complete. */
static int xfer_poll(struct rcce_xfer *x) {
  skip_if_empty(x);
  while (!rcce_xfer_done(x) && xfer_step_dir(x, x->sending)) steps_taken++;
  return rcce_xfer_done(x);
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
  for (;;) {
    int owner = rcce_g.landing_owner;
    progress_queue(&rcce_g.send_queue);
    for (int src = 0; src < rcce_g.nue && rcce_g.queued; src++) progress_queue(&rcce_g.recv_queue[src]);
    /* a receive that finished this round may have freed my buffer for one passed over */
    if (!(owner >= 0 && rcce_g.landing_owner < 0 && rcce_g.queued)) return;
  }
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
  if (!h) return 0;
  if (h->wait_landing) return rcce_g.landing_owner < 0;
  return rcce_link_reached(&h->link, h->wait_flag, h->wait_value);
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

int rcce_xfer_unclaimed(const struct rcce_link *l, int src) { return !rcce_g.recv_queue[src] && rcce_link_waiting(l); }

int rcce_xfer_waiting_from(int src) {
  if (src == rcce_g.ue) return 0;
  struct rcce_link l = rcce_basic_recv_link(src);
  return rcce_xfer_unclaimed(&l, src);
}

void rcce_xfer_set_extra_work(void (*progress)(void), int (*can_move)(void)) {
  rcce_g.extra_progress = progress;
  rcce_g.extra_can_move = can_move;
}

void rcce_xfer_extra_waiting(int delta) { rcce_g.extra_waiting += delta; }

int rcce_xfer_sends_queued(void) { return rcce_g.send_queue != NULL; }

int rcce_xfer_recvs_pending(void) {
  if (rcce_g.extra_waiting) return 1;
  for (int src = 0; src < rcce_g.nue; src++)
    if (rcce_g.recv_queue[src]) return 1;
  return 0;
}

int rcce_xfer_requests_pending(void) { return rcce_g.queued + rcce_g.extra_waiting; }

/* --- the blocking calls ------------------------------------------------- */

static int unstuck(void *x) { return head_can_move(x); }

/* Sleep until the flag (or the landing buffer) x is stuck on lets it move:
 * reported as a send to / receive from its peer (deadlock reports). */
static void wait_unstuck(struct rcce_xfer *x) {
  struct hw_wait_desc why = {.kind = x->sending ? HW_WAIT_SEND : HW_WAIT_RECV, .peer = x->peer};
  hw_wait_cond(&rcce_g.job, rcce_g.ue, unstuck, x, &why);
}

/* Whether a blocking call runs alone: no transfer queued, no upper layer's
 * work waiting (any-source receives). */
static inline int xfer_alone(void) { return !(rcce_g.queued || rcce_g.extra_waiting); }

/* Run a started transfer of direction `sending` to completion; its error
 * code (the driver of the blocking calls, inline in them: this is every
 * RCCE_send's path). */
XFER_HOT int xfer_run(struct rcce_xfer *x, int sending) {
  /* Queued transfers (or an upper layer's waiting work) go first and keep
   * moving while this one waits: queue it behind them. */
  if (__builtin_expect(!xfer_alone(), 0)) {
    if (!rcce_xfer_submit(x)) rcce_xfer_wait(x);
    return x->error;
  }
  /* Alone: nothing else can move, so only x's own flag can unblock it.  Its
   * steps are not counted in steps_taken: no poll is under way meanwhile.
   * (A zero-byte call never gets here alone: its caller returned.) */
  while (!rcce_xfer_done(x))
    if (!xfer_step_dir(x, sending)) wait_unstuck(x);
  return x->error;
}

int rcce_send_general(const char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int dest,
                      int pipelined) {
  if (timing_enabled) timing_message_call();
  if (size == 0 && xfer_alone()) return RCCE_SUCCESS; /* nothing travels, nothing to keep in order */
  struct rcce_xfer x;
  xfer_init(&x, (char *)priv, size, comb_off, chunk, l, dest, 1, pipelined);
  return xfer_run(&x, 1);
}

int rcce_recv_general(char *priv, uint32_t comb_off, size_t chunk, struct rcce_link *l, size_t size, int src,
                      int *test) {
  if (timing_enabled) timing_message_call();
  if (test) { /* a polling call (rcce_xfer_poll_start/end) */
    unsigned long p = rcce_xfer_poll_start();
    *test = size == 0 || rcce_xfer_unclaimed(l, src);
    rcce_xfer_poll_end(p, *test, l);
    if (!*test) return RCCE_SUCCESS;
  }
  if (size == 0 && xfer_alone()) return RCCE_SUCCESS;
  struct rcce_xfer x;
  xfer_init(&x, priv, size, comb_off, chunk, l, src, 0, 0);
  return xfer_run(&x, 0);
}

unsigned long rcce_xfer_poll_start(void) {
  unsigned long before = steps_taken;
  rcce_xfer_progress();
  return before;
}

static int head_or_link_can_move(void *link) { return any_head_can_move(NULL) || (link && rcce_link_waiting(link)); }

void rcce_xfer_poll_end(unsigned long started, int done, const struct rcce_link *l) {
  if (done || steps_taken != started) hw_poll_fruitful();
  else hw_poll_idle(&rcce_g.job, rcce_g.ue, head_or_link_can_move, (void *)l);
}

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

void rcce_xfer_drain_all_recvs(void) {
  while (rcce_g.extra_waiting) rcce_xfer_idle(); /* the upper layer's receives join a queue first */
  for (int src = 0; src < rcce_g.nue; src++) rcce_xfer_drain_recvs(src);
}

int rcce_xfer_buffer_busy(void) {
  const struct rcce_xfer *h = rcce_g.send_queue;
  return rcce_g.landing_owner >= 0 || (h && !rcce_g.rplg && h->step != XFER_BEGIN);
}

static int in_queue(const struct rcce_xfer *q, const struct rcce_xfer *x) {
  for (; q; q = q->next)
    if (q == x) return 1;
  return 0;
}

int rcce_xfer_is_queued(const struct rcce_xfer *x) {
  if (!rcce_g.queued) return 0;
  if (in_queue(rcce_g.send_queue, x)) return 1;
  for (int src = 0; src < rcce_g.nue; src++)
    if (in_queue(rcce_g.recv_queue[src], x)) return 1;
  return 0;
}

int rcce_xfer_is_head(const struct rcce_xfer *x) { return x->queued && *queue_of(x) == x; }

int rcce_xfer_recvs_queued_from(int src) { return rcce_g.recv_queue[src] != NULL; }

int rcce_xfer_cancel(struct rcce_xfer *x) {
  struct rcce_xfer **q = queue_of(x);
  if (!x->queued || *q == x) return 0; /* finished, or the head: already under way */
  while (*q != x) q = &(*q)->next;
  *q = x->next;
  x->queued = 0;
  rcce_g.queued--;
  return 1;
}

/* Mailboxes: setup, send, receive, the queue of taken user mails (protocol
 * in mailbox_internal.h). */
#include <stdio.h>
#include <string.h>

#include "mailbox_internal.h"

struct mb_state mailbox_g;

const char *mailbox_error_string(int code) {
  switch (code) {
    case MAILBOX_SUCCESS: return "success";
    case MAILBOX_EMPTY: return "no mail waiting";
    case MAILBOX_ERROR_NOT_INIT: return "mailbox_init was not called";
    case MAILBOX_ERROR_DEST: return "destination is no UE of the job";
    case MAILBOX_ERROR_LEN: return "mail longer than MAILBOX_MAX_LEN (28) bytes";
    case MAILBOX_ERROR_ARG: return "NULL pointer or unknown flag";
    case MAILBOX_ERROR_MPB: return "no room for the mailboxes in the MPB";
    case MAILBOX_ERROR_GONE: return "destination has left (RCCE_finalize)";
    case MAILBOX_ERROR_HANDLER: return "mails go to the handler; mailbox_recv is not available there";
    case MAILBOX_ERROR_BUSY: return "iRCCE requests are pending";
    default: return "unknown mailbox error";
  }
}

void mailbox_leave(void) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (--mailbox_g.critical == 0 && mailbox_g.deferred) {
    mailbox_g.deferred = 0;
    mailbox_dispatch();
  }
}

void mailbox_close(void) {
  __atomic_store_n(&mailbox_g.ues[rcce_my_ue()].state, MAILBOX_UE_GONE, __ATOMIC_SEQ_CST);
  /* Senders waiting for a full slot here give up (mailbox_send_kind). */
  for (int u = 0; u < rcce_ue_count(); u++) hw_ring(rcce_job(), u);
}

static void mb_depart(void) {
  mailbox_doorbell_stop();
  mailbox_close();
  mailbox_g.ready = 0;
}

int mailbox_init(void) {
  TIMING_SCOPE();
  if (!rcce_running()) return rcce_report(MAILBOX_ERROR_NOT_INIT, "mailbox_init", "call RCCE_init first");
  if (mailbox_g.ready) return MAILBOX_SUCCESS;
  if (hw_hosts_many(rcce_job())) /* the doorbells signal processes of one host (docs/cluster.md) */
    return rcce_report(MAILBOX_ERROR_NOT_INIT, "mailbox_init", "mailboxes do not run across hosts (rccerun --hosts)");
  if (rcce_xfer_requests_pending())
    return rcce_report(MAILBOX_ERROR_BUSY, "mailbox_init", "%d iRCCE requests are pending",
                       rcce_xfer_requests_pending());
  /* [SVM-2012] sec. 5 (docs/references.md): one line per sending core in every receiver's MPB. */
  int64_t line = rcce_reserve_mpb_lines((uint64_t)rcce_ue_count());
  if (line < 0)
    return rcce_report(MAILBOX_ERROR_MPB, "mailbox_init", "%d mailboxes of 32 bytes do not fit the free MPB (%d lines)",
                       rcce_ue_count(), (int)(RCCE_chunk / rcce_line_bytes()));
  mailbox_g.slot_line = (uint64_t)line;
  mailbox_g.ues = mailbox_ue_shared_of(rcce_job(), 0); /* present: attach checked the layout hash */
  mailbox_g.irq = rcce_job()->hdr->set.mailbox_irq;
  memset(mb_payload(rcce_my_ue(), 0), 0, (size_t)rcce_ue_count() * rcce_line_bytes());
  if (mailbox_doorbell_start() != 0)
    return rcce_report(MAILBOX_ERROR_NOT_INIT, "mailbox_init", "cannot install the doorbell signal");
  mailbox_g.ready = 1;
  rcce_at_finalize(mb_depart);
  __atomic_store_n(&mailbox_g.ues[rcce_my_ue()].state, MAILBOX_UE_READY, __ATOMIC_RELEASE);
  /* Nobody sends before every UE has cleared its slots and can take doorbells. */
  RCCE_barrier(&RCCE_COMM_WORLD);
  return MAILBOX_SUCCESS;
}

static int check_dest(int dest, const char *where) {
  if (!mailbox_g.ready) return rcce_report(MAILBOX_ERROR_NOT_INIT, where, "call mailbox_init first");
  if (dest < 0 || dest >= rcce_ue_count())
    return rcce_report(MAILBOX_ERROR_DEST, where, "destination %d is no UE of this job (0..%d)", dest,
                       rcce_ue_count() - 1);
  return MAILBOX_SUCCESS;
}

static int dest_gone(int dest) {
  return __atomic_load_n(&mailbox_g.ues[dest].state, __ATOMIC_ACQUIRE) == MAILBOX_UE_GONE;
}

static int slot_empty(volatile uint32_t *hdr) { return !(__atomic_load_n(hdr, __ATOMIC_ACQUIRE) & MB_FLAG_FULL); }

struct slot_wait {
  volatile uint32_t *hdr;
  int dest;
};
static int slot_empty_or_gone(void *p) {
  const struct slot_wait *w = p;
  return slot_empty(w->hdr) || dest_gone(w->dest);
}

int mailbox_send_kind(int dest, const void *msg, size_t len, int kind) {
  /* Copy first: msg may lie in SVM memory whose page fault needs the mailboxes. */
  unsigned char copy[MAILBOX_MAX_LEN];
  memcpy(copy, msg, len);
  volatile uint32_t *hdr = mb_header(dest, rcce_my_ue());
  struct hw_wait_desc why = {.kind = HW_WAIT_MAILBOX_FULL, .peer = dest};
  struct slot_wait w = {hdr, dest};
  for (;;) {
    /* A user learns that the destination left; the svm layer expects it
     * (its departure protocol, svm_internal.h) and is not told. */
    if (dest_gone(dest))
      return kind == MB_KIND_SYSTEM
                 ? MAILBOX_ERROR_GONE
                 : rcce_report(MAILBOX_ERROR_GONE, "mailbox_send", "UE %d has left (RCCE_finalize)", dest);
    mb_enter();
    if (slot_empty(hdr)) {
      if (timing_enabled) timing_flag_seen(hdr, 0, 0); /* the remote read that found it empty */
      memcpy(mb_payload(dest, rcce_my_ue()), copy, len);
      uint32_t h = MB_FLAG_FULL | (uint32_t)len << 8 | (uint32_t)kind << 16;
      if (timing_enabled) timing_flag_write(hdr, 0, h); /* one line written to dest's MPB */
      /* The doorbell is a write to the interrupt controller; charged as one
       * more line to dest's tile (docs/svm.md "Model mode"). */
      if (timing_enabled && mailbox_g.irq) timing_mpb_copy(hdr, rcce_line_bytes(), 1);
      __atomic_store_n(hdr, h, __ATOMIC_RELEASE);
      /* Ring inside the critical section: a deferred dispatch in mailbox_leave
       * may send to dest again and must find this mail announced. */
      mailbox_ring_doorbell(dest);
      mailbox_leave();
      MB_COUNT(mails_sent);
      if (kind == MB_KIND_USER) rcce_count_message(1, dest, len);
      return MAILBOX_SUCCESS;
    }
    mailbox_leave();
    /* Full: wait for dest to take the last mail, taking our own meanwhile
     * (two UEs sending to each other's full mailboxes both make room). */
    mailbox_wait(slot_empty_or_gone, &w, &why);
  }
}

int mailbox_send(int dest, const void *msg, size_t len) {
  TIMING_SCOPE();
  int rc = check_dest(dest, "mailbox_send");
  if (rc != MAILBOX_SUCCESS) return rc;
  if (!msg && len) return rcce_report(MAILBOX_ERROR_ARG, "mailbox_send", "NULL mail of %d bytes", (int)len);
  if (len > MAILBOX_MAX_LEN)
    return rcce_report(MAILBOX_ERROR_LEN, "mailbox_send", "mail of %d bytes is longer than %d", (int)len,
                       MAILBOX_MAX_LEN);
  return mailbox_send_kind(dest, msg, len, MB_KIND_USER);
}

int mailbox_take_slot(int sender) {
  volatile uint32_t *hdr = mb_header(rcce_my_ue(), sender);
  uint32_t h = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
  if (!(h & MB_FLAG_FULL)) return 0;
  struct mb_mail m = {.src = (int16_t)sender, .len = (uint8_t)(h >> 8), .kind = (uint8_t)(h >> 16)};
  if (m.len > MAILBOX_MAX_LEN) m.len = MAILBOX_MAX_LEN;
  memcpy(m.data, mb_payload(rcce_my_ue(), sender), m.len);
  m.stamp_ps = timing_line_stamp(hdr, h); /* costs are the consumer's: mailbox_charge_arrival */
  if (m.kind == MB_KIND_SYSTEM) {
    if (!mailbox_g.system_receive || mailbox_g.system_receive(sender, m.data, m.len, m.stamp_ps) != 0) return 0;
  } else {
    if (mailbox_g.qtail - mailbox_g.qhead == MB_QUEUE_CAP) return 0; /* stays in its slot until there is room */
    mailbox_g.queue[mailbox_g.qtail++ % MB_QUEUE_CAP] = m;
  }
  __atomic_store_n(hdr, 0, __ATOMIC_RELEASE);
  MB_COUNT(mails_recv);
  hw_ring(rcce_job(), sender); /* a sender may wait for this slot */
  return 1;
}

int mailbox_queue_pop(struct mb_mail *out) {
  mb_enter();
  int got = mailbox_g.qhead != mailbox_g.qtail;
  if (got) *out = mailbox_g.queue[mailbox_g.qhead++ % MB_QUEUE_CAP];
  mailbox_leave();
  return got;
}

static int queue_nonempty(void *unused) { return mailbox_g.qhead != mailbox_g.qtail; }

int mailbox_recv(int *src, void *msg, size_t *len, int flags) {
  TIMING_SCOPE();
  if (!mailbox_g.ready) return rcce_report(MAILBOX_ERROR_NOT_INIT, "mailbox_recv", "call mailbox_init first");
  if (!src || !msg || !len || (flags & ~MAILBOX_NONBLOCK))
    return rcce_report(MAILBOX_ERROR_ARG, "mailbox_recv", "NULL pointer or unknown flags 0x%x", flags);
  if (mailbox_g.user_handler || mailbox_g.in_handler)
    return rcce_report(MAILBOX_ERROR_HANDLER, "mailbox_recv", "a handler takes the mails");
  struct hw_wait_desc why = {.kind = HW_WAIT_MAIL, .peer = -1};
  struct mb_mail m;
  for (;;) {
    mailbox_dispatch(); /* polling mode: the idle loop checks every slot */
    if (mailbox_queue_pop(&m)) break;
    if (flags & MAILBOX_NONBLOCK) return MAILBOX_EMPTY;
    mailbox_wait(queue_nonempty, NULL, &why);
  }
  mailbox_charge_arrival(m.src, m.stamp_ps);
  *src = m.src;
  *len = m.len;
  memcpy(msg, m.data, m.len);
  rcce_count_message(0, m.src, m.len);
  return MAILBOX_SUCCESS;
}

int mailbox_set_handler(void (*fn)(int src, const void *msg, size_t len)) {
  if (!mailbox_g.ready) return rcce_report(MAILBOX_ERROR_NOT_INIT, "mailbox_set_handler", "call mailbox_init first");
  mailbox_g.user_handler = fn;
  if (fn) mailbox_dispatch(); /* mails that waited in the queue */
  return MAILBOX_SUCCESS;
}

/* Taking one mail: [SVM-2012] sec. 5 and footnote 2 -- the interrupt names
 * the sender, so one mailbox is checked; without it the idle loop sweeps
 * all of them -- and reading its line. */
static void charge_take(int src) {
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  timing_cycles(mailbox_g.irq ? c->lat.interrupt_cycles + c->time.mailbox_check_cycles
                              : rcce_ue_count() * c->time.mailbox_check_cycles);
  timing_mpb_copy(mb_payload(rcce_my_ue(), src), rcce_line_bytes(), 0);
}

void mailbox_charge_arrival(int src, uint64_t stamp_ps) {
  if (!timing_enabled) return;
  timing_wait_for(stamp_ps);
  charge_take(src);
}

void mailbox_charge_async(int src, uint64_t stamp_ps) {
  if (!timing_enabled) return;
  timing_interrupt_at(stamp_ps);
  charge_take(src);
}

void mailbox_set_system(int (*receive)(int, const void *, size_t, uint64_t), void (*process)(void)) {
  mailbox_g.system_receive = receive;
  mailbox_g.system_process = process;
}

struct wait_arg {
  int (*cond)(void *);
  void *arg;
};

static int cond_or_mail(void *p) {
  struct wait_arg *w = p;
  return w->cond(w->arg) || mailbox_pending();
}

void mailbox_wait(int (*cond)(void *), void *arg, const struct hw_wait_desc *why) {
  struct wait_arg w = {cond, arg};
  /* While waiting this UE checks its interrupt status itself, so senders
   * need not signal it (mailbox_ring_doorbell); a sender that saw the flag set
   * left its bit for the check after the flag is cleared. */
  _Atomic int32_t *waiting = &mailbox_g.ues[rcce_my_ue()].waiting;
  __atomic_fetch_add(waiting, 1, __ATOMIC_SEQ_CST);
  for (;;) {
    mailbox_dispatch();
    if (cond(arg)) break;
    hw_wait_cond(rcce_job(), rcce_my_ue(), cond_or_mail, &w, why);
  }
  __atomic_fetch_sub(waiting, 1, __ATOMIC_SEQ_CST);
  if (mailbox_pending()) mailbox_dispatch();
}

/* Doorbells: the global interrupt controller's status bits, the doorbell
 * signal and its handler, the polling timer, and dispatch (protocol in
 * mailbox_internal.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mailbox_internal.h"

/* A real-time signal the runtime keeps for itself (documented in docs/svm.md). */
#define MB_SIGNAL_OFFSET 4

static timer_t tick_timer;
static int tick_timer_on;

static int nwords(void) { return (rcce_ue_count() + 63) / 64; }

int mailbox_pending(void) {
  struct mailbox_ue_shared *me = &mailbox_g.ues[rcce_my_ue()];
  if (mailbox_g.irq) {
    for (int w = 0; w < nwords(); w++)
      if (__atomic_load_n(&me->gic_pending[w], __ATOMIC_ACQUIRE)) return 1;
    return 0;
  }
  for (int s = 0; s < rcce_ue_count(); s++) {
    if (__atomic_load_n(mb_header(rcce_my_ue(), s), __ATOMIC_ACQUIRE) & MB_FLAG_FULL) return 1;
  }
  return 0;
}

/* Take the slots that rang (doorbells) or every full slot (polling).
 * Returns how many mails were taken. */
static int drain(void) {
  int took = 0;
  mb_enter(); /* left without mailbox_leave: this is the dispatch a deferral would run */
  if (mailbox_g.irq) {
    struct mailbox_ue_shared *me = &mailbox_g.ues[rcce_my_ue()];
    for (int w = 0; w < nwords(); w++) {
      uint64_t bits = __atomic_exchange_n(&me->gic_pending[w], 0, __ATOMIC_ACQ_REL), left = 0;
      while (bits) {
        int b = __builtin_ctzll(bits);
        bits &= bits - 1;
        if (mailbox_take_slot(w * 64 + b)) took++;
        else if (__atomic_load_n(mb_header(rcce_my_ue(), w * 64 + b), __ATOMIC_ACQUIRE) & MB_FLAG_FULL)
          left |= 1ull << b; /* no room for it yet: keep the bit */
      }
      if (left) __atomic_fetch_or(&me->gic_pending[w], left, __ATOMIC_ACQ_REL);
    }
  } else {
    for (int s = 0; s < rcce_ue_count(); s++) took += mailbox_take_slot(s);
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  mailbox_g.critical--;
  return took;
}

void mailbox_dispatch(void) {
  if (!mailbox_g.ready) return;
  if (mailbox_g.critical) {
    mailbox_g.deferred = 1;
    return;
  }
  /* A doorbell taken during the drain was deferred (critical): drain again,
   * or its status bit stays set with no interrupt on the way. */
  do {
    mailbox_g.deferred = 0;
    drain();
  } while (mailbox_g.deferred);
  if (mailbox_g.processing) return; /* an outer dispatch processes what was drained */
  mailbox_g.processing = 1;
  for (;;) {
    mailbox_g.more = 0;
    if (mailbox_g.system_process) mailbox_g.system_process();
    struct mb_mail m;
    while (mailbox_g.user_handler && mailbox_queue_pop(&m)) {
      struct timing_interrupt t;
      timing_interrupt_enter(&t);
      mailbox_charge_async(m.src, m.stamp_ps);
      mailbox_g.user_handler(m.src, m.data, m.len);
      timing_interrupt_leave(&t);
    }
    mailbox_g.deferred = 0;
    if (!drain() && !mailbox_g.more && !mailbox_g.deferred) break;
  }
  mailbox_g.processing = 0;
}

void mailbox_kick(void) { mailbox_g.more = 1; }

/* The interrupt handler ([SVM-2012] sec. 5 (docs/references.md): the IPI names the sender, so
 * only its mailbox is checked).  It may run inside a wait of this process:
 * what that wait published for the launcher is put back, and a futex sleep
 * about to start is made to return so its condition is checked again. */
static void on_doorbell(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)info;
  (void)ctx;
  int saved_errno = errno;
  struct hw_ue *me = hw_ue(rcce_job(), rcce_my_ue());
  int32_t sleeping = __atomic_load_n(&me->sleeping, __ATOMIC_RELAXED);
  struct hw_wait_desc wait = me->wait;
  uint64_t taken_before = mailbox_g.ues[rcce_my_ue()].mails_recv;
  mailbox_g.in_handler++;
  MB_COUNT(interrupts);
  if (timing_enabled) timing_enter();
  mailbox_dispatch();
  if (timing_enabled) timing_leave();
  mailbox_g.in_handler--;
  me->wait = wait;
  __atomic_store_n(&me->sleeping, sleeping, __ATOMIC_RELAXED);
  if (sleeping && mailbox_g.ues[rcce_my_ue()].mails_recv != taken_before)
    __atomic_fetch_add(&me->doorbell_seq, 1, __ATOMIC_RELEASE);
  errno = saved_errno;
}

void mailbox_ring_doorbell(int dest) {
  struct mailbox_ue_shared *d = &mailbox_g.ues[dest];
  if (mailbox_g.irq) {
    int me = rcce_my_ue();
    /* A clear status means no interrupt is on its way: send one, unless the
     * receiver is waiting and checks its status itself (mailbox_wait).  The
     * locked fetch_or orders our bit before reading mailbox_waiting; the
     * waiter clears that flag before its last check (mailbox_wait). */
    uint64_t old = __atomic_fetch_or(&d->gic_pending[me / 64], 1ull << (me % 64), __ATOMIC_SEQ_CST);
    if (!old && !__atomic_load_n(&d->waiting, __ATOMIC_SEQ_CST)) {
      kill((pid_t)hw_ue(rcce_job(), dest)->pid, mailbox_g.signo);
      MB_COUNT(doorbells);
    }
  }
  hw_ring(rcce_job(), dest); /* a receiver asleep in a wait */
}

int mailbox_doorbell_start(void) {
  mailbox_g.signo = SIGRTMIN + MB_SIGNAL_OFFSET;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_doorbell;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(mailbox_g.signo, &sa, NULL) != 0) return -1;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, mailbox_g.signo);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  if (mailbox_g.irq) return 0;
  /* Polling: the timer interrupt at which the kernel checks all mailboxes. */
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = mailbox_g.signo;
  if (timer_create(CLOCK_MONOTONIC, &ev, &tick_timer) != 0) return -1;
  struct itimerspec its = {{0, MB_TICK_NS}, {0, MB_TICK_NS}};
  if (timer_settime(tick_timer, 0, &its, NULL) != 0) return -1;
  tick_timer_on = 1;
  return 0;
}

void mailbox_doorbell_stop(void) {
  if (tick_timer_on) timer_delete(tick_timer);
  tick_timer_on = 0;
  signal(mailbox_g.signo, SIG_IGN); /* doorbells after departure are dropped */
}

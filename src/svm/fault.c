/* SVM page faults: first touch, read-only areas and the strong model's
 * ownership protocol over the mailboxes (svm_internal.h; [SVM-2012] secs.
 * 6.1-6.4, [METALSVM-2011] sec. VI (docs/references.md)). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../hw/signal_chain.h"
#include "svm_internal.h"

#define TRAP_FLAG 0x100 /* x86 EFLAGS.TF: a debug trap after the next instruction */
#define PF_WRITE 0x2    /* x86 page-fault error code: the access was a write */

enum { MAIL_REQUEST = 1, MAIL_GRANT = 2 };
struct svm_mail {
  uint32_t type, page;
  int32_t requester; /* the UE that faulted (kept when a request is forwarded) */
};

struct svm_request {
  uint32_t page;
  int32_t requester;
  int32_t from;      /* the UE whose mail brought it (the requester, or a forwarder) */
  uint64_t stamp_ps; /* model mode: when that mail was written */
};

/* Requests taken out of the mailboxes, and those deferred until the
 * faulting access of a page this UE just got has executed. */
struct request_ring {
  struct svm_request *r;
  unsigned head, tail, cap;
};
static struct request_ring incoming, deferred;
static struct sigaction prev_segv, prev_trap;

static int ring_push(struct request_ring *q, struct svm_request r) {
  if (q->tail - q->head == q->cap) return -1;
  q->r[q->tail++ % q->cap] = r;
  return 0;
}

/* Queue a request unless the same one (page and requester) is queued
 * already: copies (a request asked again after a departure) do nothing more,
 * so each ring holds at most one live request per requester. */
static int ring_push_unique(struct request_ring *q, struct svm_request r) {
  for (unsigned i = q->head; i != q->tail; i++)
    if (q->r[i % q->cap].page == r.page && q->r[i % q->cap].requester == r.requester) return 0;
  return ring_push(q, r);
}

static int ring_pop(struct request_ring *q, struct svm_request *out) {
  if (q->head == q->tail) return 0;
  *out = q->r[q->head++ % q->cap];
  return 1;
}

static int me1(void) { return rcce_my_ue() + 1; } /* this UE in the owner vector */

/* Drain context (mailbox_internal.h): queue, never send. */
static int on_system_mail(int src, const void *msg, size_t len, uint64_t stamp_ps) {
  struct svm_mail m;
  if (len != sizeof m) return 0;
  memcpy(&m, msg, sizeof m);
  if (m.type == MAIL_REQUEST)
    return ring_push_unique(&incoming, (struct svm_request){m.page, m.requester, src, stamp_ps});
  if ((int64_t)m.page == svm_g.wanted) { /* a grant for a page no longer wanted is stale: dropped */
    svm_g.grant_src = src;
    svm_g.grant_stamp = stamp_ps;
    svm_g.granted = 1;
  }
  return 0;
}

static int held(uint32_t page) {
  for (int i = 0; i < svm_g.nheld; i++)
    if (svm_g.held[i] == (int64_t)page) return 1;
  return 0;
}

/* A mail to a UE that has left is dropped (mailbox_send_kind returns
 * MAILBOX_ERROR_GONE quietly for system mails): the departure protocol in
 * svm_internal.h makes up for it. */
static void send_mail(int dest, uint32_t type, uint32_t page, int requester) {
  struct svm_mail m = {type, page, requester};
  mailbox_send_kind(dest, &m, sizeof m, MB_KIND_SYSTEM);
}

/* Whether the request's UE still faults on its page; a stale request is
 * dropped (svm_internal.h, "Stale requests and departures").  Race-free: the
 * requester stops wanting the page only once it owns it, so nobody else can
 * be serving it then. */
static int still_wanted(const struct svm_request *r) {
  return __atomic_load_n(&svm_g.pool->want[r->requester], __ATOMIC_ACQUIRE) == (int64_t)r->page + 1;
}

/* The owner's side of [SVM-2012] sec. 6.1 (steps 3-5), or a forward. */
static void serve(struct svm_request r) {
  if (r.page >= svm_g.npages || r.requester < 0 || r.requester >= rcce_ue_count()) return;
  if (!still_wanted(&r)) return; /* stale: the requester has the page, or took it when its owner left */
  int32_t o = __atomic_load_n(&svm_g.owner[r.page], __ATOMIC_ACQUIRE);
  if (o == me1() && (svm_g.wanted == (int64_t)r.page || held(r.page))) {
    ring_push_unique(&deferred, r); /* after our own access (on_trap); at most one per requester: fits */
    return;
  }
  struct timing_interrupt t;
  timing_interrupt_enter(&t);
  mailbox_charge_async(r.from, r.stamp_ps);
  if (o == me1()) {
    svm_map(r.page, SVM_MAPPED_NONE);                                          /* 3: clear the access permission */
    svm_flush();                                                               /*    and flush */
    __atomic_store_n(&svm_g.owner[r.page], r.requester + 1, __ATOMIC_RELEASE); /* 4: the new owner */
    SVM_COUNT(served);
    if (timing_enabled) timing_ddr_word(svm_g.owner_shared_off + (uint64_t)r.page * sizeof(int32_t), 1);
    send_mail(r.requester, MAIL_GRANT, r.page, r.requester); /* 5: reply */
  } else if (o != 0 && o - 1 != r.requester) {
    send_mail(o - 1, MAIL_REQUEST, r.page, r.requester); /* ownership moved on: forward */
    SVM_COUNT(forwarded);
  } /* o == 0: nobody owns the page (its owner left); the requester takes it itself */
  timing_interrupt_leave(&t);
}

static void serve_requests(void) {
  struct svm_request r;
  for (;;) {
    mb_enter();
    int got = ring_pop(&incoming, &r);
    mailbox_leave();
    if (!got) return;
    serve(r);
  }
}

static uint32_t departures(void) { return __atomic_load_n(&svm_g.pool->departures, __ATOMIC_ACQUIRE); }

struct owner_wait {
  size_t page;
  int32_t was;
  uint32_t departures;
};
static int owner_changed_or_granted(void *p) {
  struct owner_wait *w = p;
  return __atomic_load_n(&svm_g.owner[w->page], __ATOMIC_ACQUIRE) != w->was || svm_g.granted ||
         departures() != w->departures;
}

/* The faulting UE's side (steps 1-2): ask the owner once (a request that
 * misses the owner is forwarded), then wait until the owner vector names
 * this UE and the owner's reply mail has come ([SVM-2012] sec. 6.1: the reply, not
 * polling the vector, ends the wait).  A page nobody owns (a first touch,
 * or its owner left) is taken without asking.  When a UE has left since the
 * request went out, the request may have been lost with it: ask the owner
 * of now again (a duplicate is dropped as stale, still_wanted). */
static void acquire(size_t page) {
  int asked = 0;
  uint32_t asked_at = 0; /* departures when the last request went out */
  svm_g.granted = 0;
  __atomic_store_n(&svm_g.pool->want[rcce_my_ue()], (int64_t)page + 1, __ATOMIC_SEQ_CST);
  for (;;) {
    uint32_t dep = departures();
    int32_t o = __atomic_load_n(&svm_g.owner[page], __ATOMIC_ACQUIRE);
    if (o == me1() && (!asked || svm_g.granted)) break;
    if (o == 0) {
      if (!__atomic_load_n(&svm_g.frame_of[page], __ATOMIC_ACQUIRE)) svm_frame_of(page);
      else __atomic_compare_exchange_n(&svm_g.owner[page], &o, me1(), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      if (__atomic_load_n(&svm_g.owner[page], __ATOMIC_ACQUIRE) == me1()) {
        asked = 0; /* taken: no reply coming */
        break;
      }
      continue;
    }
    if (o != me1() && (!asked || dep != asked_at)) {
      send_mail(o - 1, MAIL_REQUEST, (uint32_t)page, rcce_my_ue());
      asked = 1;
      asked_at = dep;
    }
    struct owner_wait w = {page, o, dep};
    struct hw_wait_desc why = {.kind = HW_WAIT_SVM_PAGE, .peer = o - 1};
    mailbox_wait(owner_changed_or_granted, &w, &why);
  }
  __atomic_store_n(&svm_g.pool->want[rcce_my_ue()], 0, __ATOMIC_RELEASE); /* requests still on their way are stale */
  if (asked) {
    mailbox_charge_arrival(svm_g.grant_src, svm_g.grant_stamp);
    SVM_COUNT(acquired);
  }
}

/* As on the SCC, a stray access is a segmentation fault: one line naming the
 * UE and the cause, then the UE dies by SIGSEGV (docs/errors.md). */
static void segfault(const char *fmt, const void *addr) {
  char detail[200], line[300];
  snprintf(detail, sizeof detail, fmt, addr);
  int n = snprintf(line, sizeof line, "svm: UE %d: %s\n", rcce_my_ue(), detail);
  if (write(2, line, (size_t)n) < 0) { /* nothing more to say */
  }
  signal(SIGSEGV, SIG_DFL); /* the access faults again and ends the UE */
}

static void on_segv(int sig, siginfo_t *info, void *vctx) {
  ucontext_t *uc = vctx;
  int64_t page = svm_page_of(info->si_addr);
  if (page < 0) {
    hw_signal_chain(&prev_segv, sig, info, vctx);
    return;
  }
  int saved_errno = errno;
  int write = (uc->uc_mcontext.gregs[REG_ERR] & PF_WRITE) != 0;
  SVM_COUNT(faults);
  if (timing_enabled) {
    timing_enter();
    /* With --svm-check a lazy page faults again after every acquire: those
     * stand for cache misses, which the model does not charge. */
    int refault = svm_g.check && svm_g.model[page] == SVM_LAZY_RELEASE && svm_g.touched[page];
    if (!refault) timing_cycles(rcce_job()->hdr->chip.time.svm_fault_cycles);
  }
  svm_g.touched[page] = 1;
  if (svm_g.departed) segfault("SVM access at %p after RCCE_finalize", info->si_addr);
  else if (!svm_g.model[page])
    segfault("access to %p, which lies in no svm_alloc area (never allocated, or freed)", info->si_addr);
  else if (svm_g.readonly[page] && write)
    segfault("write to %p in a read-only SVM area (svm_protect_readonly)", info->si_addr);
  else if (svm_g.readonly[page]) svm_map((size_t)page, SVM_MAPPED_READ);
  else if (svm_g.model[page] == SVM_LAZY_RELEASE && svm_g.check) svm_cache_fault((size_t)page, write);
  else if (svm_g.model[page] == SVM_LAZY_RELEASE)
    svm_map((size_t)page, SVM_MAPPED_WRITE); /* [SVM-2012] sec. 6.2: stays mapped */
  else {
    /* Requests for the page wait (serve) from here until the access has
     * executed: until the single-step trap after the faulting instruction. */
    svm_g.wanted = page;
    acquire((size_t)page);
    svm_map((size_t)page, SVM_MAPPED_WRITE);
    if (svm_g.nheld < (int)(sizeof svm_g.held / sizeof svm_g.held[0])) svm_g.held[svm_g.nheld++] = page;
    svm_g.wanted = -1;
    uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
    svm_g.trap_armed = 1;
  }
  if (timing_enabled) timing_leave();
  errno = saved_errno;
}

static void on_trap(int sig, siginfo_t *info, void *vctx) {
  ucontext_t *uc = vctx;
  if (!svm_g.trap_armed) {
    hw_signal_chain(&prev_trap, sig, info, vctx);
    return;
  }
  int saved_errno = errno;
  uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
  svm_g.trap_armed = 0;
  svm_g.nheld = 0;
  struct svm_request r;
  mb_enter();
  while (ring_pop(&deferred, &r)) ring_push_unique(&incoming, r);
  mailbox_leave();
  mailbox_kick();
  mailbox_dispatch();
  errno = saved_errno;
}

int svm_fault_start(void) {
  unsigned cap =
      4u * (unsigned)rcce_ue_count() + 16; /* one request per requester (copies merge), plus stale ones of one drain */
  incoming = (struct request_ring){calloc(cap, sizeof(struct svm_request)), 0, 0, cap};
  deferred = (struct request_ring){calloc(cap, sizeof(struct svm_request)), 0, 0, cap};
  if (!incoming.r || !deferred.r) return -1;
  mailbox_set_system(on_system_mail, serve_requests);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_NODEFER; /* a handler reached from the fault may fault again */
  sa.sa_sigaction = on_segv;
  if (sigaction(SIGSEGV, &sa, &prev_segv) != 0) return -1;
  sa.sa_flags = SA_SIGINFO;
  sa.sa_sigaction = on_trap;
  return sigaction(SIGTRAP, &sa, &prev_trap);
}

void svm_fault_depart(void) {
  /* Close the mailboxes first: from now on no request can reach this UE and
   * hand it a page back.  Then give up every owned page (waiters see the
   * vector entry cleared and take it), and count the departure: UEs whose
   * request this UE took with it ask again (acquire). */
  mailbox_close();
  mmap(svm_g.base, svm_g.npages * SVM_PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
       0);
  memset(svm_g.mapped, 0, svm_g.npages);
  for (size_t p = 0; p < svm_g.npages; p++) {
    int32_t mine = me1();
    __atomic_compare_exchange_n(&svm_g.owner[p], &mine, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&svm_g.pool->departures, 1, __ATOMIC_SEQ_CST);
  for (int u = 0; u < rcce_ue_count(); u++) hw_ring(rcce_job(), u);
}

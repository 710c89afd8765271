/*
 * mailbox layer: MetalSVM's asynchronous mailboxes ([SVM-2012] sec. 5 (docs/references.md);
 * [METALSVM-2011] sec. V), above rcce.
 *
 * Slots.  UE r's MPB holds one 32-byte line per sending UE s at line
 * mailbox_g.slot_line + s.  Bytes 0..27 carry the mail, the word at byte 28 is the
 * header: bit 0 the send flag, bits 8..15 the length, bits 16..23 the kind.
 * Single writer (s) and single reader (r): s waits for the flag to be clear,
 * writes the mail, then sets the flag; r copies the mail, then clears the
 * flag (the "toggle" of [SVM-2012] sec. 5).  Remote write, local read.
 *
 * Doorbells.  After setting the flag s sets bit s of r's interrupt status
 * (mailbox_ue_shared.gic_pending, the SCC's global interrupt controller keeps one per
 * core) and, when that status was clear, sends r the doorbell signal; r's
 * handler takes the status and checks only the slots whose bits were set.
 * Without doorbells (rccerun --mailbox poll) r checks every slot at each tick
 * of a 1 ms timer and while it waits.
 *
 * Dispatch runs in two phases: drain (copy mails out of the slots into this
 * process: user mails into a queue, system mails to the svm layer's receive
 * function; never blocks or sends) and process (the user handler, the svm
 * layer's process function; may send).  A doorbell that arrives while this
 * process is inside a slot or queue operation is deferred to its end.
 */
#ifndef OPENSCC_MAILBOX_INTERNAL_H
#define OPENSCC_MAILBOX_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mailbox_shared.h"

#include "../rcce/rcce_iface.h"
#include "scc_mailbox.h"

enum mb_kind { MB_KIND_USER = 0, MB_KIND_SYSTEM = 1 };

#define MB_HEADER_OFF 28
#define MB_FLAG_FULL 1u
#define MB_QUEUE_CAP 512 /* user mails taken out of the slots, not yet received */
/* Polling mode: the timer interrupt that makes a UE check all its slots. */
#define MB_TICK_NS 1000000L

struct mb_mail {
  int16_t src;
  uint8_t len, kind;
  unsigned char data[MAILBOX_MAX_LEN];
  uint64_t stamp_ps; /* model mode: the sender's virtual time when it wrote the mail */
};

struct mb_state {
  int ready;
  int irq;                       /* doorbells (else polling) */
  int signo;                     /* the doorbell signal */
  uint64_t slot_line;            /* first slot's line in every MPB */
  struct mailbox_ue_shared *ues; /* every UE's block (mailbox_shared.h), by UE */
  void (*user_handler)(int src, const void *msg, size_t len);
  /* The svm layer: receive runs while draining (must not send or block;
   * returns -1 to leave the mail in its slot), process afterwards. */
  int (*system_receive)(int src, const void *msg, size_t len, uint64_t stamp_ps);
  void (*system_process)(void);
  struct mb_mail queue[MB_QUEUE_CAP];
  unsigned qhead, qtail; /* ring of user mails */
  volatile sig_atomic_t critical, deferred, processing, in_handler;
  volatile sig_atomic_t more; /* an upper layer queued work for the process phase (mailbox_kick) */
};

extern struct mb_state mailbox_g;

/* The header word of UE owner's slot for mails from UE sender. */
static inline volatile uint32_t *mb_header(int owner, int sender) {
  return (volatile uint32_t *)(rcce_mpb_of(owner) + (mailbox_g.slot_line + (uint64_t)sender) * rcce_line_bytes() +
                               MB_HEADER_OFF);
}
static inline unsigned char *mb_payload(int owner, int sender) {
  return rcce_mpb_of(owner) + (mailbox_g.slot_line + (uint64_t)sender) * rcce_line_bytes();
}

/* Count one event in this UE's counters (safe against our own handlers). */
#define MB_COUNT(field) __atomic_fetch_add(&mailbox_g.ues[rcce_my_ue()].field, 1, __ATOMIC_RELAXED)

/* Critical sections against this process's own doorbell handler. */
static inline void mb_enter(void) {
  mailbox_g.critical++;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
void mailbox_leave(void);

/* doorbell.c */
int mailbox_doorbell_start(void); /* signal handler, and the timer when polling */
void mailbox_doorbell_stop(void);
void mailbox_ring_doorbell(int dest); /* after a mail to dest was placed */
void mailbox_dispatch(void);          /* drain and process what is pending now */
void mailbox_kick(void);              /* the process phase has work without a new mail */
int mailbox_pending(void);            /* whether a drain would find something */

/* mailbox.c, for the svm layer. */
/* Send a mail; to a UE that has left: MAILBOX_ERROR_GONE, reported for user mails only. */
int mailbox_send_kind(int dest, const void *msg, size_t len, int kind);
/* Mark this UE's mailboxes closed (it is leaving): senders get
 * MAILBOX_ERROR_GONE from now on.  RCCE_finalize does it; the svm layer does
 * it earlier, before giving up its pages. */
void mailbox_close(void);
void mailbox_set_system(int (*receive)(int, const void *, size_t, uint64_t), void (*process)(void));
/* Model mode: taking a mail from src stamped at stamp_ps costs the
 * interrupt and one mailbox check (doorbells) or a sweep over all mailboxes
 * (polling), and its line's read (docs/svm.md "Model mode").  A consumer
 * that waits for it first moves its clock to the stamp; an asynchronous one
 * (inside timing_interrupt_enter/leave) works at the stamp. */
void mailbox_charge_arrival(int src, uint64_t stamp_ps);
void mailbox_charge_async(int src, uint64_t stamp_ps);
/* Wait (spin, then sleep) until cond(arg) or mail is pending; dispatches it. */
void mailbox_wait(int (*cond)(void *), void *arg, const struct hw_wait_desc *why);
/* Take the slot of `sender` into the queue or the system receiver; 1 when a
 * mail was taken, 0 when the slot is empty or the mail must stay. */
int mailbox_take_slot(int sender);
int mailbox_queue_pop(struct mb_mail *out);

#endif

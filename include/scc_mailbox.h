/*
 * scc_mailbox.h - MetalSVM's asynchronous mailbox system ([SVM-2012] sec. 5 (docs/references.md),
 * [METALSVM-2011]), as OpenSCC offers it to RCCE programs
 * (docs/svm.md "Mailboxes").
 *
 * Every UE keeps one 32-byte mailbox per sending UE in its own MPB (48 lines
 * = 1.5 KB at 48 UEs; the rest of the MPB stays RCCE's).  A sender writes a
 * mail of up to 28 bytes into its mailbox at the receiver and rings the
 * receiver's doorbell -- the SCC's global interrupt controller raises an
 * interrupt that names the sender -- so the receiver checks only the mailbox
 * that rang.  With `rccerun --mailbox poll` there are no doorbells: receivers
 * check every mailbox at each timer tick and while they wait.
 */
#ifndef SCC_MAILBOX_H
#define SCC_MAILBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

/* Largest mail: a 32-byte line less the 4-byte header word. */
#define MAILBOX_MAX_LEN 28

/* mailbox_recv flags. */
#define MAILBOX_NONBLOCK 1

/* Return codes: 0 success, MAILBOX_EMPTY from a non-blocking receive that
 * found nothing, negative values are errors (mailbox_error_string). */
#define MAILBOX_SUCCESS 0
#define MAILBOX_EMPTY 1
#define MAILBOX_ERROR_NOT_INIT (-1) /* mailbox_init not called (or RCCE_init not called before it) */
#define MAILBOX_ERROR_DEST (-2)     /* destination is no UE of the job */
#define MAILBOX_ERROR_LEN (-3)      /* mail longer than MAILBOX_MAX_LEN */
#define MAILBOX_ERROR_ARG (-4)      /* NULL pointer or unknown flag */
#define MAILBOX_ERROR_MPB (-5)      /* mailbox_init: no room for the mailboxes in the MPB */
#define MAILBOX_ERROR_GONE (-6)     /* destination has left (RCCE_finalize) */
#define MAILBOX_ERROR_HANDLER (-7)  /* mailbox_recv while a handler takes the mails, or from a handler */
#define MAILBOX_ERROR_BUSY (-8)     /* mailbox_init while iRCCE requests are pending */

/* Collective, after RCCE_init: reserve the mailboxes (taken from the end of
 * the basic interface's send buffer, so RCCE_chunk shrinks by 32 B per UE)
 * and start taking doorbells.  Calling it again returns MAILBOX_SUCCESS. */
int mailbox_init(void);

/* Write a mail of len <= MAILBOX_MAX_LEN bytes to UE dest (itself allowed).
 * Blocks only while the previous mail to dest is still unread. */
int mailbox_send(int dest, const void *msg, size_t len);

/* Take the next mail: *src = sender, msg gets *len bytes (give a buffer of
 * MAILBOX_MAX_LEN).  Mails from one sender arrive in the order sent.
 * flags 0 blocks until a mail arrives; MAILBOX_NONBLOCK returns
 * MAILBOX_EMPTY at once when none is there. */
int mailbox_recv(int *src, void *msg, size_t *len, int flags);

/* Take every mail in fn, called asynchronously when a doorbell rings (in
 * signal context, as MetalSVM's interrupt handler) or, when polling, at
 * timer ticks and in waits.  fn may call mailbox_send, not mailbox_recv; it
 * must be async-signal-safe otherwise.  NULL returns to mailbox_recv. */
int mailbox_set_handler(void (*fn)(int src, const void *msg, size_t len));

/* What a return code means. */
const char *mailbox_error_string(int code);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

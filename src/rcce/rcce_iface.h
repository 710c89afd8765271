/*
 * What the layers above rcce (ircce, mailbox, svm) use of it: who this UE
 * is, error reporting, MPB lines and finalize hooks, message counting, and
 * the transfer engine's calls.  struct rcce_state and the transfer queues
 * stay inside rcce (rcce_internal.h); docs/architecture.md "The rcce
 * interface".
 */
#ifndef OPENSCC_RCCE_IFACE_H
#define OPENSCC_RCCE_IFACE_H

#include "RCCE.h"
#include "RCCE_lib.h"

#include <stddef.h>
#include <stdint.h>

#include "../hw/hosts.h"
#include "../hw/segment.h"
#include "../hw/wait.h"
#include "../timing/timing.h"
#include "range_alloc.h"

/* --- this UE and its job (from RCCE_init on) ----------------------------- */
int rcce_my_ue(void);
int rcce_ue_count(void);
int rcce_my_core(void);
struct hw_job *rcce_job(void);
uint32_t rcce_line_bytes(void); /* RCCE_LINE_SIZE */
int rcce_running(void);         /* RCCE_init done, RCCE_finalize not yet */
int rcce_basic_interface(void); /* RCCE_init done for the basic (not gory) interface */
int rcce_big_flags(void);       /* built without -DSINGLEBITFLAGS */
static inline unsigned char *rcce_mpb_of(int ue) { return (unsigned char *)RCCE_comm_buffer[ue]; }

/* A copy core's start and end (copy layer): attached to its job with its
 * clock, outside RCCE's world (rcce_ue_count does not count it). */
void rcce_init_service(void);
void rcce_finalize_service(void);

/* --- errors ------------------------------------------------------------- */
/* Return code, printed when debugging is on for the category. */
int rcce_error(int category, int code, const char *where, const char *detail_fmt, ...)
    __attribute__((format(printf, 4, 5)));
int rcce_check_ue(int ue, const char *where);
/* RCCE_ERROR_ID etc. for a peer of the basic interface (not me, in range, initialised). */
int rcce_check_basic_peer(int peer, const char *where);
/* RCCE_SUCCESS, or `code` (RCCE_ERROR_SOURCE / _TARGET) for a NULL buffer of bytes > 0. */
int rcce_check_buffer(const void *buf, size_t bytes, int code, const char *where, const char *what);
/* The layers above: return code; with RCCE_DEBUG_COMM set, print "WHERE on UE n: DETAIL". */
int rcce_report(int code, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Exit status of a UE stopped by rcce_fatal. */
#define RCCE_FATAL_STATUS 1
/* Stop this UE: print "WHAT on UE n: DETAIL" and exit with RCCE_FATAL_STATUS
 * (docs/errors.md lists the callers).  Safe in SVM's page-fault handler. */
_Noreturn void rcce_fatal(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- MPB lines, finalize hooks, counting --------------------------------- */
/* A fixed share of `lines` lines at the same offset of every UE's MPB: the
 * end of the basic interface's send buffer (RCCE_chunk shrinks), or free
 * lines of a gory program.  Returns the line offset, or -1 when it does not
 * fit.  Every UE must make the same calls in the same order. */
int64_t rcce_reserve_mpb_lines(uint64_t lines);
/* Run fn at the start of RCCE_finalize (last registered runs first). */
int rcce_at_finalize(void (*fn)(void));
/* Count a message sent to or received from peer (and record it for --trace). */
void rcce_count_message(int sending, int peer, size_t size);

/* --- flags ---------------------------------------------------------------- */
/* Tagged flag payload beside the 4-byte value ([SCC-2BOARD] sec. V (docs/references.md)). */
#define RCCE_TAG_BYTES (RCCE_LINE_SIZE - 4)
/* Where the payload of big flag `flag` starts in every UE's MPB (RCCE_SUCCESS),
 * or the flag's error code (not reported). */
int rcce_flag_payload_offset(RCCE_FLAG flag, uint32_t *off);

/* --- blocking messages of the basic interface (library flags and buffer) -- */
/* size RCCE_ANY_LENGTH_INTERNAL: a receive of any size (into a buffer the
 * caller made large enough; rcce_last_recv_size tells it).  pipelined: the
 * sender asks for the two-half protocol (iRCCE_ssend).  test != NULL: a
 * polling receive that sets *test and returns at once when nothing waits. */
#define RCCE_ANY_LENGTH_INTERNAL ((size_t)-1)
int rcce_basic_send(const char *priv, size_t size, int dest, int pipelined);
int rcce_basic_recv(char *priv, size_t size, int src, int *test);
size_t rcce_last_recv_size(void);
/* One copy into my send buffer announced to every other UE, each taking it
 * with an ordinary receive (iRCCE_msend); possible when nothing is queued,
 * under local put, for a message that fits the buffer and is not tagged. */
int rcce_multicast_possible(size_t size);
int rcce_multicast(const char *buf, size_t size);

/* --- the transfer engine (xfer.c) ----------------------------------------- */
/* One message in flight, opaque above rcce; it lives in the caller's storage
 * (an iRCCE request) from start until it is done or cancelled. */
struct rcce_xfer;
struct rcce_link;
#define RCCE_XFER_STORAGE_WORDS 22
struct rcce_xfer_storage {
  long long words[RCCE_XFER_STORAGE_WORDS];
};
static inline struct rcce_xfer *rcce_xfer_in(struct rcce_xfer_storage *s) { return (struct rcce_xfer *)(void *)s; }

/* Start a transfer over the basic interface's flags and send buffer. */
void rcce_xfer_start_basic(struct rcce_xfer *x, char *priv, size_t size, int peer, int sending);
/* The basic interface's send buffer in UE ue's MPB (where its chunks travel). */
t_vcharp rcce_basic_buffer_of(int ue);
int rcce_xfer_done(const struct rcce_xfer *x);
size_t rcce_xfer_size(const struct rcce_xfer *x); /* a receive of any length learns it */
int rcce_xfer_error(const struct rcce_xfer *x);   /* RCCE_SUCCESS, or why it failed */
/* Queue a started transfer and move the queues; 1 when it is already complete. */
int rcce_xfer_submit(struct rcce_xfer *x);
/* Move every queue head as far as possible without blocking. */
void rcce_xfer_progress(void);
/* Block until x is complete (moving the queue in front of it). */
void rcce_xfer_wait(struct rcce_xfer *x);
/* Sleep until some queue head (or the upper layer's work) can move, after moving them all. */
void rcce_xfer_idle(void);
/* Whether a queue head (or the upper layer's work) can move now. */
int rcce_xfer_can_move(void);
/* Whether x is in one of the queues (found by address, not by its contents). */
int rcce_xfer_is_queued(const struct rcce_xfer *x);
/* Whether x heads its queue (the transfer under way); whether receives from src are queued. */
int rcce_xfer_is_head(const struct rcce_xfer *x);
int rcce_xfer_recvs_queued_from(int src);
/* Remove a queued transfer that has not started; 1 when removed. */
int rcce_xfer_cancel(struct rcce_xfer *x);
/* Whether any send is queued; any receive is queued or waits in the upper layer. */
int rcce_xfer_sends_queued(void);
int rcce_xfer_recvs_pending(void);
/* Transfers queued plus the upper layer's waiting work. */
int rcce_xfer_requests_pending(void);
/* Block until no send is queued / no receive is pending (rcce_xfer_recvs_pending). */
void rcce_xfer_drain_sends(void);
void rcce_xfer_drain_all_recvs(void);
/* Whether a message of the basic interface from src waits that no queued
 * receive will take. */
int rcce_xfer_waiting_from(int src);
/* An upper layer's work that waits on this UE's MPB too (iRCCE's any-source
 * receives): `progress` runs on every progress of the queues while `waiting`
 * (the layer's count, changed by rcce_xfer_extra_waiting) is not zero, and
 * `can_move` says whether it can move. */
void rcce_xfer_set_extra_work(void (*progress)(void), int (*can_move)(void));
void rcce_xfer_extra_waiting(int delta);

/* Polling calls (iRCCE_*_test, *_push, iRCCE_test_all/any, RCCE_recv_test):
 * rcce_xfer_poll_start moves the queues once; rcce_xfer_poll_end says
 * whether the poll found its work done.  A run of polls that neither found
 * work done nor moved a step spends the wait budget like a blocking wait
 * (hw_poll_idle: spin, yield, then nap until a queue head, or link l's next
 * step when l is given, can move), so tight polling loops let peers run. */
unsigned long rcce_xfer_poll_start(void);
void rcce_xfer_poll_end(unsigned long started, int done, const struct rcce_link *l);

#endif

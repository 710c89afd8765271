/*
 * svm layer: MetalSVM's shared virtual memory ([SVM-2012] sec. 6 (docs/references.md); [METALSVM-2011]
 * "The path to MetalSVM", section VI), above the mailbox layer.
 *
 * Memory.  Every UE reserves the same window of address space (svm_init);
 * svm_alloc hands out pages of it, the same in every UE (each UE runs the
 * same allocator on the same collective calls).  Page i of the window gets
 * its frame from the SVM pool at the end of the job segment at its first
 * touch (frames.c) and is mapped from the segment's file, so all UEs map one
 * frame.  The pool starts with its tables: frame of every page, owner vector
 * ([SVM-2012] Fig. 5: in off-die shared memory), frame use, the collective
 * board.  Zero means "none" in every table, so a fresh segment is ready.
 *
 * Strong model ([SVM-2012] sec. 6.1), fault.c: a page is mapped in its
 * owner only; an access elsewhere faults, the faulting UE mails a request to
 * the owner named by the owner vector and waits; the owner revokes its
 * mapping, flushes, writes the new owner into the vector and mails back; the
 * faulting UE maps the page and the access completes.  A request reaching a
 * UE that no longer owns the page is forwarded to the current owner (seed
 * 000 section VI).  A UE keeps a page it just got until the faulting
 * instruction has executed (a single-step trap), so ownership cannot bounce
 * away before any access was made.
 *
 * Stale requests and departures.  A request can outlive its purpose: its
 * requester took the page itself meanwhile (the owner left), or got it
 * through an earlier copy.  So each UE publishes the page it faults on
 * (pool want[]), and a request whose requester no longer wants the page is
 * dropped, never served: a page is only handed to a UE that waits for it,
 * never to one that has left.  A request can also be lost: mails to a UE
 * that is leaving are dropped.  A leaving UE first closes its mailboxes,
 * then gives up its pages, then counts itself in the pool's departures; a
 * faulting UE that sees that count change asks the current owner again.
 */
#ifndef OPENSCC_SVM_INTERNAL_H
#define OPENSCC_SVM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../mailbox/mailbox_internal.h"
#include "svm_shared.h"
#include "scc_svm.h"

/* Where every UE reserves the window (after the job segment's hint). */
#define SVM_WINDOW_HINT ((void *)0x500000000000ULL) /* clear of ASan's allocator at 0x6000... */

enum svm_prot { SVM_MAPPED_NONE = 0, SVM_MAPPED_READ = 1, SVM_MAPPED_WRITE = 2 };

/* A collective call as posted on the board (svm_g.c). */
struct svm_call {
  uint64_t seq;
  int32_t op;
  int32_t arg_model;
  uint64_t arg_a, arg_b;
};

/* The pool's header, at the start of the SVM pool. */
struct svm_pool_header {
  _Atomic uint32_t lock; /* the frame allocator's lock (a test-and-set register on the SCC) */
  uint32_t pad;
  uint64_t frames_allocated;     /* statistics, under the lock */
  uint64_t mc_hint[CHIP_MAX_MC]; /* lowest frame of each controller that may be free */
  struct svm_call board[HW_MAX_UES];
  /* Strong model bookkeeping (fault.c; not part of [SVM-2012]'s protocol, so
   * model mode does not charge it): the page each UE is faulting on, + 1
   * (0: none), and how many UEs have left (RCCE_finalize). */
  _Atomic int64_t want[HW_MAX_UES];
  _Atomic uint32_t departures;
};

/* This UE's view (one per process). */
struct svm_state {
  int ready, departed;
  struct svm_ue_shared *me; /* this UE's block (svm_shared.h) */
  size_t npages;            /* pages in the window = frames in the pool */
  unsigned char *base;      /* the window */
  struct svm_pool_header *pool;
  _Atomic uint32_t *frame_of; /* per page: frame + 1, 0 none */
  _Atomic int32_t *owner;     /* per page: owner UE + 1, 0 none (strong pages) */
  unsigned char *frame_used;  /* per frame */
  unsigned char *frames;      /* frame 0 in this process's mapping of the segment */
  uint64_t frames_file_off;   /* frame 0's offset in the segment file */
  uint64_t frames_shared_off; /* frame 0's offset from the shared region's start (memory controller map) */
  uint64_t owner_shared_off;  /* the owner vector's offset from there */
  struct range_alloc vspace;  /* pages of the window */
  unsigned char *model;       /* per page: 0 not allocated, SVM_STRONG, SVM_LAZY_RELEASE */
  unsigned char *readonly;    /* per page */
  unsigned char *mapped;      /* per page: enum svm_prot in this UE */
  uint32_t *alloc_pages;      /* per first page of an area: its length in pages */
  unsigned char *touched;     /* per page: this UE has faulted on it before (model mode charges the first) */
  /* rccerun --svm-check (cache.c): private copies of lazy-release pages. */
  int check;
  unsigned char *twins; /* per page: the copy before its first write since the last release */
  uint32_t *copies;     /* pages with a copy, in the order taken */
  size_t ncopies;
  uint64_t calls; /* collective calls made */
  int last_error;
  /* Strong model, fault.c. */
  int64_t wanted;                /* page this UE waits to own, or -1 */
  volatile sig_atomic_t granted; /* the grant mail for `wanted` arrived ... */
  int grant_src;                 /* ... from this UE, */
  uint64_t grant_stamp;          /* ... written at this virtual time */
  int64_t held[8];               /* pages got since the last executed access */
  int nheld, trap_armed;
};

extern struct svm_state svm_g;

/* Count one event in this UE's svm counters (safe against its own handlers). */
#define SVM_COUNT(field) __atomic_fetch_add(&svm_g.me->field, 1, __ATOMIC_RELAXED)

/* The window's pages. */
static inline unsigned char *svm_page_addr(size_t page) { return svm_g.base + page * SVM_PAGE_SIZE; }
/* The window's page holding p, or -1. */
static inline int64_t svm_page_of(const void *p) {
  const unsigned char *a = p;
  if (!svm_g.base || a < svm_g.base || a >= svm_g.base + svm_g.npages * SVM_PAGE_SIZE) return -1;
  return (int64_t)((size_t)(a - svm_g.base) / SVM_PAGE_SIZE);
}

/* frames.c: the page's frame, taken at the first touch from the memory
 * controller nearest to this UE's core ([SVM-2012] sec. 6.3); a strong page
 * gets this UE as its first owner.  Returns the frame. */
uint32_t svm_frame_of(size_t page);
/* Give back the frames of pages [first, first+n) (svm_free). */
void svm_frames_release(size_t first, size_t n);
/* Map page as prot (enum svm_prot) from its frame; 0 or -1. */
int svm_map(size_t page, int prot);

/* cache.c (rccerun --svm-check): the fault of a lazy-release page, release
 * (this UE's written bytes into the frames), acquire (release, then drop
 * every copy), and dropping the copies of pages [first, first+n). */
void svm_cache_fault(size_t page, int write);
void svm_cache_release(void);
void svm_cache_acquire(void);
void svm_cache_forget(size_t first, size_t n);

/* fault.c */
int svm_fault_start(void);   /* page-fault and trap handlers, mailbox hooks */
void svm_fault_depart(void); /* give up every owned page (RCCE_finalize) */

#endif

/*
 * scc_svm.h - MetalSVM's shared virtual memory ([SVM-2012] sec. 6 (docs/references.md)), in user
 * space over OpenSCC's mailboxes (docs/svm.md).
 *
 * svm_alloc reserves the same virtual addresses in every UE; a page gets its
 * frame at the first touch, from the memory controller nearest to the
 * toucher's tile (affinity-on-first-touch, [SVM-2012] sec. 6.3).
 *   SVM_STRONG        one owner per page at a time may read or write it; any
 *                     other access faults and moves the ownership over the
 *                     mailbox system ([SVM-2012] sec. 6.1).
 *   SVM_LAZY_RELEASE  pages stay mapped everywhere; writes are visible to a
 *                     UE after the writer's release (svm_unlock, svm_flush,
 *                     svm_barrier) and its own acquire (svm_lock,
 *                     svm_invalidate, svm_barrier) ([SVM-2012] sec. 6.2).
 */
#ifndef SCC_SVM_H
#define SCC_SVM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

#define SVM_STRONG 1
#define SVM_LAZY_RELEASE 2

/* The SCC's page size: the unit of ownership and of frame allocation. */
#define SVM_PAGE_SIZE 4096

#define SVM_SUCCESS 0
#define SVM_ERROR_NOT_INIT (-1)       /* svm_init not called */
#define SVM_ERROR_ARG (-2)            /* bad size, model, lock id or address */
#define SVM_ERROR_NOMEM (-3)          /* no address space or frames left (rccerun --svm-size) */
#define SVM_ERROR_NOT_COLLECTIVE (-4) /* UEs called a collective function with different arguments */
#define SVM_ERROR_MAILBOX (-5)        /* the mailbox system could not start (svm_init) */

/* Collective, after RCCE_init; starts the mailbox system if needed. */
int svm_init(void);
/* Collective: reserve bytes (rounded up to pages) of address space, the same
 * address in every UE.  NULL on error (svm_last_error tells which). */
void *svm_alloc(size_t bytes, int model);
/* Collective: give back an area svm_alloc returned, with its frames. */
int svm_free(void *p);
/* Release: this UE's writes reach memory (flush the write-combine buffer). */
void svm_flush(void);
/* Acquire: drop cached copies, so the next reads see released writes. */
void svm_invalidate(void);
/* svm_flush, barrier of all UEs, svm_invalidate. */
int svm_barrier(void);
/* The test-and-set lock of UE id (0..RCCE_num_ues()-1): acquire, then
 * invalidate; flush, then release. */
int svm_lock(int id);
int svm_unlock(int id);
/* Collective: make whole pages of [p, p+bytes) read-only in every UE; a
 * later write to them stops the UE with an error naming the address. */
int svm_protect_readonly(void *p, size_t bytes);

/* OpenSCC extension: the memory controller behind p's page frame (0..3 on
 * the SCC), or -1 when the page has no frame yet or p is no SVM address. */
int svm_page_controller(const void *p);

/* The error of the last svm_alloc that returned NULL. */
int svm_last_error(void);
const char *svm_error_string(int code);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

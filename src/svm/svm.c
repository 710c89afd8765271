/* SVM: setup, the collective calls (checked to be collective), release and
 * acquire (layout and protocols in svm_internal.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "svm_internal.h"

struct svm_state svm_g = {.wanted = -1};

enum svm_op { OP_INIT = 1, OP_ALLOC, OP_FREE, OP_READONLY };

const char *svm_error_string(int code) {
  switch (code) {
    case SVM_SUCCESS: return "success";
    case SVM_ERROR_NOT_INIT: return "svm_init was not called";
    case SVM_ERROR_ARG: return "bad size, model, lock id or address";
    case SVM_ERROR_NOMEM: return "no SVM address space or frames left";
    case SVM_ERROR_NOT_COLLECTIVE: return "UEs called a collective SVM function differently";
    case SVM_ERROR_MAILBOX: return "the mailbox system could not start";
    default: return "unknown SVM error";
  }
}

int svm_last_error(void) { return svm_g.last_error; }

static const char *op_name(int op) {
  switch (op) {
    case OP_INIT: return "svm_init";
    case OP_ALLOC: return "svm_alloc";
    case OP_FREE: return "svm_free";
    case OP_READONLY: return "svm_protect_readonly";
    default: return "nothing";
  }
}

static void describe(char *out, size_t n, const struct svm_call *c) {
  if (c->op == OP_ALLOC) snprintf(out, n, "svm_alloc(%llu, %d)", (unsigned long long)c->arg_a, c->arg_model);
  else if (c->op == OP_FREE) snprintf(out, n, "svm_free(%#llx)", (unsigned long long)c->arg_a);
  else if (c->op == OP_READONLY)
    snprintf(out, n, "svm_protect_readonly(%#llx, %llu)", (unsigned long long)c->arg_a, (unsigned long long)c->arg_b);
  else snprintf(out, n, "%s()", op_name(c->op));
}

/* Every UE posts its call on the board; all compare after a barrier, so all
 * reach the same verdict.  A UE that never calls leaves the others in the
 * barrier, where rccerun's deadlock report names it. */
static int collective(int op, int model, uint64_t a, uint64_t b) {
  struct svm_call mine = {++svm_g.calls, op, model, a, b};
  svm_g.pool->board[rcce_my_ue()] = mine;
  RCCE_barrier(&RCCE_COMM_WORLD);
  int odd = -1;
  for (int u = 1; u < rcce_ue_count() && odd < 0; u++)
    if (memcmp(&svm_g.pool->board[u], &svm_g.pool->board[0], sizeof mine) != 0) odd = u;
  struct svm_call first = svm_g.pool->board[0], other = odd > 0 ? svm_g.pool->board[odd] : first;
  RCCE_barrier(&RCCE_COMM_WORLD); /* nobody posts the next call before all have compared */
  if (odd < 0) return SVM_SUCCESS;
  char d0[96], d1[96];
  describe(d0, sizeof d0, &first);
  describe(d1, sizeof d1, &other);
  return rcce_report(SVM_ERROR_NOT_COLLECTIVE, op_name(op),
                     "not called collectively: UE 0 made call %llu %s, UE %d call %llu %s",
                     (unsigned long long)first.seq, d0, odd, (unsigned long long)other.seq, d1);
}

/* The pool: header, tables (frame of page, owner, frame use), frames. */
static int layout_pool(void) {
  const struct hw_header *h = rcce_job()->hdr;
  uint64_t head = hw_align_up(sizeof(struct svm_pool_header), 64), per_page = sizeof(uint32_t) + sizeof(int32_t) + 1;
  uint64_t n = h->svm_bytes > head ? (h->svm_bytes - head) / (SVM_PAGE_SIZE + per_page) : 0;
  while (n && hw_align_up(head + n * per_page, SVM_PAGE_SIZE) + n * SVM_PAGE_SIZE > h->svm_bytes) n--;
  if (!n) return -1;
  unsigned char *pool = hw_svm_pool(rcce_job());
  uint64_t tables = hw_align_up(head + n * per_page, SVM_PAGE_SIZE);
  svm_g.npages = (size_t)n;
  svm_g.pool = (struct svm_pool_header *)pool;
  svm_g.frame_of = (_Atomic uint32_t *)(pool + head);
  svm_g.owner = (_Atomic int32_t *)(pool + head + n * sizeof(uint32_t));
  svm_g.frame_used = pool + head + n * (sizeof(uint32_t) + sizeof(int32_t));
  svm_g.frames = pool + tables;
  svm_g.frames_file_off = h->svm_off + tables;
  svm_g.frames_shared_off = h->svm_off - h->shared_off + tables;
  svm_g.owner_shared_off = h->svm_off - h->shared_off + head + n * sizeof(uint32_t);
  return 0;
}

static void svm_depart(void) {
  if (svm_g.check) svm_cache_release(); /* the last writes reach memory */
  svm_fault_depart();
  svm_g.departed = 1;
}

int svm_init(void) {
  TIMING_SCOPE();
  if (!rcce_running()) return rcce_report(SVM_ERROR_NOT_INIT, "svm_init", "call RCCE_init first");
  if (svm_g.ready) return SVM_SUCCESS;
  if (hw_hosts_many(rcce_job())) /* one pool of page frames per host (docs/cluster.md) */
    return rcce_report(SVM_ERROR_NOT_INIT, "svm_init",
                       "shared virtual memory does not run across hosts (rccerun --hosts)");
  if (mailbox_init() != MAILBOX_SUCCESS)
    return rcce_report(SVM_ERROR_MAILBOX, "svm_init", "the mailbox system (needed for page ownership) did not start");
  svm_g.me = svm_ue_shared_of(rcce_job(), rcce_my_ue()); /* present: attach checked the layout hash */
  if (layout_pool() != 0)
    return rcce_report(SVM_ERROR_NOMEM, "svm_init", "the SVM pool of %llu bytes holds no page (rccerun --svm-size)",
                       (unsigned long long)rcce_job()->hdr->svm_bytes);
  size_t bytes = svm_g.npages * SVM_PAGE_SIZE;
  void *w =
      mmap(SVM_WINDOW_HINT, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (w != SVM_WINDOW_HINT) {
    if (w != MAP_FAILED) munmap(w, bytes);
    return rcce_report(SVM_ERROR_NOMEM, "svm_init",
                       "cannot reserve %zu bytes of address space at %p for the SVM window", bytes, SVM_WINDOW_HINT);
  }
  svm_g.base = w;
  timing_cache_window((uintptr_t)w, bytes, svm_g.frames_shared_off); /* cached in L1 only, written through */
  svm_g.model = calloc(svm_g.npages, 1);
  svm_g.readonly = calloc(svm_g.npages, 1);
  svm_g.mapped = calloc(svm_g.npages, 1);
  svm_g.alloc_pages = calloc(svm_g.npages, sizeof *svm_g.alloc_pages);
  svm_g.touched = calloc(svm_g.npages, 1);
  svm_g.check = rcce_job()->hdr->set.svm_check;
  if (svm_g.check) {
    svm_g.copies = calloc(svm_g.npages, sizeof *svm_g.copies);
    svm_g.twins = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  if (!svm_g.model || !svm_g.readonly || !svm_g.mapped || !svm_g.alloc_pages || !svm_g.touched ||
      (svm_g.check && (!svm_g.copies || svm_g.twins == MAP_FAILED)) ||
      rcce_range_alloc_init(&svm_g.vspace, svm_g.npages) || svm_fault_start() != 0)
    return rcce_report(SVM_ERROR_NOMEM, "svm_init", "out of memory for the page tables");
  rcce_at_finalize(svm_depart);
  int rc = collective(OP_INIT, 0, svm_g.npages, 0);
  svm_g.ready = rc == SVM_SUCCESS;
  svm_g.me->on = svm_g.ready;
  return rc;
}

void *svm_alloc(size_t bytes, int model) {
  TIMING_SCOPE();
  int rc = svm_g.ready ? collective(OP_ALLOC, model, bytes, 0)
                       : rcce_report(SVM_ERROR_NOT_INIT, "svm_alloc", "call svm_init first");
  if (rc == SVM_SUCCESS && (bytes == 0 || (model != SVM_STRONG && model != SVM_LAZY_RELEASE)))
    rc = rcce_report(SVM_ERROR_ARG, "svm_alloc",
                     "%zu bytes of model %d: give bytes > 0 and SVM_STRONG or SVM_LAZY_RELEASE", bytes, model);
  size_t n = (bytes + SVM_PAGE_SIZE - 1) / SVM_PAGE_SIZE;
  int64_t first = rc == SVM_SUCCESS ? rcce_range_alloc_low(&svm_g.vspace, n) : -1;
  if (rc == SVM_SUCCESS && first < 0)
    rc = rcce_report(SVM_ERROR_NOMEM, "svm_alloc",
                     "%zu pages asked, the SVM window has %llu free in one piece (rccerun --svm-size)", n,
                     (unsigned long long)rcce_range_largest_free(&svm_g.vspace));
  svm_g.last_error = rc;
  if (rc != SVM_SUCCESS) return NULL;
  memset(svm_g.model + first, model, n);
  svm_g.alloc_pages[first] = (uint32_t)n;
  timing_cycles((double)n * rcce_job()->hdr->chip.time.svm_reserve_page_cycles); /* page-table entries */
  return svm_page_addr((size_t)first);
}

/* The page of p when p lies in the window, else -1. */
int svm_free(void *p) {
  TIMING_SCOPE();
  if (!svm_g.ready) return rcce_report(SVM_ERROR_NOT_INIT, "svm_free", "call svm_init first");
  int rc = collective(OP_FREE, 0, (uint64_t)(uintptr_t)p, 0);
  if (rc != SVM_SUCCESS) return rc;
  int64_t first = svm_page_of(p);
  if (first < 0 || (unsigned char *)p != svm_page_addr((size_t)first) || !svm_g.alloc_pages[first])
    return rcce_report(SVM_ERROR_ARG, "svm_free", "%p was not returned by svm_alloc (or is freed already)", p);
  size_t n = svm_g.alloc_pages[first];
  if (svm_g.check) svm_cache_forget((size_t)first, n);
  mmap(p, n * SVM_PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  memset(svm_g.model + first, 0, n);
  memset(svm_g.touched + first, 0, n);
  memset(svm_g.readonly + first, 0, n);
  memset(svm_g.mapped + first, 0, n);
  svm_g.alloc_pages[first] = 0;
  rcce_range_free(&svm_g.vspace, (uint64_t)first);
  RCCE_barrier(&RCCE_COMM_WORLD); /* every UE has unmapped the area */
  if (rcce_my_ue() == 0) svm_frames_release((size_t)first, n);
  RCCE_barrier(&RCCE_COMM_WORLD); /* before anyone allocates again */
  return SVM_SUCCESS;
}

int svm_protect_readonly(void *p, size_t bytes) {
  TIMING_SCOPE();
  if (!svm_g.ready) return rcce_report(SVM_ERROR_NOT_INIT, "svm_protect_readonly", "call svm_init first");
  svm_flush(); /* everybody's writes reach memory before the pages freeze */
  int rc = collective(OP_READONLY, 0, (uint64_t)(uintptr_t)p, bytes);
  if (rc != SVM_SUCCESS) return rc;
  int64_t first = svm_page_of(p), last = bytes ? svm_page_of((unsigned char *)p + bytes - 1) : -1;
  for (int64_t q = first; q >= 0 && q <= last; q++)
    if (!svm_g.model[q]) last = -1;
  if (first < 0 || last < first)
    return rcce_report(SVM_ERROR_ARG, "svm_protect_readonly", "[%p, +%zu) is not inside svm_alloc areas", p, bytes);
  /* [SVM-2012] sec. 6.4 (docs/references.md): the pages lose their write permission everywhere;
   * nobody owns them any more, every UE may map them for reading. */
  for (int64_t q = first; q <= last; q++) {
    svm_g.readonly[q] = 1;
    if (svm_g.check && svm_g.model[q] == SVM_LAZY_RELEASE) svm_cache_forget((size_t)q, 1); /* the frame from now on */
    else if (svm_g.mapped[q] != SVM_MAPPED_NONE) svm_map((size_t)q, SVM_MAPPED_READ);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  return SVM_SUCCESS;
}

/* [SVM-2012] sec. 3: the SVM's pages are write-through, so a release only
 * flushes the write-combine buffer, and an acquire invalidates L1 lines
 * tagged MPBT (CL1INVMB).  This host keeps memory coherent, so both are
 * fences -- unless --svm-check keeps private copies (cache.c). */
void svm_flush(void) {
  if (svm_g.check) svm_cache_release();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  timing_cache_window_flush(); /* the write-combine buffer's line reaches memory */
}
void svm_invalidate(void) {
  TIMING_SCOPE();
  if (svm_g.check) svm_cache_acquire();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  timing_cycles(1); /* ref 1 "MPBT type": CL1INVMB takes one cycle */
  timing_cache_window_invalidate();
}

int svm_barrier(void) {
  TIMING_SCOPE();
  if (!svm_g.ready) return rcce_report(SVM_ERROR_NOT_INIT, "svm_barrier", "call svm_init first");
  svm_flush();
  RCCE_barrier(&RCCE_COMM_WORLD);
  svm_invalidate();
  return SVM_SUCCESS;
}

static int check_lock(int id, const char *where) {
  if (!svm_g.ready) return rcce_report(SVM_ERROR_NOT_INIT, where, "call svm_init first");
  if (id < 0 || id >= rcce_ue_count())
    return rcce_report(SVM_ERROR_ARG, where, "lock %d does not exist (0..%d)", id, rcce_ue_count() - 1);
  return SVM_SUCCESS;
}

int svm_lock(int id) {
  TIMING_SCOPE();
  int rc = check_lock(id, "svm_lock");
  if (rc != SVM_SUCCESS) return rc;
  RCCE_acquire_lock(id);
  svm_invalidate();
  return SVM_SUCCESS;
}

int svm_unlock(int id) {
  TIMING_SCOPE();
  int rc = check_lock(id, "svm_unlock");
  if (rc != SVM_SUCCESS) return rc;
  svm_flush();
  RCCE_release_lock(id);
  return SVM_SUCCESS;
}

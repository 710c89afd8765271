/* Page frames of the SVM pool: affinity-on-first-touch allocation ([SVM-2012] (docs/references.md)
 * section 6.3) and mapping frames into the window. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "svm_internal.h"

static void pool_lock(void) {
  volatile uint32_t *w = (volatile uint32_t *)&svm_g.pool->lock;
  if (timing_enabled)
    timing_tas_access(rcce_my_core()); /* [SVM-2012]: the scratch pad's lock is a test-and-set register */
  while (__atomic_exchange_n(w, 1, __ATOMIC_ACQUIRE) != 0)
    while (__atomic_load_n(w, __ATOMIC_RELAXED)) hw_cpu_relax();
}

static void pool_unlock(void) { __atomic_store_n(&svm_g.pool->lock, 0, __ATOMIC_RELEASE); }

static int frame_mc(size_t f) {
  return chip_shared_mc(&rcce_job()->hdr->chip, svm_g.frames_shared_off + (unsigned long long)f * SVM_PAGE_SIZE);
}

/* A free frame behind memory controller mc, or -1.  Frames below the
 * controller's hint are in use (svm_frames_release lowers it). */
static int64_t free_frame_at(int mc) {
  for (size_t f = svm_g.pool->mc_hint[mc]; f < svm_g.npages; f++)
    if (!svm_g.frame_used[f] && frame_mc(f) == mc) {
      svm_g.pool->mc_hint[mc] = f + 1;
      return (int64_t)f;
    }
  svm_g.pool->mc_hint[mc] = svm_g.npages;
  return -1;
}

/* Controllers by distance from this UE's tile; ties go to the lower
 * controller number (docs/svm.md "Affinity-on-first-touch"). */
static int64_t take_frame(void) {
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  int tried[CHIP_MAX_MC] = {0};
  for (int n = 0; n < c->n_mc; n++) {
    int best = -1;
    for (int m = 0; m < c->n_mc; m++) /* the shared region's controllers: board 0's (chip_shared_mc) */
      if (!tried[m] && (best < 0 || chip_mc_hops(c, rcce_my_core(), m) < chip_mc_hops(c, rcce_my_core(), best)))
        best = m;
    tried[best] = 1;
    int64_t f = free_frame_at(best);
    if (f >= 0) return f;
  }
  return -1;
}

uint32_t svm_frame_of(size_t page) {
  uint32_t f = __atomic_load_n(&svm_g.frame_of[page], __ATOMIC_ACQUIRE);
  if (f) return f - 1;
  pool_lock();
  f = __atomic_load_n(&svm_g.frame_of[page], __ATOMIC_ACQUIRE);
  if (!f) {
    int64_t got = take_frame();
    if (got < 0) {
      pool_unlock();
      /* A page fault has no caller to return an error to (docs/errors.md). */
      rcce_fatal("svm page fault", "no free SVM frame for page %zu (rccerun --svm-size)", page);
    }
    svm_g.frame_used[got] = 1;
    SVM_COUNT(frames);
    svm_g.pool->frames_allocated++;
    memset(svm_g.frames + (size_t)got * SVM_PAGE_SIZE, 0, SVM_PAGE_SIZE); /* a fresh page reads as zeros */
    timing_cycles(rcce_job()->hdr->chip.time.svm_frame_cycles);
    if (svm_g.model[page] == SVM_STRONG) __atomic_store_n(&svm_g.owner[page], rcce_my_ue() + 1, __ATOMIC_RELEASE);
    f = (uint32_t)got + 1;
    __atomic_store_n(&svm_g.frame_of[page], f, __ATOMIC_RELEASE);
  }
  pool_unlock();
  return f - 1;
}

void svm_frames_release(size_t first, size_t n) {
  pool_lock();
  for (size_t p = first; p < first + n; p++) {
    uint32_t f = __atomic_exchange_n(&svm_g.frame_of[p], 0, __ATOMIC_ACQ_REL);
    if (!f) continue;
    svm_g.frame_used[f - 1] = 0;
    int mc = frame_mc(f - 1);
    if (svm_g.pool->mc_hint[mc] > f - 1) svm_g.pool->mc_hint[mc] = f - 1;
    __atomic_store_n(&svm_g.owner[p], 0, __ATOMIC_RELEASE);
  }
  pool_unlock();
}

int svm_map(size_t page, int prot) {
  int p = prot == SVM_MAPPED_WRITE ? PROT_READ | PROT_WRITE : prot == SVM_MAPPED_READ ? PROT_READ : PROT_NONE;
  void *at = svm_page_addr(page);
  if (prot == SVM_MAPPED_NONE) {
    if (svm_g.mapped[page] != SVM_MAPPED_NONE && mprotect(at, SVM_PAGE_SIZE, PROT_NONE) != 0) return -1;
  } else if (svm_g.mapped[page] == SVM_MAPPED_NONE) {
    uint64_t off = svm_g.frames_file_off + (uint64_t)svm_frame_of(page) * SVM_PAGE_SIZE;
    if (mmap(at, SVM_PAGE_SIZE, p, MAP_SHARED | MAP_FIXED, rcce_job()->fd, (off_t)off) == MAP_FAILED) return -1;
  } else if (mprotect(at, SVM_PAGE_SIZE, p) != 0) return -1;
  svm_g.mapped[page] = (unsigned char)prot;
  return 0;
}

int svm_page_controller(const void *p) {
  int64_t page = svm_page_of(p);
  uint32_t f = page < 0 ? 0 : __atomic_load_n(&svm_g.frame_of[page], __ATOMIC_ACQUIRE);
  return f ? frame_mc(f - 1) : -1;
}

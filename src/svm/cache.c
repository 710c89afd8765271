/* rccerun --svm-check: lazy-release pages behave like the SCC's caches
 * ([SVM-2012] secs. 3 and 6.2 (docs/references.md)).  A UE reads a private copy of a page, taken
 * at its first access after its last acquire; its writes go to that copy
 * and reach the frame at its next release or acquire, byte by byte (the
 * write-combine buffer writes only the bytes written).  So a UE that reads
 * without an acquire sees stale data -- as on the SCC, and unlike the
 * coherent default -- and a program that forgets one fails here too.
 *
 * A copy's state is svm_g.mapped[page]: SVM_MAPPED_READ (clean, read-only),
 * SVM_MAPPED_WRITE (dirty; its twin, the copy as it was before the first
 * write, lies in the twin area, as in TreadMarks-style diffing). */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "svm_internal.h"

static unsigned char *twin(size_t page) { return svm_g.twins + page * SVM_PAGE_SIZE; }

static void unmap_pages(size_t first, size_t n) {
  mmap(svm_page_addr(first), n * SVM_PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
       0);
}

void svm_cache_fault(size_t page, int write) {
  unsigned char *at = svm_page_addr(page);
  if (svm_g.mapped[page] == SVM_MAPPED_NONE) {
    uint32_t f = svm_frame_of(page);
    mmap(at, SVM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    memcpy(at, svm_g.frames + (size_t)f * SVM_PAGE_SIZE, SVM_PAGE_SIZE);
    svm_g.copies[svm_g.ncopies++] = (uint32_t)page;
    svm_g.mapped[page] = SVM_MAPPED_READ;
    if (!write) mprotect(at, SVM_PAGE_SIZE, PROT_READ);
  } else if (write) {
    mprotect(at, SVM_PAGE_SIZE, PROT_READ | PROT_WRITE);
  }
  if (write) {
    memcpy(twin(page), at, SVM_PAGE_SIZE);
    svm_g.mapped[page] = SVM_MAPPED_WRITE;
  }
}

/* The bytes this UE wrote since the twin was taken, into the frame. */
static void write_back(size_t page) {
  const unsigned char *mine = svm_page_addr(page), *old = twin(page);
  unsigned char *frame = svm_g.frames + (size_t)svm_frame_of(page) * SVM_PAGE_SIZE;
  for (size_t w = 0; w < SVM_PAGE_SIZE; w += sizeof(uint64_t)) {
    uint64_t a, b;
    memcpy(&a, mine + w, sizeof a);
    memcpy(&b, old + w, sizeof b);
    if (a == b) continue;
    for (size_t i = w; i < w + sizeof(uint64_t); i++)
      if (mine[i] != old[i]) __atomic_store_n(&frame[i], mine[i], __ATOMIC_RELAXED);
  }
}

void svm_cache_release(void) {
  for (size_t i = 0; i < svm_g.ncopies; i++) {
    size_t p = svm_g.copies[i];
    if (svm_g.mapped[p] != SVM_MAPPED_WRITE) continue;
    write_back(p);
    mprotect(svm_page_addr(p), SVM_PAGE_SIZE, PROT_READ);
    svm_g.mapped[p] = SVM_MAPPED_READ;
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void svm_cache_acquire(void) {
  svm_cache_release(); /* write-through: this UE's writes are in memory before its copies go */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (size_t i = 0; i < svm_g.ncopies; i++) {
    size_t first = svm_g.copies[i], n = 1; /* runs of consecutive pages: one call each */
    while (i + 1 < svm_g.ncopies && svm_g.copies[i + 1] == first + n) {
      i++;
      n++;
    }
    unmap_pages(first, n);
    memset(svm_g.mapped + first, SVM_MAPPED_NONE, n);
  }
  svm_g.ncopies = 0;
}

void svm_cache_forget(size_t first, size_t n) {
  size_t kept = 0;
  for (size_t i = 0; i < svm_g.ncopies; i++)
    if (svm_g.copies[i] < first || svm_g.copies[i] >= first + n) svm_g.copies[kept++] = svm_g.copies[i];
  svm_g.ncopies = kept;
  unmap_pages(first, n);
  memset(svm_g.mapped + first, SVM_MAPPED_NONE, n);
}

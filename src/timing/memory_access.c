/* DDR3 accesses of a program built with `rccecc --model-build` (docs/model.md
 * "Memory"): GCC's kernel-address instrumentation in outline mode calls these
 * hooks at every load and store, with no sanitizer runtime behind them.
 * Accesses to the off-chip shared region (RCCE_shmalloc; uncached on the
 * SCC, so every one reaches a memory controller) are charged the DDR3
 * latency of chip_latency.c plus queueing at the controller and the links
 * (contention.c); other addresses outside the job segment (private memory,
 * cached on the SCC) go through the UE's caches (cache.c). */
#include <stddef.h>
#include <stdint.h>

#include "../openscc_api.h"
#include "timing_internal.h"

/* An AddressSanitizer build (-DOPENSCC_SANITIZE=ON) has the sanitizer's own
 * __asan_* runtime, which the hooks would replace; its model builds use no
 * kernel-address hooks (CMakeLists.txt), so it leaves them out. */
#ifndef __SANITIZE_ADDRESS__
/* The fast path of every hook: one compare against the shared region
 * (timing_fast.shared_lo/len, empty while the clock does not run), one flag, and
 * level 1's most recently used line of the set (timing_cache_repeat). */
__attribute__((noinline)) static void access_shared(uintptr_t addr, int write) {
  timing_ddr_word(addr - timing_fast.shared_lo, write);
}

static inline void access(uintptr_t addr, size_t size, int write) {
  if (addr - timing_fast.shared_lo < timing_fast.shared_len) access_shared(addr, write);
  else if (timing_fast.caches_on && !timing_cache_repeat(addr, size, write)) timing_access(addr, size, write);
}

/* __openscc_updateN: the load hook of a read-modify-write, renamed by
 * rccecc's block pricing (src/launch/blockcost/hooked_stores.py): GCC
 * checks the address once, so the store has no hook of its own. */
#define HOOKS(size)                                                            \
  OPENSCC_API void __asan_load##size##_noabort(uintptr_t addr);                \
  OPENSCC_API void __asan_store##size##_noabort(uintptr_t addr);               \
  OPENSCC_API void __openscc_update##size(uintptr_t addr);                     \
  void __asan_load##size##_noabort(uintptr_t addr) { access(addr, size, 0); }  \
  void __asan_store##size##_noabort(uintptr_t addr) { access(addr, size, 1); } \
  void __openscc_update##size(uintptr_t addr) {                                \
    access(addr, size, 0);                                                     \
    access(addr, size, 1);                                                     \
  }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)

OPENSCC_API void __asan_loadN_noabort(uintptr_t addr, size_t size);
OPENSCC_API void __asan_storeN_noabort(uintptr_t addr, size_t size);
OPENSCC_API void __asan_handle_no_return(void);

/* A larger access: one per word of the SCC's 32-bit cores (a line the cache
 * holds after the first word costs nothing for the others). */
void __asan_loadN_noabort(uintptr_t addr, size_t size) {
  for (size_t i = 0; i < size; i += 4) access(addr + i, size - i < 4 ? size - i : 4, 0);
}
void __asan_storeN_noabort(uintptr_t addr, size_t size) {
  for (size_t i = 0; i < size; i += 4) access(addr + i, size - i < 4 ? size - i : 4, 1);
}
void __asan_handle_no_return(void) {}
#endif

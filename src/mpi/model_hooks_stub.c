/* libopenscc-model-hooks.so: what a counted MPI program (OPENSCC_CC=mpicc
 * rccecc --model-build; docs/mpi.md "Model mode") links against for the
 * hooks its instrumentation calls (and what their inlined fast paths read) -- at every basic block
 * (-fsanitize-coverage=trace-pc) and every load and store
 * (-fsanitize=kernel-address in outline mode).  They do nothing here: under
 * rccerun --mpi --model the rank wrapper preloads the provider, whose own
 * definitions (src/timing/compute_count.c, memory_access.c, exported by
 * libopenscc-fi.map) come first in the lookup order, so the blocks are counted
 * by the one timing layer of the process.  Elsewhere (native runs, another
 * launcher) the program runs with these no-ops.  Not part of librcce.a: an
 * executable that linked the hooks in would bind its calls to its own copy. */
#include <stddef.h>
#include <stdint.h>

#include "../openscc_api.h"

OPENSCC_API void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {}

/* What the inlined hooks read (src/timing/timing_internal.h, struct
 * timing_fast_paths; here only its size matters): no shared region, no
 * caches, so every access takes the fast path; blocks are counted into it. */
OPENSCC_API uint64_t __openscc_fast[13];
uint64_t __openscc_fast[13];
OPENSCC_API void __openscc_checkpoint(void);
void __openscc_checkpoint(void) {}

#define NO_OP_HOOKS(size)                                           \
  OPENSCC_API void __asan_load##size##_noabort(uintptr_t addr);     \
  OPENSCC_API void __asan_store##size##_noabort(uintptr_t addr);    \
  OPENSCC_API void __openscc_update##size(uintptr_t addr);          \
  void __asan_load##size##_noabort(uintptr_t addr) { (void)addr; }  \
  void __asan_store##size##_noabort(uintptr_t addr) { (void)addr; } \
  void __openscc_update##size(uintptr_t addr) { (void)addr; }
NO_OP_HOOKS(1)
NO_OP_HOOKS(2)
NO_OP_HOOKS(4)
NO_OP_HOOKS(8)
NO_OP_HOOKS(16)

OPENSCC_API void __asan_loadN_noabort(uintptr_t addr, size_t size);
OPENSCC_API void __asan_storeN_noabort(uintptr_t addr, size_t size);
OPENSCC_API void __asan_handle_no_return(void);
void __asan_loadN_noabort(uintptr_t addr, size_t size) { (void)addr, (void)size; }
void __asan_storeN_noabort(uintptr_t addr, size_t size) { (void)addr, (void)size; }
void __asan_handle_no_return(void) {}

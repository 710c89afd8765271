/* Who is polling: a program's own nonblocking test, or the MPI library
 * waiting (docs/mpi-channel.md "Waiting").  MPI_Test, MPI_Iprobe and their
 * kin return at once whatever they find (MPI-3.1 3.7.3, 3.8.1): a program
 * calling them in a loop between steps of its own work (HPCC's
 * MPIRandomAccess generates an update between two MPI_Testany calls) is
 * not waiting in MPI, and napping inside such a call slows its work to one
 * step per nap.  Blocking calls (MPI_Wait, MPI_Recv, collectives) wait in
 * the library's progress loop.  Both reach the provider as the same
 * fruitless fi_cq_read, so the provider looks at its caller's stack for
 * the MPI entry point (or its PMPI_ twin, which profiling wrappers, Fortran
 * bindings and MPICH's public names reach): a frame inside an exported
 * function of that name (Open MPI's PMPI_Testany), or inside the function
 * such an export jumps to (the MPICH wheel's PMPI_Testany is a 5-byte
 * `jmp` to a static function, so its own frame is never on the stack).
 * The hw layer asks only when a poll would nap, past its spin and yield
 * budgets (hw_poll_set_program_poll), so the walk (microseconds, with the
 * names cached) never slows the polls that spin or yield. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

#include "provider.h"

/* From fi_cq_read's caller to the MPI entry point: the library's progress
 * layers (Open MPI: mtl/btl progress, opal_progress, request test; MPICH:
 * its ch4 progress, request and binding layers), with room to spare. */
#define CALLER_FRAMES 24

static const char *const program_polls[] = {"MPI_Test",   "MPI_Testany", "MPI_Testall",           "MPI_Testsome",
                                            "MPI_Iprobe", "MPI_Improbe", "MPI_Request_get_status"};

static int names_program_poll(const char *name) {
  if (!name) return 0;
  if (strncmp(name, "PMPI_", 5) == 0) name++;
  for (size_t i = 0; i < sizeof program_polls / sizeof *program_polls; i++)
    if (strcmp(name, program_polls[i]) == 0) return 1;
  return 0;
}

/* Where the code at entry jumps at once (x86-64: `jmp rel32` or `jmp rel8`,
 * after an optional endbr64), or entry itself. */
static const unsigned char *jump_target(const unsigned char *entry) {
#if !defined(__x86_64__) && !defined(__i386__)
  return entry; /* elsewhere only the entry points' own frames are recognised */
#endif
  static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  const unsigned char *c = memcmp(entry, endbr64, sizeof endbr64) == 0 ? entry + sizeof endbr64 : entry;
  if (c[0] == 0xe9) {
    int32_t rel;
    memcpy(&rel, c + 1, sizeof rel);
    return c + 5 + rel;
  }
  if (c[0] == 0xeb) return c + 2 + (int8_t)c[1];
  return entry;
}

/* Whether fn, a function of the object `file` without an exported name of
 * its own, is where one of that object's program-poll entry points jumps. */
static int tail_called_by_program_poll(const char *file, const void *fn) {
  void *lib = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return 0;
  int found = 0;
  for (size_t i = 0; i < sizeof program_polls / sizeof *program_polls && !found; i++) {
    char pmpi[64];
    snprintf(pmpi, sizeof pmpi, "P%s", program_polls[i]);
    const char *names[2] = {program_polls[i], pmpi};
    for (int k = 0; k < 2 && !found; k++) {
      const unsigned char *entry = dlsym(lib, names[k]);
      found = entry && jump_target(entry) == fn;
    }
  }
  dlclose(lib);
  return found;
}

/* Whether the code at pc belongs to a program-poll entry point. */
static int in_program_poll(const void *pc) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1(pc, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_fname) return 0;
  if (info.dli_sname && sym && (uintptr_t)pc - (uintptr_t)info.dli_saddr < sym->st_size)
    return names_program_poll(info.dli_sname);
  /* No exported function holds pc: the unwind tables know where its function begins. */
  const void *fn = _Unwind_FindEnclosingFunction((void *)pc);
  return fn && tail_called_by_program_poll(info.dli_fname, fn);
}

/* dladdr1 searches the object's symbols (about 3 us in libmpi, against 1 us
 * for the whole walk), and a tail call's check opens the object: each
 * return address's answer is kept, in an open-addressed table (linear
 * probing), so every return address is looked up once per process.  (A
 * direct-mapped table let two frames of one stack evict each other: the
 * 48-rank barrier then paid a dladdr1 or a dlopen in most walks.)  When
 * the table is full a new address takes its home slot.
 * Under the provider lock (prov_idle's callers hold it). */
#define PC_CACHE 1024
static struct {
  const void *pc;
  int polls;
} pc_cache[PC_CACHE];

static size_t pc_slot(const void *pc) {
  size_t home = ((uintptr_t)pc >> 2) % PC_CACHE;
  for (size_t k = 0; k < PC_CACHE; k++) {
    size_t i = (home + k) % PC_CACHE;
    if (pc_cache[i].pc == pc || pc_cache[i].pc == NULL) return i;
  }
  return home;
}

static int pc_in_program_poll(const void *pc) {
  size_t i = pc_slot(pc);
  if (pc_cache[i].pc != pc) {
    /* A return address points after its call: pc - 1 is inside the caller. */
    pc_cache[i].polls = in_program_poll((const char *)pc - 1);
    pc_cache[i].pc = pc;
  }
  return pc_cache[i].polls;
}

int prov_called_from_program_poll(void) {
  void *frames[CALLER_FRAMES];
  int n = backtrace(frames, CALLER_FRAMES);
  for (int i = 1; i < n; i++) /* frames[0]: this function */
    if (pc_in_program_poll(frames[i])) return 1;
  return 0;
}

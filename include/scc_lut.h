/*
 * scc_lut.h - the cores' lookup tables and private memory (docs/data-movement.md).
 *
 * On the SCC every core reaches memory through its lookup table (LUT): 256
 * entries, each mapping 16 MB of the core's physical address space onto a
 * frame of some core's private DDR3 memory, the off-chip shared memory or
 * a tile's MPB, with the page attributes the core's caches apply
 * ([SVP-SCC] sec. III.B, [SCC-2BOARD] sec. II; docs/references.md).
 * Programs moved large data without copies through the MPB by writing an
 * entry of their own LUT so that it points at another core's memory, and
 * copying once ([SVP-SCC]'s remapping).
 *
 * OpenSCC gives every UE such a table.  Entry e's 16 MB appear at
 * scc_lut_address(e); writing the entry maps the frame there for real
 * (zero copy: the pages are the owner's), so another UE's writes are seen
 * through it.  In model mode (counted builds) an access through an entry is
 * charged as on the chip: cached (level 1 and 2), MPBT (level 1 only, the
 * write-combine buffer), or uncached, at the memory controller (or MPB)
 * that holds the frame.  The host's memory is coherent, so a missing
 * scc_l2_flush or scc_cl1invmb loses no data here; in model mode it is
 * charged as the chip would charge it.
 *
 * Every UE starts with entries 0.. mapping its own private memory
 * (rccerun --private-size, cached) and the rest unmapped.
 */
#ifndef SCC_LUT_H
#define SCC_LUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define SCC_LUT_ENTRIES 256
#define SCC_LUT_PAGE_BYTES (16ull << 20) /* what one entry maps */

/* What an entry maps. */
enum scc_lut_kind {
  SCC_LUT_UNMAPPED = 0,
  SCC_LUT_PRIVATE = 1, /* frame `frame` of UE `owner`'s private memory */
  SCC_LUT_SHARED = 2,  /* frame `frame` of the off-chip shared memory (RCCE_shmalloc's) */
  SCC_LUT_MPB = 3,     /* the MPB of UE `owner`'s tile (16 KB: both cores' 8 KB) */
};

/* How the core's caches treat the entry's accesses. */
enum scc_lut_attr {
  SCC_LUT_CACHED = 0,   /* level 1 and level 2, write-back */
  SCC_LUT_MPBT = 1,     /* level 1 only; stores merge in the write-combine buffer */
  SCC_LUT_UNCACHED = 2, /* every access goes to memory */
};

typedef struct {
  int kind;       /* enum scc_lut_kind */
  int owner;      /* PRIVATE, MPB: a UE of the job; SHARED: -1 */
  unsigned frame; /* PRIVATE, SHARED: 16 MB frame number; MPB: 0 */
  int attr;       /* enum scc_lut_attr */
} scc_lut_entry;

/* Return codes. */
#define SCC_LUT_SUCCESS 0
#define SCC_LUT_ERROR_NOT_INIT 1 /* before RCCE_init */
#define SCC_LUT_ERROR_ENTRY 2    /* entry outside 0..255 */
#define SCC_LUT_ERROR_KIND 3     /* unknown kind or attribute */
#define SCC_LUT_ERROR_OWNER 4    /* owner is no UE of the job */
#define SCC_LUT_ERROR_FRAME 5    /* frame beyond the owner's private memory or the shared memory */
#define SCC_LUT_ERROR_RANGE 6    /* address range not (wholly) in the memory named */
#define SCC_LUT_ERROR_FULL 7     /* no run of free entries long enough */
#define SCC_LUT_ERROR_ARG 8      /* NULL pointer, or an address no entry maps */
#define SCC_LUT_ERROR_MAP 9      /* the host refused the mapping (mmap) */
const char *scc_lut_error_string(int code);

/* Read or write one entry of this UE's LUT.  Writing maps the frame at
 * scc_lut_address(entry) at once (what was there is gone); an UNMAPPED
 * entry leaves the window inaccessible: touching it is a segmentation
 * fault, reported with the entry. */
int scc_lut_read(int entry, scc_lut_entry *out);
int scc_lut_write(int entry, const scc_lut_entry *e);
/* Where entry's 16 MB start in this UE (NULL for an entry outside 0..255). */
void *scc_lut_address(int entry);
/* The entry that maps addr, or -1. */
int scc_lut_entry_of(const void *addr);

/* This UE's private memory: its size, and its start (entries 0.., cached). */
size_t scc_private_size(void);
void *scc_private_base(void);

/* [SVP-SCC]'s remapping in one call: map bytes at offset `offset` of UE
 * ue's private memory, with attribute attr, onto the first free run of
 * entries (from entry 128 up), and set *addr to where offset appears. */
int scc_map_private(int ue, size_t offset, size_t bytes, int attr, void **addr);
/* The same for RCCE_shmalloc memory (shm points into it). */
int scc_map_shared(const void *shm, size_t bytes, int attr, void **addr);
/* Unmap the entries a scc_map_* call wrote (addr as it returned). */
int scc_unmap(void *addr, size_t bytes);

/* Where this UE's own private memory at `offset` is for other UEs: the
 * (ue, offset) they pass to scc_map_private (what [SVP-SCC] sends as the
 * core-physical address).  SCC_LUT_ERROR_RANGE when p is not in it. */
int scc_private_offset(const void *p, size_t *offset);

/* The memory controller behind UE ue's private memory (the one nearest its
 * core), or -1 for a UE outside the job: UEs with the same one share a
 * memory device (a sharing domain, scc_taco.hpp). */
int scc_memory_controller(int ue);

/* Caches (model mode charges them; natively the host is coherent):
 * CL1INVMB invalidates every MPBT line in level 1 (one instruction);
 * scc_l2_flush writes level 2's dirty lines back by reading an L2-sized
 * region, as the SCC's software had to (the P54C has no L2 flush); the
 * write-combine buffer goes to memory on scc_wcb_flush or a store to
 * another line. */
void scc_cl1invmb(void);
void scc_l2_flush(void);
void scc_wcb_flush(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

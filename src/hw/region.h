/*
 * hw layer: named regions of the job segment.
 *
 * hw lays out the segment but knows nothing of the layers' shared state: each
 * layer declares the blocks it keeps there (per job, or one per UE) with
 * HW_REGION_DECLARE in its own *_shared.c, and looks them up by name once at
 * initialisation.  The segment header records the table of regions laid out
 * and a layout hash over their names, versions and sizes; a process whose own
 * declarations hash differently (a program linked against another librcce.a
 * than the running rccerun) is refused at attach (docs/architecture.md,
 * "The job segment").
 */
#ifndef OPENSCC_HW_REGION_H
#define OPENSCC_HW_REGION_H

#include <stddef.h>
#include <stdint.h>

struct hw_header;
struct hw_job;
struct hw_job_params;

#define HW_REGION_MAX 32      /* declarations one process may hold */
#define HW_REGION_NAME_MAX 32 /* bytes of a name, its NUL included */

enum hw_region_scope {
  HW_REGION_PER_JOB = 0, /* one block for the whole job */
  HW_REGION_PER_UE = 1,  /* one block per UE, each starting on a host cache line */
};

/* A layer's block: `count` units of `unit_bytes` (count NULL: one unit).  A
 * count that depends on the job's options (model-only state) may be 0. */
struct hw_region_decl {
  const char *name; /* "layer.what", shorter than HW_REGION_NAME_MAX */
  uint32_t version; /* raised whenever the block's type changes */
  enum hw_region_scope scope;
  uint64_t unit_bytes;
  uint64_t (*count)(const struct hw_job_params *p);
};

/* One region as laid out, in the segment header. */
struct hw_region_entry {
  char name[HW_REGION_NAME_MAX];
  uint32_t version;
  uint32_t scope;
  uint64_t unit_bytes;
  uint64_t count;  /* units per block */
  uint64_t offset; /* from the start of the segment */
  uint64_t stride; /* bytes from one UE's block to the next (per-UE regions) */
};

/* Add a declaration to this process's registry (from a constructor). */
void hw_region_register(const struct hw_region_decl *d);

/* Constructors of this priority run before the program's own (which have
 * none, or a later one): a program calling RCCE_init from a constructor finds
 * the registry complete.  101 is the first priority GCC leaves to programs. */
#define HW_REGION_CTOR_PRIORITY 101

/* Declare a region: registered before main by a constructor, so every object
 * linked into the program contributes its declarations (no linker sections:
 * AddressSanitizer pads globals). */
#define HW_REGION_DECLARE(ident, ...)                                                               \
  static const struct hw_region_decl ident##_region_decl = {__VA_ARGS__};                           \
  __attribute__((constructor(HW_REGION_CTOR_PRIORITY))) static void ident##_region_register(void) { \
    hw_region_register(&ident##_region_decl);                                                       \
  }

/* The registry, sorted by name: n entries, or -1 when more
 * than HW_REGION_MAX were declared, a name is too long or one is declared
 * twice. */
int hw_region_registry(const struct hw_region_decl *const **decls);
/* 64-bit FNV-1a (Fowler, Noll, Vo; IETF draft-eastlake-fnv) of n bytes, continuing h. */
#define HW_FNV_OFFSET 0xcbf29ce484222325ULL
#define HW_FNV_PRIME 0x100000001b3ULL
uint64_t hw_fnv1a(uint64_t h, const void *data, size_t n);
/* FNV-1a over HW_VERSION, hw's own shapes (hw_shapes_fingerprint, segment.h) and each declaration's name,
 * version, scope and unit size, taken in name order (so independent of the
 * order of decls).  At most HW_REGION_MAX declarations. */
uint64_t hw_layout_hash(const struct hw_region_decl *const *decls, int n);

/* hw: lay the registry's regions out from offset off (each on a page) into
 * h's region table; returns the offset after them. */
uint64_t hw_region_layout(const struct hw_job_params *p, struct hw_header *h, uint64_t off);

/* The region called name in a mapped job, or NULL when the job has none. */
const struct hw_region_entry *hw_region_find(const struct hw_job *j, const char *name);
/* Its block (per-job region) or UE 0's block (per-UE region), or NULL. */
void *hw_region_base(const struct hw_job *j, const char *name);
/* UE ue's block of a per-UE region, or NULL. */
void *hw_region_ue(const struct hw_job *j, const char *name, int ue);

#endif

/* Named regions of the job segment: the registry of this process's
 * declarations, the layout hash, laying regions out and finding them. */
#include "region.h"

#include <string.h>

#include "segment.h"

static const struct hw_region_decl *registry[HW_REGION_MAX];
static int n_registered;
static int registry_broken; /* a declaration did not fit: attach and create refuse */

/* By name (names are unique): the table and the hash do not depend on the
 * order constructors ran in (nor on the order objects were linked). */
static int decl_before(const struct hw_region_decl *a, const struct hw_region_decl *b) {
  return strcmp(a->name, b->name) < 0;
}

/* Insertion sort: at most HW_REGION_MAX entries. */
static void sort_decls(const struct hw_region_decl **d, int n) {
  for (int i = 1; i < n; i++) {
    const struct hw_region_decl *x = d[i];
    int k = i;
    for (; k > 0 && decl_before(x, d[k - 1]); k--) d[k] = d[k - 1];
    d[k] = x;
  }
}

static int registered(const char *name) {
  for (int i = 0; i < n_registered; i++)
    if (strcmp(registry[i]->name, name) == 0) return 1;
  return 0;
}

void hw_region_register(const struct hw_region_decl *d) {
  /* Two layers claiming one name would share a block: refuse the job. */
  if (n_registered == HW_REGION_MAX || strlen(d->name) >= HW_REGION_NAME_MAX || registered(d->name)) {
    registry_broken = 1;
    return;
  }
  registry[n_registered++] = d;
  sort_decls(registry, n_registered);
}

int hw_region_registry(const struct hw_region_decl *const **decls) {
  *decls = registry;
  return registry_broken ? -1 : n_registered;
}

uint64_t hw_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * HW_FNV_PRIME;
  return h;
}

uint64_t hw_layout_hash(const struct hw_region_decl *const *given, int n) {
  const struct hw_region_decl *decls[HW_REGION_MAX];
  if (n > HW_REGION_MAX) n = HW_REGION_MAX; /* the registry never holds more */
  memcpy(decls, given, sizeof decls[0] * (size_t)n);
  sort_decls(decls, n);
  uint32_t version = HW_VERSION;
  uint64_t shapes = hw_shapes_fingerprint();
  uint64_t h = hw_fnv1a(HW_FNV_OFFSET, &version, sizeof version);
  h = hw_fnv1a(h, &shapes, sizeof shapes);
  for (int i = 0; i < n; i++) {
    uint32_t scope = (uint32_t)decls[i]->scope;
    h = hw_fnv1a(h, decls[i]->name, strlen(decls[i]->name) + 1);
    h = hw_fnv1a(h, &decls[i]->version, sizeof decls[i]->version);
    h = hw_fnv1a(h, &scope, sizeof scope);
    h = hw_fnv1a(h, &decls[i]->unit_bytes, sizeof decls[i]->unit_bytes);
  }
  return h;
}

uint64_t hw_region_layout(const struct hw_job_params *p, struct hw_header *h, uint64_t off) {
  h->n_regions = (uint32_t)n_registered;
  for (int i = 0; i < n_registered; i++) {
    const struct hw_region_decl *d = registry[i];
    struct hw_region_entry *e = &h->regions[i];
    memcpy(e->name, d->name, strlen(d->name) + 1);
    e->version = d->version;
    e->scope = (uint32_t)d->scope;
    e->unit_bytes = d->unit_bytes;
    e->count = d->count ? d->count(p) : 1;
    uint64_t block = e->unit_bytes * e->count;
    /* Per-UE blocks start on host cache lines: UEs write only their own. */
    e->stride = d->scope == HW_REGION_PER_UE ? hw_align_up(block, HW_HOST_LINE) : block;
    e->offset = off;
    /* A page per region: pages of a model-only region never touched cost no memory. */
    off = hw_align_up(off + (d->scope == HW_REGION_PER_UE ? e->stride * (uint64_t)p->nue : block), 4096);
  }
  return off;
}

const struct hw_region_entry *hw_region_find(const struct hw_job *j, const char *name) {
  for (uint32_t i = 0; i < j->hdr->n_regions; i++)
    if (strcmp(j->hdr->regions[i].name, name) == 0) return &j->hdr->regions[i];
  return NULL;
}

void *hw_region_base(const struct hw_job *j, const char *name) {
  const struct hw_region_entry *e = hw_region_find(j, name);
  return e ? j->base + e->offset : NULL;
}

void *hw_region_ue(const struct hw_job *j, const char *name, int ue) {
  const struct hw_region_entry *e = hw_region_find(j, name);
  return e ? j->base + e->offset + (uint64_t)ue * e->stride : NULL;
}

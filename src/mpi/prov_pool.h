/*
 * Free lists of same-sized provider objects (a send's prov_tx, an
 * arrival, a posted receive's prov_rx): every message takes one of each
 * kind and gives it back, and glibc's malloc and free cost 41 and 88
 * instructions a call there (callgrind, 8-byte ping-pong) against about
 * ten for a list.  Used under the provider lock only.  At most
 * PROV_POOL_KEEP objects wait in a list; the rest go back to malloc's.
 * The lists live as long as the process (bounded, like malloc's caches).
 */
#ifndef OPENSCC_PROV_POOL_H
#define OPENSCC_PROV_POOL_H

#include <stddef.h>
#include <stdlib.h>

#define PROV_POOL_KEEP 64

struct prov_pool {
  void *head; /* each free object's first word points to the next */
  unsigned kept;
  size_t size;
};

#define PROV_POOL(object_size) \
  { NULL, 0, (object_size) }

/* An object of the pool's size (uninitialised), or NULL when out of memory. */
static inline void *prov_pool_get(struct prov_pool *p) {
  void *o = p->head;
  if (!o) return malloc(p->size);
  p->head = *(void **)o;
  p->kept--;
  return o;
}

static inline void prov_pool_put(struct prov_pool *p, void *o) {
  if (!o) return;
  if (p->kept >= PROV_POOL_KEEP) {
    free(o);
    return;
  }
  *(void **)o = p->head;
  p->head = o;
  p->kept++;
}

#endif

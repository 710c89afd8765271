#include "range_alloc.h"

#include <stdlib.h>
#include <string.h>

static int grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *p = realloc(*arr, (size_t)ncap * elem);
  if (!p) return -1;
  *arr = p;
  *cap = ncap;
  return 0;
}

int rcce_range_alloc_init(struct range_alloc *ra, uint64_t total) {
  memset(ra, 0, sizeof *ra);
  ra->total = total;
  if (grow((void **)&ra->free_list, &ra->free_cap, 1, sizeof(struct range))) return -1;
  if (total) ra->free_list[ra->nfree++] = (struct range){0, total};
  return 0;
}

void rcce_range_alloc_destroy(struct range_alloc *ra) {
  free(ra->free_list);
  free(ra->used);
  memset(ra, 0, sizeof *ra);
}

static int record_used(struct range_alloc *ra, uint64_t start, uint64_t len) {
  if (grow((void **)&ra->used, &ra->used_cap, ra->nused + 1, sizeof(struct range))) return -1;
  ra->used[ra->nused++] = (struct range){start, len};
  return 0;
}

static void take(struct range_alloc *ra, int i, uint64_t start, uint64_t len) {
  struct range *r = &ra->free_list[i];
  if (start == r->start && len == r->len) {
    memmove(r, r + 1, (size_t)(ra->nfree - i - 1) * sizeof *r);
    ra->nfree--;
  } else if (start == r->start) {
    r->start += len;
    r->len -= len;
  } else { /* taken from the top */
    r->len -= len;
  }
}

int64_t rcce_range_alloc_low(struct range_alloc *ra, uint64_t len) {
  if (len == 0) return -1;
  for (int i = 0; i < ra->nfree; i++) {
    if (ra->free_list[i].len >= len) {
      uint64_t s = ra->free_list[i].start;
      if (record_used(ra, s, len)) return -1;
      take(ra, i, s, len);
      return (int64_t)s;
    }
  }
  return -1;
}

int64_t rcce_range_alloc_high(struct range_alloc *ra, uint64_t len) {
  if (len == 0) return -1;
  for (int i = ra->nfree - 1; i >= 0; i--) {
    if (ra->free_list[i].len >= len) {
      uint64_t s = ra->free_list[i].start + ra->free_list[i].len - len;
      if (record_used(ra, s, len)) return -1;
      take(ra, i, s, len);
      return (int64_t)s;
    }
  }
  return -1;
}

int64_t rcce_range_free(struct range_alloc *ra, uint64_t start) {
  int u = -1;
  for (int i = 0; i < ra->nused; i++)
    if (ra->used[i].start == start) u = i;
  if (u < 0) return -1;
  uint64_t len = ra->used[u].len;
  ra->used[u] = ra->used[--ra->nused];
  if (grow((void **)&ra->free_list, &ra->free_cap, ra->nfree + 1, sizeof(struct range))) return -1;
  int pos = 0;
  while (pos < ra->nfree && ra->free_list[pos].start < start) pos++;
  memmove(&ra->free_list[pos + 1], &ra->free_list[pos], (size_t)(ra->nfree - pos) * sizeof(struct range));
  ra->free_list[pos] = (struct range){start, len};
  ra->nfree++;
  /* coalesce with the next, then with the previous range */
  if (pos + 1 < ra->nfree && ra->free_list[pos].start + ra->free_list[pos].len == ra->free_list[pos + 1].start) {
    ra->free_list[pos].len += ra->free_list[pos + 1].len;
    memmove(&ra->free_list[pos + 1], &ra->free_list[pos + 2], (size_t)(ra->nfree - pos - 2) * sizeof(struct range));
    ra->nfree--;
  }
  if (pos > 0 && ra->free_list[pos - 1].start + ra->free_list[pos - 1].len == ra->free_list[pos].start) {
    ra->free_list[pos - 1].len += ra->free_list[pos].len;
    memmove(&ra->free_list[pos], &ra->free_list[pos + 1], (size_t)(ra->nfree - pos - 1) * sizeof(struct range));
    ra->nfree--;
  }
  return (int64_t)len;
}

uint64_t rcce_range_used_len(const struct range_alloc *ra, uint64_t start) {
  for (int i = 0; i < ra->nused; i++)
    if (ra->used[i].start == start) return ra->used[i].len;
  return 0;
}

uint64_t rcce_range_largest_free(const struct range_alloc *ra) {
  uint64_t best = 0;
  for (int i = 0; i < ra->nfree; i++)
    if (ra->free_list[i].len > best) best = ra->free_list[i].len;
  return best;
}

/*
 * A deterministic range allocator over [0, total) units.  RCCE's MPB and
 * shared-memory allocators are replicated in every UE: the same calls in the
 * same order give the same offsets everywhere (RCCE's symmetric allocation).
 */
#ifndef OPENSCC_RANGE_ALLOC_H
#define OPENSCC_RANGE_ALLOC_H

#include <stdint.h>

struct range {
  uint64_t start, len;
};

struct range_alloc {
  uint64_t total;
  struct range *free_list; /* sorted by start, coalesced */
  int nfree, free_cap;
  struct range *used; /* unsorted */
  int nused, used_cap;
};

int rcce_range_alloc_init(struct range_alloc *ra, uint64_t total);
void rcce_range_alloc_destroy(struct range_alloc *ra);
/* First fit from the bottom; returns the start or -1. */
int64_t rcce_range_alloc_low(struct range_alloc *ra, uint64_t len);
/* From the top of the highest free range that fits; returns the start or -1. */
int64_t rcce_range_alloc_high(struct range_alloc *ra, uint64_t len);
/* Free the allocation starting at start; returns its length or -1. */
int64_t rcce_range_free(struct range_alloc *ra, uint64_t start);
/* Length of the allocation containing unit, or 0. */
uint64_t rcce_range_used_len(const struct range_alloc *ra, uint64_t start);
uint64_t rcce_range_largest_free(const struct range_alloc *ra);

#endif

/*
 * The lut layer's state (lut.c) and what its files share: above rcce
 * (through rcce_iface.h), beside ircce, mailbox and svm.
 */
#ifndef OPENSCC_LUT_INTERNAL_H
#define OPENSCC_LUT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scc_lut.h"

/* What an entry's window holds natively: the segment's bytes at off (0
 * bytes: nothing), accessible or not as the entry says (lut.c). */
struct lut_held {
  uint64_t off, bytes;
};

struct lut_state {
  unsigned char *windows; /* SCC_LUT_ENTRIES windows of SCC_LUT_PAGE_BYTES; NULL before first use */
  scc_lut_entry entries[SCC_LUT_ENTRIES];
  struct lut_held held[SCC_LUT_ENTRIES];
};
extern struct lut_state lut_g;

/* SCC_LUT_SUCCESS once the windows exist (reserved at the first call that
 * needs them), else the error, reported for `where`. */
int lut_ready(const char *where);
/* Write an entry (checked, mapped, told to the timing layer); error code
 * unreported. */
int lut_write_entry(int entry, const scc_lut_entry *e);
/* Where an entry's frame lies in the job segment and how many of its bytes
 * exist (lut.c); an error code when it names nothing. */
int lut_frame_bytes(const scc_lut_entry *e, uint64_t *off, uint64_t *bytes);
/* For the layers above: map bytes at job-segment offset seg_off (private
 * memory or shared memory) onto free entries, *addr where it starts (its
 * errors reported as scc_map_private's, for debugging); and the segment
 * offset of [p, p + bytes) when it is one memory mapped in order (through
 * LUT entries or the segment itself; error code unreported). */
int lut_map_offset(uint64_t seg_off, size_t bytes, int attr, void **addr);
int lut_segment_offset(const void *p, size_t bytes, uint64_t *seg_off);

/* A segmentation fault inside the windows names the entry (fault.c). */
void lut_fault_report_install(void);

#endif

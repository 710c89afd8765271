/*
 * Model mode runs every UE without address-space randomisation: the data
 * caches' model maps addresses to sets (docs/model.md "Caches"), so a UE's
 * heap, stack and mappings must lie at the same addresses on every run for a
 * counted build to predict the same time (docs/model.md "Cost and
 * repeatability").  Called in the child right before it executes the
 * program; a system that refuses (a seccomp filter) leaves randomisation on.
 */
#ifndef OPENSCC_LAUNCH_FIXED_ADDRESSES_H
#define OPENSCC_LAUNCH_FIXED_ADDRESSES_H

#include <sys/personality.h>

static inline void launch_fixed_addresses(void) {
  int current = personality(0xffffffff);
  if (current != -1) personality((unsigned long)current | ADDR_NO_RANDOMIZE);
}

#endif

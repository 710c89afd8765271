/*
 * The svm layer's state in the job segment (hw/region.h):
 *   svm.ue  per UE  whether svm_init succeeded, and the UE's svm counters
 * Read by the launcher for summary.json.
 */
#ifndef OPENSCC_SVM_SHARED_H
#define OPENSCC_SVM_SHARED_H

#include <stdint.h>

#include "../hw/segment.h"

/* Raise the version whenever struct svm_ue_shared changes (the layout hash
 * then tells programs built against the old one to rebuild). */
#define SVM_UE_REGION "svm.ue"
#define SVM_UE_VERSION 1

struct svm_ue_shared {
  int32_t on HW_ALIGNED; /* svm_init succeeded (summary.json shows the counters) */
  /* Counted atomically: the UE's fault and mail handlers count too. */
  uint64_t faults, frames, acquired, served, forwarded;
};

static inline struct svm_ue_shared *svm_ue_shared_of(const struct hw_job *j, int ue) {
  return (struct svm_ue_shared *)hw_region_ue(j, SVM_UE_REGION, ue);
}

#endif

/* The svm layer's region of the job segment (svm_shared.h). */
#include "svm_shared.h"

HW_REGION_DECLARE(svm_ue, SVM_UE_REGION, SVM_UE_VERSION, HW_REGION_PER_UE, sizeof(struct svm_ue_shared), NULL)

/*
 * iRCCE_lib.h - the header iRCCE programs include for iRCCE's internal
 * names.  OpenSCC's iRCCE keeps its request queues private (docs/ircce.md),
 * so this offers the internal function programs call, on top of RCCE_lib.h
 * and iRCCE.h.
 */
#ifndef IRCCE_LIB_H
#define IRCCE_LIB_H

#include "RCCE_lib.h"
#include "iRCCE.h"

#ifdef __cplusplus
extern "C" {
#endif

/* iRCCE's non-blocking flag test: *result = 1 when my copy of the flag holds
 * val.  RCCE_test_flag is the same call, in either flag form. */
#define iRCCE_test_flag RCCE_test_flag

#ifdef __cplusplus
}
#endif
#endif /* IRCCE_LIB_H */

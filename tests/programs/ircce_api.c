/*
 * ircce_api.c - compile-time check that iRCCE.h declares iRCCE 2.0's API with
 * its exact types: each function's type must be the one the iRCCE 2.0 header
 * gives it (a static assertion per function, macros included), and every
 * constant is used.  At run time it prints the constants.
 */
#include <stdio.h>

#include "RCCE.h"
#include "iRCCE.h"

#define HAS(fn, type) \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&fn), type), #fn " does not have iRCCE 2.0's type")

int RCCE_APP(int argc, char **argv) {
  HAS(iRCCE_init, int (*)(void));
  HAS(iRCCE_isend, int (*)(char *, ssize_t, int, iRCCE_SEND_REQUEST *));
  HAS(iRCCE_isend_test, int (*)(iRCCE_SEND_REQUEST *, int *));
  HAS(iRCCE_isend_wait, int (*)(iRCCE_SEND_REQUEST *));
  HAS(iRCCE_isend_push, int (*)(void));
  HAS(iRCCE_irecv, int (*)(char *, ssize_t, int, iRCCE_RECV_REQUEST *));
  HAS(iRCCE_irecv_test, int (*)(iRCCE_RECV_REQUEST *, int *));
  HAS(iRCCE_irecv_wait, int (*)(iRCCE_RECV_REQUEST *));
  HAS(iRCCE_irecv_push, int (*)(void));
  HAS(iRCCE_ssend, int (*)(char *, ssize_t, int));
  HAS(iRCCE_srecv, int (*)(char *, ssize_t, int));
  HAS(iRCCE_srecv_test, int (*)(char *, ssize_t, int, int *));
  HAS(iRCCE_issend, int (*)(char *, ssize_t, int, iRCCE_SEND_REQUEST *));
  HAS(iRCCE_isrecv, int (*)(char *, ssize_t, int, iRCCE_RECV_REQUEST *));
  HAS(iRCCE_probe, int (*)(int, int *));
  HAS(iRCCE_iprobe, int (*)(int, int *, int *));
  HAS(iRCCE_init_wait_list, void (*)(iRCCE_WAIT_LIST *));
  HAS(iRCCE_add_to_wait_list, void (*)(iRCCE_WAIT_LIST *, iRCCE_SEND_REQUEST *, iRCCE_RECV_REQUEST *));
  HAS(iRCCE_test_all, int (*)(iRCCE_WAIT_LIST *, int *));
  HAS(iRCCE_wait_all, int (*)(iRCCE_WAIT_LIST *));
  HAS(iRCCE_test_any, int (*)(iRCCE_WAIT_LIST *, iRCCE_SEND_REQUEST **, iRCCE_RECV_REQUEST **));
  HAS(iRCCE_wait_any, int (*)(iRCCE_WAIT_LIST *, iRCCE_SEND_REQUEST **, iRCCE_RECV_REQUEST **));
  HAS(iRCCE_get_dest, int (*)(iRCCE_SEND_REQUEST *));
  HAS(iRCCE_get_source, int (*)(iRCCE_RECV_REQUEST *));
  HAS(iRCCE_get_size, int (*)(iRCCE_SEND_REQUEST *, iRCCE_RECV_REQUEST *));
  HAS(iRCCE_get_length, int (*)(void));
  HAS(iRCCE_isend_cancel, int (*)(iRCCE_SEND_REQUEST *, int *));
  HAS(iRCCE_irecv_cancel, int (*)(iRCCE_RECV_REQUEST *, int *));
  HAS(iRCCE_barrier, int (*)(RCCE_COMM *));
  HAS(iRCCE_bcast, int (*)(char *, size_t, int, RCCE_COMM));
  HAS(iRCCE_mcast, int (*)(char *, size_t, int));
  HAS(iRCCE_msend, int (*)(char *, ssize_t));
  HAS(iRCCE_mrecv, int (*)(char *, ssize_t, int));
  HAS(iRCCE_put, int (*)(t_vcharp, t_vcharp, int, int));
  HAS(iRCCE_get, int (*)(t_vcharp, t_vcharp, int, int));
  HAS(iRCCE_malloc, t_vcharp(*)(size_t));
  HAS(iRCCE_wait_until, int (*)(RCCE_FLAG, RCCE_FLAG_STATUS));
  HAS(iRCCE_flag_alloc, int (*)(RCCE_FLAG *));
  HAS(iRCCE_flag_write, int (*)(RCCE_FLAG *, RCCE_FLAG_STATUS, int));
  HAS(iRCCE_flag_read, int (*)(RCCE_FLAG, RCCE_FLAG_STATUS *, int));
  HAS(RCCE_isend, int (*)(char *, ssize_t, int, RCCE_SEND_REQUEST *));
  HAS(RCCE_irecv, int (*)(char *, ssize_t, int, RCCE_RECV_REQUEST *));
  HAS(iRCCE_send, int (*)(char *, ssize_t, int));
  HAS(iRCCE_recv, int (*)(char *, ssize_t, int));
  HAS(iRCCE_issend_wait, int (*)(iRCCE_SEND_REQUEST *));
  HAS(iRCCE_isrecv_wait, int (*)(iRCCE_RECV_REQUEST *));
#ifndef SINGLEBITFLAGS
  HAS(iRCCE_flag_alloc_tagged, int (*)(RCCE_FLAG *));
  HAS(iRCCE_flag_write_tagged, int (*)(RCCE_FLAG *, RCCE_FLAG_STATUS, int, void *, int));
  HAS(iRCCE_flag_read_tagged, int (*)(RCCE_FLAG, RCCE_FLAG_STATUS *, int, void *, int));
  HAS(iRCCE_wait_tagged, int (*)(RCCE_FLAG, RCCE_FLAG_STATUS, void *, int));
  HAS(iRCCE_test_tagged, int (*)(RCCE_FLAG, RCCE_FLAG_STATUS, int *, void *, int));
  HAS(iRCCE_get_max_tagged_len, int (*)(void));
  HAS(RCCE_peek, int (*)(char *, size_t, int));
  printf("iRCCE_ANY_LENGTH %d iRCCE_MAX_TAGGED_LEN %d\n", iRCCE_ANY_LENGTH, (int)iRCCE_MAX_TAGGED_LEN);
#endif
  RCCE_init(&argc, &argv);
  printf("iRCCE %s: SUCCESS %d ERROR %d PENDING %d RESERVED %d NOT_ENQUEUED %d ANY_SOURCE %d\n", iRCCE_VERSION,
         iRCCE_SUCCESS, iRCCE_ERROR, iRCCE_PENDING, iRCCE_RESERVED, iRCCE_NOT_ENQUEUED, iRCCE_ANY_SOURCE);
  RCCE_finalize();
  return 0;
}

/* iRCCE 2.0's collectives.  iRCCE_msend is a multicast: under local put a
 * message that fits the send buffer is copied in once and announced to every
 * other UE at the same time (rcce_multicast), each of which takes it with an
 * ordinary receive (iRCCE_mrecv); otherwise it is one synchronous send per UE. */
#include "ircce_internal.h"

int iRCCE_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm ? comm : &RCCE_COMM_WORLD); }

int iRCCE_bcast(char *buf, size_t size, int root, RCCE_COMM comm) { return RCCE_bcast(buf, size, root, comm); }

int iRCCE_msend(char *privbuf, ssize_t size) {
  TIMING_SCOPE();
  if (size < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "iRCCE_msend", "size %zd", size);
  int rc = rcce_check_buffer(privbuf, (size_t)size, RCCE_ERROR_SOURCE, "iRCCE_msend", "buffer");
  if (rc != RCCE_SUCCESS) return rc;
  if (!rcce_basic_interface())
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "iRCCE_msend",
                      "RCCE_init of the basic interface not done");
  int me = rcce_my_ue(), nue = rcce_ue_count();
  if (size == 0 || nue == 1) return iRCCE_SUCCESS;
  if (rcce_multicast_possible((size_t)size)) return rcce_multicast(privbuf, (size_t)size);
  for (int i = 1; i < nue && rc == iRCCE_SUCCESS; i++) rc = iRCCE_ssend(privbuf, size, (me + i) % nue);
  return rc;
}

int iRCCE_mrecv(char *privbuf, ssize_t size, int source) {
  int rc =
      size > 0 ? rcce_check_buffer(privbuf, (size_t)size, RCCE_ERROR_TARGET, "iRCCE_mrecv", "buffer") : RCCE_SUCCESS;
  return rc != RCCE_SUCCESS ? rc : iRCCE_srecv(privbuf, size, source);
}

int iRCCE_mcast(char *buf, size_t size, int root) {
  TIMING_SCOPE();
  int rc = rcce_check_ue(root, "iRCCE_mcast");
  if (rc != RCCE_SUCCESS) return rc;
  return root == rcce_my_ue() ? iRCCE_msend(buf, (ssize_t)size) : iRCCE_mrecv(buf, (ssize_t)size, root);
}

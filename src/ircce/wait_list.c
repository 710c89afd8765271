/* iRCCE wait lists: test or wait for all / any of several requests. */
#include <stdlib.h>

#include "ircce_internal.h"

void iRCCE_init_wait_list(iRCCE_WAIT_LIST *list) { list->first = list->last = NULL; }

static void append(iRCCE_WAIT_LIST *list, int type, void *req) {
  iRCCE_WAIT_LISTELEM *e = malloc(sizeof *e);
  if (!e) {
    rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "iRCCE_add_to_wait_list", "out of memory");
    return;
  }
  e->type = type;
  e->req = req;
  e->next = NULL;
  if (list->last) list->last->next = e;
  else list->first = e;
  list->last = e;
}

void iRCCE_add_to_wait_list(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq) {
  if (sreq) append(list, iRCCE_WAIT_LIST_SEND_TYPE, sreq);
  if (rreq) append(list, iRCCE_WAIT_LIST_RECV_TYPE, rreq);
}

/* 1 finished, 0 pending, -1 never started (reported). */
static int elem_finished(const iRCCE_WAIT_LISTELEM *e, const char *where) {
  return e->type == iRCCE_WAIT_LIST_SEND_TYPE ? ircce_send_finished(e->req, where) : ircce_recv_finished(e->req, where);
}

/* 1 when every request of the list is finished, 0 pending, -1 error. */
static int all_finished(iRCCE_WAIT_LIST *list, const char *where) {
  int all = 1;
  for (iRCCE_WAIT_LISTELEM *e = list->first; e; e = e->next) {
    int f = elem_finished(e, where);
    if (f < 0) return -1;
    all = all && f;
  }
  return all;
}

/* The test calls are polling calls (rcce_xfer_poll_start/end). */
int iRCCE_test_all(iRCCE_WAIT_LIST *list, int *test) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int all = all_finished(list, "iRCCE_test_all");
  if (all < 0) return iRCCE_ERROR;
  rcce_xfer_poll_end(p, all, NULL);
  if (test) *test = all;
  return all ? iRCCE_SUCCESS : iRCCE_PENDING;
}

int iRCCE_wait_all(iRCCE_WAIT_LIST *list) {
  TIMING_SCOPE();
  for (;;) {
    rcce_xfer_progress();
    int all = all_finished(list, "iRCCE_wait_all");
    if (all < 0) return iRCCE_ERROR;
    if (all) break;
    rcce_xfer_idle();
  }
  while (list->first) {
    iRCCE_WAIT_LISTELEM *e = list->first;
    list->first = e->next;
    free(e);
  }
  list->last = NULL;
  return iRCCE_SUCCESS;
}

/* The first finished request in list order leaves the list; requests added
 * again after completing go to the end, so busy peers cannot starve others. */
static int take_any(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST **sreq, iRCCE_RECV_REQUEST **rreq, const char *where) {
  if (sreq) *sreq = NULL;
  if (rreq) *rreq = NULL;
  if (!list->first) {
    rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "the wait list is empty");
    return iRCCE_ERROR;
  }
  for (iRCCE_WAIT_LISTELEM *prev = NULL, *e = list->first; e; prev = e, e = e->next) {
    int f = elem_finished(e, where);
    if (f < 0) return iRCCE_ERROR;
    if (!f) continue;
    if (prev) prev->next = e->next;
    else list->first = e->next;
    if (list->last == e) list->last = prev;
    if (e->type == iRCCE_WAIT_LIST_SEND_TYPE && sreq) *sreq = e->req;
    if (e->type == iRCCE_WAIT_LIST_RECV_TYPE && rreq) *rreq = e->req;
    free(e);
    return iRCCE_SUCCESS;
  }
  return iRCCE_PENDING;
}

int iRCCE_test_any(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST **sreq, iRCCE_RECV_REQUEST **rreq) {
  TIMING_SCOPE();
  unsigned long p = rcce_xfer_poll_start();
  int rc = take_any(list, sreq, rreq, "iRCCE_test_any");
  if (rc != iRCCE_ERROR) rcce_xfer_poll_end(p, rc == iRCCE_SUCCESS, NULL);
  return rc;
}

int iRCCE_wait_any(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST **sreq, iRCCE_RECV_REQUEST **rreq) {
  TIMING_SCOPE();
  for (;;) {
    rcce_xfer_progress();
    int rc = take_any(list, sreq, rreq, "iRCCE_wait_any");
    if (rc != iRCCE_PENDING) return rc;
    rcce_xfer_idle();
  }
}

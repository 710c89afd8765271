/* iRCCE_ANY_SOURCE receives and probes (docs/ircce.md).  A message from src
 * is waiting when src's "sent" flag in this UE's MPB announces the next step
 * and no queued receive from src will take it.  Any-source receives wait
 * unbound, in posting order; each binds to a waiting sender, scanning the
 * sources round-robin so that busy senders cannot starve others. */
#include "ircce_internal.h"

const int iRCCE_ANY_SOURCE = -1;

static iRCCE_RECV_REQUEST *unbound_head, *unbound_tail;
static int scan_from, binding;

static int find_waiting_source(void) {
  for (int i = 0; i < rcce_ue_count(); i++) {
    int src = (scan_from + i) % rcce_ue_count();
    if (rcce_xfer_waiting_from(src)) return src;
  }
  return -1;
}

static void bind_unbound(void) {
  if (binding) return; /* binding submits a transfer, which runs progress again */
  binding = 1;
  int src;
  while (unbound_head && (src = find_waiting_source()) >= 0) {
    iRCCE_RECV_REQUEST *r = unbound_head;
    unbound_head = r->next;
    if (!unbound_head) unbound_tail = NULL;
    r->next = NULL;
    rcce_xfer_extra_waiting(-1);
    scan_from = (src + 1) % rcce_ue_count();
    ircce_recv_bind(r, src);
  }
  binding = 0;
}

static int unbound_can_move(void) { return unbound_head && find_waiting_source() >= 0; }

void ircce_any_source_post(iRCCE_RECV_REQUEST *r) {
  rcce_xfer_set_extra_work(bind_unbound, unbound_can_move);
  if (unbound_tail) unbound_tail->next = r;
  else unbound_head = r;
  unbound_tail = r;
  rcce_xfer_extra_waiting(1);
  bind_unbound();
}

int ircce_any_source_posted(const iRCCE_RECV_REQUEST *r) {
  for (const iRCCE_RECV_REQUEST *p = unbound_head; p; p = p->next)
    if (p == r) return 1;
  return 0;
}

int ircce_any_source_cancel(iRCCE_RECV_REQUEST *r) {
  for (iRCCE_RECV_REQUEST **p = &unbound_head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
    if (*p != r) continue;
    *p = r->next;
    if (unbound_tail == r) unbound_tail = prev;
    r->next = NULL;
    rcce_xfer_extra_waiting(-1);
    return 1;
  }
  return 0;
}

int iRCCE_iprobe(int source, int *test, int *src) {
  TIMING_SCOPE();
  if (source != iRCCE_ANY_SOURCE) {
    int rc = rcce_check_basic_peer(source, "iRCCE_iprobe");
    if (rc != RCCE_SUCCESS) return rc;
  }
  rcce_xfer_progress();
  int found = source == iRCCE_ANY_SOURCE ? find_waiting_source() : (rcce_xfer_waiting_from(source) ? source : -1);
  if (test) *test = found >= 0;
  if (src && found >= 0) *src = found;
  return iRCCE_SUCCESS;
}

struct probe_arg {
  int source;
};

static int probe_can_move(void *p) {
  const struct probe_arg *a = p;
  if (rcce_xfer_can_move()) return 1;
  return a->source == iRCCE_ANY_SOURCE ? find_waiting_source() >= 0 : rcce_xfer_waiting_from(a->source);
}

int iRCCE_probe(int source, int *src) {
  TIMING_SCOPE();
  struct probe_arg a = {source};
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = source};
  for (;;) {
    int test = 0, rc = iRCCE_iprobe(source, &test, src);
    if (rc != iRCCE_SUCCESS || test) return rc;
    hw_wait_cond(rcce_job(), rcce_my_ue(), probe_can_move, &a, &why);
  }
}

/*
 * SVP's kill ([SVP-SCC] sec. II: "the kill action to asynchronously
 * terminate an execution"; include/scc_rpc.h, docs/svp.md "Kill").  The
 * creator sends the place a kill header without waiting for it (an iRCCE
 * send request: a place busy in a thread takes it only between threads,
 * and a place that has finished is sending its answer to the creator, who
 * must be free to receive it).  The place looks for a message from the
 * family's creator before each thread (the creator sends it nothing else
 * while the family runs, one create per place); once it took
 * the kill, no further thread runs and the answer says the family was
 * killed.  A kill that comes after the family ended is the place's next
 * message from the creator and is dropped by its serve loop; the creator's
 * sync waits for it to be taken, so no request outlives the sync.
 */
#include "iRCCE.h"
#include "svp_internal.h"

/* The kill of my create on each place, while the place has not taken it. */
static struct kill_sent {
  int sent;
  iRCCE_SEND_REQUEST req;
} kills[RCCE_MAXNP];
static struct rpc_header kill_header = {RPC_KILL, 0, 0};

int scc_rpc_kill(scc_rpc_handle *h) {
  if (!h || h->place < 0 || !svp_pending[h->place])
    return rcce_report(RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, "scc_rpc_kill", "no create under way for this handle");
  int place = h->place;
  if (place == rcce_my_ue() || kills[place].sent) return RCCE_SUCCESS; /* ran inside the create; killed already */
  int rc = iRCCE_isend((char *)&kill_header, sizeof kill_header, place, &kills[place].req);
  if (rc != RCCE_SUCCESS && rc != iRCCE_PENDING) return rc;
  kills[place].sent = 1;
  return RCCE_SUCCESS;
}

int svp_kill_taken(int place) {
  if (!kills[place].sent) return RCCE_SUCCESS;
  kills[place].sent = 0;
  int rc = iRCCE_isend_wait(&kills[place].req);
  return rc == iRCCE_SUCCESS ? RCCE_SUCCESS : rc;
}

/* The look is a plain read of the flag in my MPB, outside the model: a
 * probe per thread would charge the place for every thread of every family
 * and move its floor at host-dependent moments, which made the copy cores'
 * service order vary between runs; what it costs on the chip (one read of
 * a line of my own MPB) is left out.  Seen, the kill is received as any
 * message. */
int svp_kill_arrived(int source) {
  if (!rcce_xfer_waiting_from(source)) return 0;
  struct rpc_header h;
  if (RCCE_recv((char *)&h, sizeof h, source) != RCCE_SUCCESS || h.kind != RPC_KILL)
    rcce_fatal("scc_rpc_serve", "UE %d sent a message of kind %d while its family ran (only a kill may come)", source,
               h.kind);
  return 1;
}

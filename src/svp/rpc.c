/*
 * Remote create and sync (include/scc_rpc.h, docs/svp.md): SVP's create
 * and sync of a function on a place ([SVP-SCC] sec. II) over RCCE messages.
 * RCCE messages have a fixed size, so each direction is a header (kind,
 * function, payload bytes) and then the payload.  A place takes the next
 * header from whichever UE sent first (an iRCCE any-source receive: the
 * "connection establishment" [SVP-SCC] sec. III-A found hard with iRCCE's
 * matching, solved here by one create in flight per pair), then that UE's
 * arguments, runs the function and sends the result back; the creator
 * receives it at its sync.  The sends are synchronous, as RCCE's: a create
 * returns once the place has its arguments, a place's answer once the
 * creator syncs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iRCCE.h"
#include "svp_internal.h"

static scc_rpc_fn functions[SCC_RPC_MAX_FUNCTIONS];
unsigned char svp_pending[RCCE_MAXNP];

int svp_send_message(int dest, enum rpc_kind kind, int id, const void *payload, size_t bytes) {
  struct rpc_header h = {kind, id, bytes};
  int rc = RCCE_send((char *)&h, sizeof h, dest);
  if (rc == RCCE_SUCCESS && bytes) rc = RCCE_send((char *)payload, bytes, dest);
  return rc;
}

int scc_rpc_register(int id, scc_rpc_fn fn) {
  if (id < 0 || id >= SCC_RPC_MAX_FUNCTIONS || !fn)
    return rcce_report(RCCE_ERROR_RPC_INTERNAL, "scc_rpc_register", "function id %d outside 0..%d, or no function", id,
                       SCC_RPC_MAX_FUNCTIONS - 1);
  functions[id] = fn;
  return RCCE_SUCCESS;
}

/* Run function id on the arguments: the answer's kind (RPC_UNKNOWN for a
 * function not registered here) and its result (malloc'ed, or NULL). */
static int run_function(int id, const void *args, size_t bytes, void **result, size_t *result_size) {
  scc_rpc_fn fn = id >= 0 && id < SCC_RPC_MAX_FUNCTIONS ? functions[id] : NULL;
  *result_size = 0;
  *result = fn ? fn(args, bytes, result_size) : NULL;
  if (!*result) *result_size = 0;
  return fn ? RPC_RESULT : RPC_UNKNOWN;
}

/* Run the create of id from `source` with its arguments, and answer. */
static int run_create(int source, int id, const void *args, size_t bytes) {
  void *result;
  size_t result_size;
  int kind = run_function(id, args, bytes, &result, &result_size);
  int rc = svp_send_message(source, kind, id, result, result_size);
  free(result);
  return rc;
}

int scc_rpc_serve(int callers, int *served) {
  int runs = 0, stopped = 0, rc = RCCE_SUCCESS;
  while (stopped < callers && rc == RCCE_SUCCESS) {
    struct rpc_header h;
    iRCCE_RECV_REQUEST req;
    rc = iRCCE_irecv((char *)&h, sizeof h, iRCCE_ANY_SOURCE, &req);
    if (rc == iRCCE_PENDING) rc = iRCCE_irecv_wait(&req);
    if (rc != RCCE_SUCCESS) break;
    int source = iRCCE_get_source(&req);
    void *args = h.bytes ? malloc(h.bytes) : NULL;
    if (h.bytes && !args)
      rcce_fatal("scc_rpc_serve", "no memory for the %llu-byte arguments of a create from UE %d",
                 (unsigned long long)h.bytes, source);
    if (h.bytes) rc = RCCE_recv(args, h.bytes, source);
    if (rc == RCCE_SUCCESS && h.kind == RPC_STOP) stopped++;
    else if (rc == RCCE_SUCCESS && h.kind == RPC_KILL) continue; /* for a create that had ended (kill.c) */
    else if (rc == RCCE_SUCCESS && h.kind == RPC_CREATE && (rc = run_create(source, h.id, args, h.bytes)) == 0) runs++;
    else if (rc == RCCE_SUCCESS && h.kind == RPC_FAMILY && (rc = svp_run_family(source, h.id, args, h.bytes)) == 0)
      runs++;
    else if (rc == RCCE_SUCCESS)
      rc = rcce_report(RCCE_ERROR_RPC_INTERNAL, "scc_rpc_serve", "message of kind %d from UE %d is no create", h.kind,
                       source);
    free(args);
  }
  if (served) *served = runs;
  return rc;
}

/* A create on the creator's own place: SVP lets a family run where it is
 * created ([SVP-SCC] sec. II: a create names a place, the default being the
 * creator's own), so the function runs at once in this UE and its answer
 * waits here for the sync.  A UE never serves its own creates. */
static struct {
  int kind;
  void *result;
  size_t bytes;
} answer_here;

int scc_rpc_create(int place, int id, const void *args, size_t args_size, scc_rpc_handle *h) {
  int rc = rcce_check_ue(place, "scc_rpc_create");
  if (rc != RCCE_SUCCESS) return rc;
  if (svp_pending[place])
    return rcce_report(RCCE_ERROR_MULTIPLE_RPC_REQUESTS, "scc_rpc_create",
                       "a create on UE %d is not synced yet (one per place at a time)", place);
  h->place = -1;
  if (place == rcce_my_ue())
    answer_here.kind = run_function(id, args, args_size, &answer_here.result, &answer_here.bytes);
  else if ((rc = svp_send_message(place, RPC_CREATE, id, args, args_size)) != RCCE_SUCCESS) return rc;
  svp_pending[place] = 1;
  h->place = place;
  h->id = id;
  return RCCE_SUCCESS;
}

/* The answer to my create on place: its kind, and the result (malloc'ed). */
static int take_answer(int place, int *kind, unsigned char **bytes, size_t *size) {
  if (place == rcce_my_ue()) {
    *kind = answer_here.kind;
    *bytes = answer_here.result;
    *size = answer_here.bytes;
    answer_here.result = NULL;
    return RCCE_SUCCESS;
  }
  struct rpc_header r;
  int rc = RCCE_recv((char *)&r, sizeof r, place);
  *kind = rc == RCCE_SUCCESS ? r.kind : RPC_UNKNOWN;
  *size = rc == RCCE_SUCCESS ? r.bytes : 0;
  *bytes = *size ? malloc(*size) : NULL;
  if (*size && !*bytes) rcce_fatal("scc_rpc_sync", "no memory for a %zu-byte result", *size);
  if (*size) rc = RCCE_recv((char *)*bytes, *size, place);
  return rc;
}

int scc_rpc_sync(scc_rpc_handle *h, void *result, size_t result_max, size_t *result_size) {
  if (!h || h->place < 0 || !svp_pending[h->place])
    return rcce_report(RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, "scc_rpc_sync", "no create under way for this handle");
  int place = h->place;
  if (svp_family_pending(place)) {
    h->place = -1;
    if (result_size) *result_size = 0;
    return svp_sync_family(place, h->id);
  }
  int kind;
  unsigned char *bytes;
  size_t size;
  int rc = take_answer(place, &kind, &bytes, &size);
  if (rc == RCCE_SUCCESS) rc = svp_kill_taken(place);
  svp_pending[place] = 0;
  h->place = -1;
  if (rc == RCCE_SUCCESS && size) memcpy(result, bytes, size < result_max ? size : result_max);
  free(bytes);
  if (result_size) *result_size = size;
  if (rc != RCCE_SUCCESS) return rc;
  if (kind == RPC_UNKNOWN)
    return rcce_report(RCCE_ERROR_RPC_NOT_ALLOCATED, "scc_rpc_sync", "UE %d has no function %d registered", place,
                       h->id);
  if (size > result_max)
    return rcce_report(RCCE_ERROR_MESSAGE_LENGTH, "scc_rpc_sync", "result of %zu bytes, room for %zu", size,
                       result_max);
  return RCCE_SUCCESS;
}

int scc_rpc_stop(int place) {
  int rc = rcce_check_ue(place, "scc_rpc_stop");
  if (rc != RCCE_SUCCESS || place == rcce_my_ue()) return rc; /* my own creates ran here: nobody to tell */
  return svp_send_message(place, RPC_STOP, 0, NULL, 0);
}

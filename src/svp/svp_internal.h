/* The svp layer's parts (rpc.c: create and sync of functions; family.c:
 * families over index ranges with their data): above rcce, lut and copy. */
#ifndef OPENSCC_SVP_INTERNAL_H
#define OPENSCC_SVP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../rcce/rcce_iface.h"
#include "scc_rpc.h"

enum rpc_kind { RPC_CREATE = 1, RPC_RESULT, RPC_UNKNOWN, RPC_STOP, RPC_FAMILY, RPC_KILL, RPC_KILLED };

/* Every message of the protocol starts with this (rpc.c's comment). */
struct rpc_header {
  int32_t kind, id;
  uint64_t bytes;
};

/* Places with a create of mine not synced yet. */
extern unsigned char svp_pending[RCCE_MAXNP];

/* The header, then the payload (when bytes > 0), to dest. */
int svp_send_message(int dest, enum rpc_kind kind, int id, const void *payload, size_t bytes);

/* family.c: a place runs a family whose description came with the create;
 * a creator syncs on the family it created on place. */
int svp_run_family(int source, int id, const void *description, size_t bytes);
int svp_family_pending(int place);
int svp_sync_family(int place, int id);

/* kill.c: the place, between a family's threads: whether its creator
 * `source` killed it (the kill is taken); the creator, once the answer to
 * its create on place is in: its kill, if it sent one, taken by the place
 * (the place's next message from it). */
int svp_kill_arrived(int source);
int svp_kill_taken(int place);

#endif

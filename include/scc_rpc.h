/*
 * scc_rpc.h - remote create and sync of registered functions on other UEs
 * ("places"), in the style of SVP on the SCC ([SVP-SCC] (docs/references.md);
 * docs/svp.md).  A place serves creates (scc_rpc_serve); a UE creates a
 * registered function there with an argument block, goes on, and later syncs
 * on it to get its result block.  Creates on several places before the syncs
 * form a family that runs in parallel.  Arguments and results travel as RCCE
 * messages through the MPBs.
 */
#ifndef SCC_RPC_H
#define SCC_RPC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* A function a place runs: its argument block in, a result block out
 * (malloc'ed by the function, freed by the runtime; NULL with *result_size
 * 0 for none). */
typedef void *(*scc_rpc_fn)(const void *args, size_t args_size, size_t *result_size);

/* Register fn under id (0..SCC_RPC_MAX_FUNCTIONS-1) in this UE: every UE that
 * serves registers the functions it runs. */
#define SCC_RPC_MAX_FUNCTIONS 64
int scc_rpc_register(int id, scc_rpc_fn fn);

/* Serve creates until `callers` UEs have called scc_rpc_stop on this place;
 * *served (may be NULL) gets the number of creates answered. */
int scc_rpc_serve(int callers, int *served);

/* A create under way. */
typedef struct {
  int place; /* -1: none */
  int id;
} scc_rpc_handle;

/* Start function id on place with the argument block; returns at once (the
 * place has the arguments).  One create per place may be outstanding from a
 * UE: a second before its sync is RCCE_ERROR_MULTIPLE_RPC_REQUESTS. */
int scc_rpc_create(int place, int id, const void *args, size_t args_size, scc_rpc_handle *h);

/* Wait for the create's result: up to result_max bytes into result,
 * *result_size (may be NULL) gets its size; a larger result is
 * RCCE_ERROR_MESSAGE_LENGTH (the bytes that fit are there), a function the
 * place has not registered RCCE_ERROR_RPC_NOT_ALLOCATED. */
int scc_rpc_sync(scc_rpc_handle *h, void *result, size_t result_max, size_t *result_size);

/* This UE makes no more creates on place. */
int scc_rpc_stop(int place);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

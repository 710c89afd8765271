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

/* Kill the family under way for h ([SVP-SCC] sec. II: SVP's kill action,
 * which terminates an execution asynchronously): returns at once; the
 * place runs no thread of the family after it has seen the kill (it looks
 * between threads), and scc_rpc_sync then returns SCC_RPC_KILLED, the
 * outputs and the shared value as the threads that ran left them.  A
 * family that ended first, a plain create (already running when its create
 * returned) and a create on the creator's own place (run inside the
 * create) end as usual: their sync returns RCCE_SUCCESS.  A handle with no
 * create under way is RCCE_ERROR_NO_ACTIVE_RPC_REQUEST; a second kill of
 * one create does nothing. */
int scc_rpc_kill(scc_rpc_handle *h);
#define SCC_RPC_KILLED 1 /* scc_rpc_sync: the family was killed (not an error) */

/* --- Families ([SVP-SCC] sec. II; docs/svp.md "Families") ---------------
 * One create starts a family of threads on a place, one per index of a
 * range, all running one registered thread function in index order (a
 * place is one core, and every place is exclusive: it runs one family at a
 * time, in the order the creates arrive, and a family sees what the
 * families before it on that place left in its memory).  A data
 * description (the paper's INPUT / OUTPUT / ARRAY_SIZE) names the creator's
 * buffers the threads read and write; the threads get the place's copies.
 * A shared channel carries a value through the threads in index order: the
 * first gets the creator's, each leaves one for the next, and the last one's
 * comes back at sync.  scc_rpc_sync ends a family as it ends a create (its
 * result arguments are not used: the outputs arrive in the creator's
 * buffers). */
#define SCC_RPC_IN 1    /* the place gets the buffer's bytes */
#define SCC_RPC_OUT 2   /* the creator gets the place's bytes back at sync (the place's copy starts zeroed) */
#define SCC_RPC_INOUT 3 /* both */
#define SCC_RPC_MAX_DATA 32

typedef struct {
  void *ptr; /* the creator's buffer (the place's copy, in a thread) */
  size_t bytes;
  int dir; /* SCC_RPC_IN, SCC_RPC_OUT or SCC_RPC_INOUT */
} scc_rpc_data;

/* How a family's data moves ([SVP-SCC] sec. III). */
#define SCC_RPC_MESSAGES 0   /* RCCE messages through the MPBs (the paper's "direct") */
#define SCC_RPC_REMAP 1      /* the place maps the creator's memory through its lookup table and copies (scc_lut.h) */
#define SCC_RPC_COPY_CORES 2 /* the same, the copies made by the job's copy cores (scc_copy.h) */

/* Indices start, start + step, ... below limit (step > 0). */
typedef struct {
  long start, limit, step;
} scc_rpc_range;

/* A thread: its index, the place's copies of the family's data (in the
 * creator's order), and the shared channel (shared_bytes; read the value
 * the thread before left, leave one for the thread after). */
typedef void (*scc_rpc_thread)(long index, scc_rpc_data *data, int ndata, void *shared, size_t shared_bytes);
int scc_rpc_register_thread(int id, scc_rpc_thread fn);

/* Create a family on place.  With SCC_RPC_REMAP and SCC_RPC_COPY_CORES the
 * buffers must lie in memory a LUT maps (the creator's private memory,
 * scc_private_base, or RCCE_shmalloc memory): the creator flushes its level
 * 2 and sends only where they are; the place copies the inputs into its
 * private memory (its copies live there from its start, so a family's data
 * must fit: rccerun --private-size) and the outputs back before it answers.
 * shared may be NULL when shared_bytes is 0. */
int scc_rpc_create_family(int place, int id, scc_rpc_range range, const scc_rpc_data *data, int ndata, void *shared,
                          size_t shared_bytes, int transfer, scc_rpc_handle *h);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

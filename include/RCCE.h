/*
 * RCCE.h - OpenSCC's source-compatible RCCE 1.0.13 / 2.0 interface.
 *
 * Programs written for Intel's SCC against RCCE compile unmodified against
 * this header.  Compile-time options, as in RCCE:
 *   -DGORY                 the "gory" interface (user-managed MPB and flags)
 *   -DSINGLEBITFLAGS       flags are single bits packed 256 to a line
 *                          (default: big flags, one 32-byte line per flag)
 *   -DRC_POWER_MANAGEMENT  the power-management API
 *
 * The library is built once.  Entry points whose C signature depends on the
 * options are renamed here (e.g. RCCE_send -> RCCE_send_gory) so one library
 * serves every combination; the names in your source stay RCCE's.
 */
#ifndef RCCE_H
#define RCCE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

#define _RCCE "2.0 (OpenSCC)"
#define OPENSCC_RCCE 1

/* RCCE programs name their entry RCCE_APP; one OS process per UE, so it is main. */
#ifndef RCCE_APP
#define RCCE_APP main
#endif

#define STDERR stdout

#define LOG2_LINE_SIZE 5
#define RCCE_LINE_SIZE (1 << LOG2_LINE_SIZE)
/* MPB bytes per UE on the SCC preset (docs/references.md ref 1, "MPB"). */
#define RCCE_BUFF_SIZE_MAX (1 << 13)
/* Largest job OpenSCC runs (parametric meshes up to 1024 cores). */
#define RCCE_MAXNP 1024

#define RCCE_SUCCESS 0
#define RCCE_ERROR_BASE 1234321
#define RCCE_ERROR_TARGET (RCCE_ERROR_BASE + 1)
#define RCCE_ERROR_SOURCE (RCCE_ERROR_BASE + 2)
#define RCCE_ERROR_ID (RCCE_ERROR_BASE + 3)
#define RCCE_ERROR_MESSAGE_LENGTH (RCCE_ERROR_BASE + 4)
#define RCCE_ERROR_FLAG_UNDEFINED (RCCE_ERROR_BASE + 5)
#define RCCE_ERROR_NUM_UES (RCCE_ERROR_BASE + 6)
#define RCCE_ERROR_DATA_OVERLAP (RCCE_ERROR_BASE + 7)
#define RCCE_ERROR_ALIGNMENT (RCCE_ERROR_BASE + 8)
#define RCCE_ERROR_DEBUG_FLAG (RCCE_ERROR_BASE + 9)
#define RCCE_ERROR_FLAG_NOT_IN_COMM_BUFFER (RCCE_ERROR_BASE + 10)
#define RCCE_ERROR_FLAG_STATUS_UNDEFINED (RCCE_ERROR_BASE + 11)
#define RCCE_ERROR_FLAG_NOT_ALLOCATED (RCCE_ERROR_BASE + 12)
#define RCCE_ERROR_VAL_UNDEFINED (RCCE_ERROR_BASE + 13)
#define RCCE_ERROR_INVALID_ERROR_CODE (RCCE_ERROR_BASE + 14)
#define RCCE_ERROR_RPC_NOT_ALLOCATED (RCCE_ERROR_BASE + 15)
#define RCCE_ERROR_RPC_INTERNAL (RCCE_ERROR_BASE + 16)
#define RCCE_ERROR_MULTIPLE_RPC_REQUESTS (RCCE_ERROR_BASE + 17)
#define RCCE_ERROR_FDIVIDER (RCCE_ERROR_BASE + 18)
#define RCCE_ERROR_FREQ_EXCEEDS_MHZ (RCCE_ERROR_BASE + 19)
#define RCCE_ERROR_FREQUENCY_EXCEEDED RCCE_ERROR_FREQ_EXCEEDS_MHZ /* RCCE 1.0.13's name */
#define RCCE_ERROR_NO_ACTIVE_RPC_REQUEST (RCCE_ERROR_BASE + 20)
#define RCCE_ERROR_STALE_RPC_REQUEST (RCCE_ERROR_BASE + 21)
#define RCCE_ERROR_COMM_UNDEFINED (RCCE_ERROR_BASE + 22)
#define RCCE_ERROR_ILLEGAL_OP (RCCE_ERROR_BASE + 23)
#define RCCE_ERROR_ILLEGAL_TYPE (RCCE_ERROR_BASE + 24)
#define RCCE_ERROR_MALLOC (RCCE_ERROR_BASE + 25)
#define RCCE_ERROR_COMM_INITIALIZED (RCCE_ERROR_BASE + 26)
#define RCCE_ERROR_CORE_NOT_IN_HOSTFILE (RCCE_ERROR_BASE + 27)
#define RCCE_ERROR_NO_MULTICAST_SUPPORT (RCCE_ERROR_BASE + 28) /* RCCE 2.0; never returned here */
#define RCCE_MAX_ERROR_STRING 45

/* RCCE 2.0's non-blocking calls (docs/rcce.md "RCCE 2.0's extensions"). */
#define RCCE_PENDING -1  /* started, not finished */
#define RCCE_RESERVED -2 /* queued behind other requests */
#define RCCE_REJECTED -3 /* RCCE 2.0 only; never returned here (blocking calls queue behind requests) */

#define RCCE_DEBUG_ALL 111111
#define RCCE_DEBUG_SYNCH 111444
#define RCCE_DEBUG_COMM 111555
#define RCCE_DEBUG_RPC 111666
#define RCCE_DEBUG_DEBUG 111888

#define RCCE_FLAG_SET 1
#define RCCE_FLAG_UNSET 0

#define RCCE_NUM_OPS 4
#define RCCE_OP_BASE 23232323
#define RCCE_SUM (RCCE_OP_BASE)
#define RCCE_MIN (RCCE_OP_BASE + 1)
#define RCCE_MAX (RCCE_OP_BASE + 2)
#define RCCE_PROD (RCCE_OP_BASE + 3)

#define RCCE_TYPE_BASE 63636363
#define RCCE_INT (RCCE_TYPE_BASE)
#define RCCE_LONG (RCCE_TYPE_BASE + 1)
#define RCCE_FLOAT (RCCE_TYPE_BASE + 2)
#define RCCE_DOUBLE (RCCE_TYPE_BASE + 3)

/* Pointer into the MPB or the off-chip shared region. */
typedef volatile unsigned char *t_vcharp;

#ifdef SINGLEBITFLAGS
#define RCCE_FLAGS_PER_BYTE 8
typedef struct {
  int location;          /* bit within the line, 0..255 */
  t_vcharp line_address; /* start of the 32-byte line holding the flag */
} RCCE_FLAG;
#else
#define RCCE_FLAGS_PER_BYTE 1
/* Big flags: each flag is one whole 32-byte MPB line; the first int is the flag. */
typedef volatile int *RCCE_FLAG;
#endif
#define RCCE_FLAGS_PER_LINE (RCCE_LINE_SIZE * RCCE_FLAGS_PER_BYTE)

typedef int RCCE_FLAG_STATUS;

/* A communicator.  The layout is the same whatever the flag mode. */
typedef struct {
  int size;
  int my_rank;
  int initialized;
  int member[RCCE_MAXNP];
  int barrier_line; /* OpenSCC: MPB line of member[0] holding the barrier */
  int label;        /* OpenSCC: creation order, for diagnostics */
  int nb_arrived;   /* OpenSCC: RCCE_nb_barrier arrived, waits for generation nb_generation + 1 */
  unsigned nb_generation;
} RCCE_COMM;

/* Room for OpenSCC's transfer state inside a request. */
#define OPENSCC_RCCE_ENGINE_WORDS 24

/* RCCE 2.0's request handles (RCCE_isend, RCCE_irecv): RCCE's public fields,
 * which OpenSCC fills as far as they mean something here (privbuf, size,
 * dest/source, finished, next), then OpenSCC's own state. */
typedef struct _RCCE_SEND_REQUEST {
  char *privbuf;
  t_vcharp combuf;
  size_t chunk;
  RCCE_FLAG *ready;
  RCCE_FLAG *sent;
  size_t size;
  int dest;
  int copy;
  void *tag;
  int len;
  RCCE_FLAG *probe;
  size_t wsize;
  size_t remainder;
  size_t nbytes;
  char *bufptr;
  int label;
  int finished;
  struct _RCCE_SEND_REQUEST *next;
  long long _openscc_engine[OPENSCC_RCCE_ENGINE_WORDS];
} RCCE_SEND_REQUEST;

typedef struct _RCCE_RECV_REQUEST {
  char *privbuf;
  t_vcharp combuf;
  size_t chunk;
  RCCE_FLAG *ready;
  RCCE_FLAG *sent;
  size_t size;
  int source;
  int copy;
  void *tag;
  int len;
  RCCE_FLAG *probe;
  size_t wsize;
  size_t remainder;
  size_t nbytes;
  char *bufptr;
  int label;
  int finished;
  struct _RCCE_RECV_REQUEST *next;
  long long _openscc_engine[OPENSCC_RCCE_ENGINE_WORDS];
} RCCE_RECV_REQUEST;

/* RCCE 2.0's spanning tree for RCCE_tree_barrier (RCCE_tree_init). */
typedef struct tree_s {
  int parent; /* UE of the parent, -1 at the root */
  int num_children;
  int child[RCCE_MAXNP]; /* UEs of the children */
} tree_t;

#if defined(SINGLEBITFLAGS) && defined(GORY)
#define RCCE_init RCCE_init_gory_singlebit
#elif defined(SINGLEBITFLAGS)
#define RCCE_init RCCE_init_singlebit
#elif defined(GORY)
#define RCCE_init RCCE_init_gory
#endif
#ifdef SINGLEBITFLAGS
#define RCCE_flag_alloc RCCE_flag_alloc_singlebit
#define RCCE_flag_free RCCE_flag_free_singlebit
#define RCCE_flag_write RCCE_flag_write_singlebit
#define RCCE_flag_read RCCE_flag_read_singlebit
#define RCCE_wait_until RCCE_wait_until_singlebit
#define RCCE_test_flag RCCE_test_flag_singlebit
#ifdef GORY
#define RCCE_send RCCE_send_gory_singlebit
#define RCCE_recv RCCE_recv_gory_singlebit
#define RCCE_recv_test RCCE_recv_test_gory_singlebit
#endif
#elif defined(GORY)
#define RCCE_send RCCE_send_gory
#define RCCE_recv RCCE_recv_gory
#define RCCE_recv_test RCCE_recv_test_gory
#endif

int RCCE_init(int *argc, char ***argv);
int RCCE_finalize(void);
double RCCE_wtime(void);
int RCCE_ue(void);
int RCCE_num_ues(void);
/* RCCE 2.0 for coupled boards ([SCC-2BOARD]): my board, my rank on it, the
 * boards, the UEs on board dev, the board of UE ue. */
int RCCE_dev(void);
int RCCE_dev_ue(void);
int RCCE_num_dev(void);
int RCCE_num_ues_dev(int dev);
int RCCE_ue_to_dev(int ue);

/* MPB space and one-sided copies. */
t_vcharp RCCE_malloc(size_t size);
t_vcharp RCCE_malloc_request(size_t size, size_t *chunk);
void RCCE_free(t_vcharp ptr);
int RCCE_put(t_vcharp target, t_vcharp source, int num_bytes, int ID);
int RCCE_get(t_vcharp target, t_vcharp source, int num_bytes, int ID);

/* Flags. */
int RCCE_flag_alloc(RCCE_FLAG *flag);
int RCCE_flag_free(RCCE_FLAG *flag);
int RCCE_flag_write(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int ID);
int RCCE_flag_read(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int ID);
int RCCE_wait_until(RCCE_FLAG flag, RCCE_FLAG_STATUS val);
/* *result = 1 when my copy of the flag holds val (does not wait). */
int RCCE_test_flag(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result);

#ifdef GORY
int RCCE_send(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size, int dest);
int RCCE_recv(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size, int source);
int RCCE_recv_test(char *privbuf, t_vcharp combuf, size_t chunk, RCCE_FLAG *ready, RCCE_FLAG *sent, size_t size,
                   int source, int *test);
#else
int RCCE_send(char *privbuf, size_t size, int dest);
int RCCE_recv(char *privbuf, size_t size, int source);
int RCCE_recv_test(char *privbuf, size_t size, int source, int *test);
/* Copy the first size bytes of the next message from source without
 * receiving it ([RUBY-2011], Ruby on SCC): 0 when copied, 1 when no message
 * is waiting; a later RCCE_recv reads the same message. */
int RCCE_peek(char *privbuf, size_t size, int source);
/* OpenSCC: the size of the next message from source, which stays pending
 * (0, and *size set), or 1 when no message is waiting; big flags only.  So
 * a receiver can make room for a message of any length first (the Python
 * binding's recv_any, docs/python.md). */
int RCCE_peek_size(int source, size_t *size);

/* RCCE 2.0's variants of the basic interface (docs/rcce.md "RCCE 2.0's extensions"). */
int RCCE_send_pipe(char *privbuf, size_t size, int dest); /* pipelined: two half-buffer chunks */
int RCCE_recv_pipe(char *privbuf, size_t size, int source);
int RCCE_send_mcast(char *privbuf, size_t size); /* to every other UE of RCCE_COMM_WORLD */
int RCCE_recv_mcast(char *privbuf, size_t size, int source);
int RCCE_send_tagged(char *privbuf, size_t size, int dest, void *tag, int len); /* len bytes of tag first */
int RCCE_recv_tagged(char *privbuf, size_t size, int source, void *tag, int len);
int RCCE_recv_cancel(size_t size, int source); /* receive the next message and drop it */
/* Whether a message from source waits (test == NULL: wait for one); *combuf
 * is where its first chunk lies in the sender's MPB. */
int RCCE_recv_probe(int source, int *test, t_vcharp *combuf);
int RCCE_recv_probe_tagged(int source, int *test, t_vcharp *combuf, void *tag, int len);
/* Non-blocking messages: RCCE_SUCCESS when already finished, RCCE_PENDING
 * when under way, RCCE_RESERVED when queued behind others. */
int RCCE_isend(char *privbuf, size_t size, int dest, RCCE_SEND_REQUEST *request);
int RCCE_isend_test(RCCE_SEND_REQUEST *request, int *test);
int RCCE_isend_wait(RCCE_SEND_REQUEST *request);
int RCCE_isend_push(int dest);
int RCCE_irecv(char *privbuf, size_t size, int source, RCCE_RECV_REQUEST *request);
int RCCE_irecv_test(RCCE_RECV_REQUEST *request, int *test);
int RCCE_irecv_wait(RCCE_RECV_REQUEST *request);
int RCCE_irecv_push(int source);
#endif

#ifndef GORY
/* Collectives, as in RCCE: basic interface only. */
int RCCE_allreduce(char *inbuf, char *outbuf, int num, int type, int op, RCCE_COMM comm);
int RCCE_reduce(char *inbuf, char *outbuf, int num, int type, int op, int root, RCCE_COMM comm);
int RCCE_bcast(char *buf, size_t num, int root, RCCE_COMM comm);
#endif

/* Off-chip shared memory (uncached on the SCC; RCCE_shflush makes writes visible). */
t_vcharp RCCE_shmalloc(size_t size);
void RCCE_shfree(t_vcharp ptr);
void RCCE_shflush(void);
/* RCCE 2.0: flush cached shared-memory lines (a full fence here). */
int RCCE_DCMflush(void);
/* RCCE 2.0: a larger or smaller block with the old contents (NULL: RCCE_shmalloc). */
t_vcharp RCCE_shrealloc(t_vcharp ptr, size_t size);
/* RCCE 2.0's copies (into / out of an MPB, or any memory). */
void *RCCE_memcpy_put(void *dest, const void *src, size_t count);
void *RCCE_memcpy_get(void *dest, const void *src, size_t count);
#define RCCE_memcpy(a, b, c) RCCE_memcpy_put(a, b, c)

/* Test-and-set locks, one per core: RCCE_SUCCESS, or RCCE_ERROR_ID for a bad ID. */
int RCCE_acquire_lock(int ID);
int RCCE_release_lock(int ID);

/* Communicators. */
int RCCE_global_color(int rank, void *nothing);
int RCCE_comm_split(int (*color)(int, void *), void *aux, RCCE_COMM *comm);
int RCCE_comm_free(RCCE_COMM *comm);
int RCCE_comm_size(RCCE_COMM comm, int *size);
int RCCE_comm_rank(RCCE_COMM comm, int *rank);
void RCCE_fence(void);
int RCCE_barrier(RCCE_COMM *comm);
/* RCCE 2.0's barrier algorithms: each is RCCE_barrier here (docs/rcce.md);
 * the nb_ ones return RCCE_PENDING until every member has arrived and are
 * called again with the same communicator until they return RCCE_SUCCESS. */
int RCCE_tree_init(RCCE_COMM *comm, tree_t *tree, int fanout);
int RCCE_tree_barrier(RCCE_COMM *comm, tree_t *tree);
int RCCE_tournament_barrier(RCCE_COMM *comm);
int RCCE_tournament_fixed_barrier(RCCE_COMM *comm);
int RCCE_dissemination_barrier(RCCE_COMM *comm);
int RCCE_TNS_barrier(RCCE_COMM *comm);
int RCCE_AIR_barrier(RCCE_COMM *comm);
int RCCE_AIR_barrier2(RCCE_COMM *comm);
int RCCE_nb_barrier(RCCE_COMM *comm);
int RCCE_nb_TNS_barrier(RCCE_COMM *comm);
int RCCE_nb_AIR_barrier(RCCE_COMM *comm);

int RCCE_error_string(int err_no, char *error_string, int *string_length);
int RCCE_debug_set(int level);
int RCCE_debug_unset(int level);

extern RCCE_COMM RCCE_COMM_WORLD;

#ifdef RC_POWER_MANAGEMENT
typedef struct {
  int release;
  int old_voltage_level;
  int new_voltage_level;
  int old_frequency_divider;
  int new_frequency_divider;
  long long start_cycle;
} RCCE_REQUEST;
#define RCCE_POWER_DEFAULT -99999
int RCCE_power_domain(void);
int RCCE_iset_power(int freq_div, RCCE_REQUEST *req, int *new_freq_div, int *new_voltage_level);
int RCCE_wait_power(RCCE_REQUEST *req);
int RCCE_set_frequency_divider(int freq_div, int *new_freq_div);
int RCCE_power_domain_master(void);
int RCCE_power_domain_size(void);
/* Print the clock divider of every tile, one line each (RCCE's power library). */
void print_dividers(void);
extern RCCE_COMM RCCE_P_COMM;
#endif

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* RCCE_H */

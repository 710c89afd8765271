/*
 * iRCCE.h - OpenSCC's iRCCE 2.0 interface (non-blocking RCCE, RWTH Aachen).
 *
 * Names, types and return codes follow iRCCE 2.0 so programs compile
 * unmodified (docs/ircce.md): non-blocking send/receive with
 * test/wait/push/cancel, wait lists, the pipelined synchronous send/receive,
 * request queries, iRCCE_ANY_SOURCE and iRCCE_ANY_LENGTH receives, probes,
 * tagged flags, the collectives, put/get and the gory helpers.
 */
#ifndef IRCCE_H
#define IRCCE_H

#include <sys/types.h>

#include "RCCE.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

#define iRCCE_VERSION "2.0 (OpenSCC)"
#define iRCCE_FLAIR

#define iRCCE_SUCCESS RCCE_SUCCESS
#define iRCCE_ERROR -1
#define iRCCE_PENDING -2
#define iRCCE_RESERVED -3
#define iRCCE_NOT_ENQUEUED -4

/* Receive from whichever UE sends first (iRCCE_irecv, iRCCE_probe). */
extern const int iRCCE_ANY_SOURCE;
#ifndef SINGLEBITFLAGS
/* Receive a message of whatever size the sender sends (big flags only: the
 * size travels in the sent flag's line).  iRCCE_get_size tells it. */
#define _iRCCE_ANY_LENGTH_
extern const int iRCCE_ANY_LENGTH;
/* Payload bytes a tagged flag carries beside its 4-byte value. */
#define iRCCE_MAX_TAGGED_LEN (RCCE_LINE_SIZE - sizeof(int))
#endif

/* Room for OpenSCC's transfer state inside a request. */
#define OPENSCC_IRCCE_ENGINE_WORDS 24

typedef struct _iRCCE_SEND_REQUEST {
  char *privbuf;   /* the message, in private memory */
  t_vcharp combuf; /* the send buffer in the MPB */
  size_t chunk;    /* its size in bytes */
  size_t subchunk1;
  size_t subchunk2;
  RCCE_FLAG *ready;
  RCCE_FLAG *sent;
  RCCE_FLAG_STATUS flag_set_value;
  size_t size; /* message size in bytes */
  int dest;    /* receiving UE */
  int sync;    /* 1: completes when the receiver has the data (always, as in RCCE) */
  size_t wsize;
  size_t remainder;
  size_t nbytes;
  char *bufptr;
  int label;
  int finished; /* 1 once the message is delivered */
  struct _iRCCE_SEND_REQUEST *next;
  long long _openscc_engine[OPENSCC_IRCCE_ENGINE_WORDS];
} iRCCE_SEND_REQUEST;

typedef struct _iRCCE_RECV_REQUEST {
  char *privbuf;
  t_vcharp combuf;
  size_t chunk;
  size_t subchunk1;
  size_t subchunk2;
  RCCE_FLAG *ready;
  RCCE_FLAG *sent;
  RCCE_FLAG_STATUS flag_set_value;
  size_t size;
  int source; /* sending UE */
  int sync;
  size_t wsize;
  size_t remainder;
  size_t nbytes;
  char *bufptr;
  int label;
  int finished;
  int started;
  struct _iRCCE_RECV_REQUEST *next;
  long long _openscc_engine[OPENSCC_IRCCE_ENGINE_WORDS];
} iRCCE_RECV_REQUEST;

#define iRCCE_WAIT_LIST_RECV_TYPE 0
#define iRCCE_WAIT_LIST_SEND_TYPE 1

typedef struct _iRCCE_WAIT_LISTELEM {
  int type;
  struct _iRCCE_WAIT_LISTELEM *next;
  void *req;
} iRCCE_WAIT_LISTELEM;

typedef struct _iRCCE_WAIT_LIST {
  iRCCE_WAIT_LISTELEM *first;
  iRCCE_WAIT_LISTELEM *last;
} iRCCE_WAIT_LIST;

int iRCCE_init(void);

/* Non-blocking send/receive.  A call returns iRCCE_SUCCESS when the message
 * already completed, iRCCE_PENDING when it is queued. */
int iRCCE_isend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request);
int iRCCE_isend_test(iRCCE_SEND_REQUEST *request, int *test);
int iRCCE_isend_wait(iRCCE_SEND_REQUEST *request);
int iRCCE_isend_push(void);
int iRCCE_irecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request);
int iRCCE_irecv_test(iRCCE_RECV_REQUEST *request, int *test);
int iRCCE_irecv_wait(iRCCE_RECV_REQUEST *request);
int iRCCE_irecv_push(void);

/* Synchronous blocking and non-blocking variants (iRCCE 2.0 names). */
int iRCCE_ssend(char *privbuf, ssize_t size, int dest);
int iRCCE_srecv(char *privbuf, ssize_t size, int source);
int iRCCE_srecv_test(char *privbuf, ssize_t size, int source, int *test);
int iRCCE_issend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request);
int iRCCE_isrecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request);

/* One-sided copies and gory helpers: RCCE's, in either flag form. */
#define iRCCE_put RCCE_put
#define iRCCE_get RCCE_get
#define iRCCE_malloc RCCE_malloc
#define iRCCE_flag_alloc RCCE_flag_alloc
#define iRCCE_flag_write RCCE_flag_write
#define iRCCE_flag_read RCCE_flag_read
#define iRCCE_wait_until RCCE_wait_until
#define iRCCE_memcpy_put RCCE_memcpy_put
#define iRCCE_memcpy_get RCCE_memcpy_get
#define iRCCE_memcpy iRCCE_memcpy_put

/* Wait lists. */
void iRCCE_init_wait_list(iRCCE_WAIT_LIST *list);
void iRCCE_add_to_wait_list(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq);
int iRCCE_test_all(iRCCE_WAIT_LIST *list, int *test);
int iRCCE_wait_all(iRCCE_WAIT_LIST *list);
int iRCCE_test_any(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST **sreq, iRCCE_RECV_REQUEST **rreq);
int iRCCE_wait_any(iRCCE_WAIT_LIST *list, iRCCE_SEND_REQUEST **sreq, iRCCE_RECV_REQUEST **rreq);

/* Is a message waiting (from source, or from iRCCE_ANY_SOURCE)?  *src
 * gets the sender.  iprobe never blocks; probe waits for one. */
int iRCCE_iprobe(int source, int *test, int *src);
int iRCCE_probe(int source, int *src);

/* Request queries. */
int iRCCE_get_dest(iRCCE_SEND_REQUEST *request);
int iRCCE_get_source(iRCCE_RECV_REQUEST *request);
int iRCCE_get_size(iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq);
int iRCCE_get_length(void);

/* Boards ([SCC-2BOARD] sec. IV-B; rccerun --boards): the calling UE's board
 * and the boards of the system (RCCE.h: RCCE_num_ues_dev and the others). */
int iRCCE_dev(void);
int iRCCE_num_devs(void);

#ifndef SINGLEBITFLAGS
/* Tagged flags ([SCC-2BOARD] sec. V (docs/references.md)): a big flag whose line also carries up
 * to iRCCE_MAX_TAGGED_LEN bytes, written and read together with the value. */
int iRCCE_flag_alloc_tagged(RCCE_FLAG *flag);
int iRCCE_flag_write_tagged(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int ID, void *tag, int len);
int iRCCE_flag_read_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int ID, void *tag, int len);
int iRCCE_wait_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS val, void *tag, int len);
int iRCCE_test_tagged(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result, void *tag, int len);
int iRCCE_get_max_tagged_len(void);
#define iRCCE_flag_free_tagged RCCE_flag_free
/* iRCCE's names for its tagged flags under RCCE's prefix. */
#define RCCE_flag_write_tagged iRCCE_flag_write_tagged
#define RCCE_flag_read_tagged iRCCE_flag_read_tagged
#define RCCE_wait_tagged iRCCE_wait_tagged
#define RCCE_test_tagged iRCCE_test_tagged
#define RCCE_flag_alloc_tagged iRCCE_flag_alloc_tagged
#define RCCE_flag_free_tagged iRCCE_flag_free_tagged
#endif
#ifdef AIR
/* Atomic increment registers (iRCCE 2.0 with -DAIR): two per core in the
 * FPGA of the later SCC firmware, here two per UE of the job.  The k-th
 * iRCCE_atomic_alloc call of every UE returns the same register (call them
 * symmetrically, as RCCE_malloc), zeroed; iRCCE_ERROR once all are taken.
 * iRCCE_atomic_inc returns the previous value and adds one, atomically for
 * all UEs; read and write set and get it.  Use the functions: reading
 * *counter does not increment here (docs/ircce.md "Atomic increment
 * registers"). */
typedef volatile struct _iRCCE_AIR {
  int *counter;
  int *init;
} iRCCE_AIR;
int iRCCE_atomic_alloc(iRCCE_AIR **reg);
int iRCCE_atomic_inc(iRCCE_AIR *reg, int *value);
int iRCCE_atomic_read(iRCCE_AIR *reg, int *value);
int iRCCE_atomic_write(iRCCE_AIR *reg, int value);
#endif
/* Collectives (iRCCE 2.0).  comm NULL in iRCCE_barrier means all UEs.
 * iRCCE_msend sends one message to every other UE, each of which calls
 * iRCCE_mrecv naming the sender; iRCCE_mcast is both, called by all UEs. */
int iRCCE_barrier(RCCE_COMM *comm);
int iRCCE_bcast(char *buf, size_t size, int root, RCCE_COMM comm);
int iRCCE_mcast(char *buf, size_t size, int root);
int iRCCE_msend(char *privbuf, ssize_t size);
int iRCCE_mrecv(char *privbuf, ssize_t size, int source);
/* Cancel a request that has not started moving. */
int iRCCE_isend_cancel(iRCCE_SEND_REQUEST *request, int *test);
int iRCCE_irecv_cancel(iRCCE_RECV_REQUEST *request, int *test);

/* Convenience names, as in iRCCE. */
#define RCCE_isend iRCCE_isend
#define RCCE_isend_test iRCCE_isend_test
#define RCCE_isend_wait iRCCE_isend_wait
#define RCCE_isend_push iRCCE_isend_push
#define RCCE_irecv iRCCE_irecv
#define RCCE_irecv_test iRCCE_irecv_test
#define RCCE_irecv_wait iRCCE_irecv_wait
#define RCCE_irecv_push iRCCE_irecv_push
#define RCCE_SEND_REQUEST iRCCE_SEND_REQUEST
#define RCCE_RECV_REQUEST iRCCE_RECV_REQUEST
#define iRCCE_send iRCCE_ssend
#define iRCCE_recv iRCCE_srecv
#define iRCCE_recv_test iRCCE_srecv_test
#define iRCCE_issend_test iRCCE_isend_test
#define iRCCE_issend_wait iRCCE_isend_wait
#define iRCCE_issend_push iRCCE_isend_push
#define iRCCE_isrecv_test iRCCE_irecv_test
#define iRCCE_isrecv_wait iRCCE_irecv_wait
#define iRCCE_isrecv_push iRCCE_irecv_push

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* IRCCE_H */

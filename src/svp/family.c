/*
 * SVP families ([SVP-SCC] sec. II; include/scc_rpc.h, docs/svp.md
 * "Families"): a create starts threads over an index range on a place, all
 * running one registered thread function; the data description (the
 * paper's INPUT / OUTPUT / ARRAY_SIZE) says which of the creator's buffers
 * go to the place and which come back at sync; a shared channel threads a
 * value through the threads in index order and back to the creator.
 *
 * The data moves one of three ways ([SVP-SCC] secs. III.A-C):
 *   SCC_RPC_MESSAGES    each buffer as RCCE messages through the MPBs;
 *   SCC_RPC_REMAP       the creator flushes its level 2 and sends only the
 *                       buffers' places in memory; the place maps them
 *                       through its lookup table (MPBT), copies the inputs
 *                       into its own private memory, and at the end copies
 *                       the outputs back the same way (scc_lut.h);
 *   SCC_RPC_COPY_CORES  the same, the copies made by the job's copy cores
 *                       (scc_copy.h).
 * A place keeps a family's copies in its private memory from its start
 * (scc_private_base), so that they can be remapped and handed to copy
 * cores; a family's data must fit there (rccerun --private-size).
 *
 * Messages, after the create's header (rpc.c): the description (range,
 * transfer, the shared channel's size, each buffer's size, direction and,
 * remapped, its offset in the job's memory); then, by messages, the input
 * buffers and the shared value.  The answer: the header, then the output
 * buffers (by messages) and the shared value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../copy/copy_internal.h"
#include "../lut/lut_internal.h"
#include "scc_copy.h"
#include "scc_lut.h"
#include "svp_internal.h"

struct family_desc {
  int64_t start, limit, step;
  int32_t transfer, ndata;
  uint64_t shared_bytes;
};

struct data_desc {
  uint64_t bytes, offset; /* offset: where the buffer is in the job's memory (remapped transfers) */
  int32_t dir, unused;
};

static scc_rpc_thread threads[SCC_RPC_MAX_FUNCTIONS];

/* The creator's side of the families under way, by place. */
static struct family_state {
  int active, transfer, ndata;
  int unknown_here; /* created on my own place, whose thread function is not registered */
  scc_rpc_data data[SCC_RPC_MAX_DATA];
  void *shared;
  size_t shared_bytes;
} families[RCCE_MAXNP];

int scc_rpc_register_thread(int id, scc_rpc_thread fn) {
  if (id < 0 || id >= SCC_RPC_MAX_FUNCTIONS || !fn)
    return rcce_report(RCCE_ERROR_RPC_INTERNAL, "scc_rpc_register_thread", "thread id %d outside 0..%d, or no function",
                       id, SCC_RPC_MAX_FUNCTIONS - 1);
  threads[id] = fn;
  return RCCE_SUCCESS;
}

int svp_family_pending(int place) { return families[place].active; }

static scc_rpc_thread thread_of(int id) { return id >= 0 && id < SCC_RPC_MAX_FUNCTIONS ? threads[id] : NULL; }

/* My copies of a family's buffers (malloc'ed): the inputs' bytes, the
 * outputs zeroed, as a place's copies start. */
static void copy_inputs_here(const scc_rpc_data *data, int ndata, scc_rpc_data *mine) {
  for (int k = 0; k < ndata; k++) {
    mine[k] = data[k];
    mine[k].ptr = data[k].bytes ? malloc(data[k].bytes) : NULL;
    if (data[k].bytes && !mine[k].ptr)
      rcce_fatal("scc_rpc_create_family", "no memory for a %zu-byte copy of buffer %d", data[k].bytes, k);
    if (data[k].dir & SCC_RPC_IN) memcpy(mine[k].ptr, data[k].ptr, data[k].bytes);
    else memset(mine[k].ptr, 0, data[k].bytes);
  }
}

/* A family created on the creator's own place (rpc.c: SVP's create where
 * the creator is): its threads run at once, in index order, on copies of
 * the buffers as a place's threads would, and the outputs and the shared
 * value are in the creator's buffers when the create returns.  Returns
 * whether the thread function is registered. */
static int run_family_here(int id, scc_rpc_range range, const scc_rpc_data *data, int ndata, void *shared,
                           size_t shared_bytes) {
  scc_rpc_thread fn = thread_of(id);
  if (!fn) return 0;
  scc_rpc_data mine[SCC_RPC_MAX_DATA];
  copy_inputs_here(data, ndata, mine);
  for (long i = range.start; i < range.limit; i += range.step) fn(i, mine, ndata, shared, shared_bytes);
  for (int k = 0; k < ndata; k++) {
    if (data[k].dir & SCC_RPC_OUT) memcpy(data[k].ptr, mine[k].ptr, data[k].bytes);
    free(mine[k].ptr);
  }
  return 1;
}

/* ---- the creator ---------------------------------------------------------- */

static int check_description(scc_rpc_range range, const scc_rpc_data *data, int ndata, const void *shared,
                             size_t shared_bytes, int transfer) {
  const char *where = "scc_rpc_create_family";
  if (range.step <= 0)
    return rcce_report(RCCE_ERROR_VAL_UNDEFINED, where, "the range's step is %ld (it must be positive)", range.step);
  if (transfer < SCC_RPC_MESSAGES || transfer > SCC_RPC_COPY_CORES)
    return rcce_report(RCCE_ERROR_ILLEGAL_TYPE, where, "transfer %d is none of SCC_RPC_*", transfer);
  if (transfer == SCC_RPC_COPY_CORES && scc_copy_cores() == 0)
    return rcce_report(RCCE_ERROR_ILLEGAL_TYPE, where,
                       "SCC_RPC_COPY_CORES, but the job has no copy cores (--copy-cores)");
  if (ndata < 0 || ndata > SCC_RPC_MAX_DATA || (ndata > 0 && !data) || (shared_bytes && !shared))
    return rcce_report(RCCE_ERROR_SOURCE, where, "%d buffers (0..%d) at %p, shared channel %p", ndata, SCC_RPC_MAX_DATA,
                       (const void *)data, shared);
  for (int k = 0; k < ndata; k++)
    if ((data[k].bytes && !data[k].ptr) || data[k].dir < SCC_RPC_IN || data[k].dir > SCC_RPC_INOUT)
      return rcce_report(RCCE_ERROR_SOURCE, where, "buffer %d: %zu bytes at %p, direction %d", k, data[k].bytes,
                         data[k].ptr, data[k].dir);
  return RCCE_SUCCESS;
}

/* The description that goes with the create (malloc'ed), with each
 * buffer's place in the job's memory when the data is remapped. */
static int describe(scc_rpc_range range, const scc_rpc_data *data, int ndata, size_t shared_bytes, int transfer,
                    void **out, size_t *bytes) {
  *bytes = sizeof(struct family_desc) + (size_t)ndata * sizeof(struct data_desc);
  struct family_desc *f = calloc(1, *bytes);
  if (!f) rcce_fatal("scc_rpc_create_family", "no memory for a family's description");
  *f = (struct family_desc){range.start, range.limit, range.step, transfer, ndata, shared_bytes};
  struct data_desc *d = (struct data_desc *)(f + 1);
  for (int k = 0; k < ndata; k++) {
    d[k] = (struct data_desc){data[k].bytes, 0, data[k].dir, 0};
    if (transfer != SCC_RPC_MESSAGES && data[k].bytes &&
        (lut_ready("scc_rpc_create_family") != SCC_LUT_SUCCESS ||
         lut_segment_offset(data[k].ptr, data[k].bytes, &d[k].offset) != SCC_LUT_SUCCESS)) {
      free(f);
      return rcce_report(RCCE_ERROR_SOURCE, "scc_rpc_create_family",
                         "buffer %d (%zu bytes at %p) is not in private or shared memory a LUT maps, which remapped "
                         "families need (scc_private_base, RCCE_shmalloc)",
                         k, data[k].bytes, data[k].ptr);
    }
  }
  *out = f;
  return RCCE_SUCCESS;
}

/* The create's messages to place: the description, then (by messages) the
 * input buffers, then the shared value. */
static int send_family(int place, int id, const void *desc, size_t bytes, const scc_rpc_data *data, int ndata,
                       void *shared, size_t shared_bytes, int transfer) {
  /* Remapped: the place reads memory, not this core's caches ([SVP-SCC] sec. III.B). */
  if (transfer != SCC_RPC_MESSAGES) scc_l2_flush();
  int rc = svp_send_message(place, RPC_FAMILY, id, desc, bytes);
  for (int k = 0; rc == RCCE_SUCCESS && transfer == SCC_RPC_MESSAGES && k < ndata; k++)
    if ((data[k].dir & SCC_RPC_IN) && data[k].bytes) rc = RCCE_send(data[k].ptr, data[k].bytes, place);
  if (rc == RCCE_SUCCESS && shared_bytes) rc = RCCE_send(shared, shared_bytes, place);
  return rc;
}

int scc_rpc_create_family(int place, int id, scc_rpc_range range, const scc_rpc_data *data, int ndata, void *shared,
                          size_t shared_bytes, int transfer, scc_rpc_handle *h) {
  int rc = rcce_check_ue(place, "scc_rpc_create_family");
  if (rc == RCCE_SUCCESS && !h) rc = rcce_report(RCCE_ERROR_SOURCE, "scc_rpc_create_family", "h is NULL");
  if (rc == RCCE_SUCCESS) rc = check_description(range, data, ndata, shared, shared_bytes, transfer);
  if (rc != RCCE_SUCCESS) return rc;
  if (svp_pending[place])
    return rcce_report(RCCE_ERROR_MULTIPLE_RPC_REQUESTS, "scc_rpc_create_family",
                       "a create on UE %d is not synced yet (one per place at a time)", place);
  h->place = -1;
  void *desc = NULL;
  size_t bytes;
  if ((rc = describe(range, data, ndata, shared_bytes, transfer, &desc, &bytes)) != RCCE_SUCCESS) return rc;
  int unknown_here = 0;
  if (place == rcce_my_ue()) unknown_here = !run_family_here(id, range, data, ndata, shared, shared_bytes);
  else rc = send_family(place, id, desc, bytes, data, ndata, shared, shared_bytes, transfer);
  free(desc);
  if (rc != RCCE_SUCCESS) return rc;
  struct family_state *f = &families[place];
  *f = (struct family_state){1, transfer, ndata, unknown_here, {{0}}, shared, shared_bytes};
  if (ndata) memcpy(f->data, data, (size_t)ndata * sizeof *data);
  svp_pending[place] = 1;
  h->place = place;
  h->id = id;
  return RCCE_SUCCESS;
}

/* The place's answer: its header, then (by messages) the output buffers,
 * then the shared value. */
static int receive_family_answer(const struct family_state *f, int place, struct rpc_header *r) {
  int rc = RCCE_recv((char *)r, sizeof *r, place);
  int ran = r->kind == RPC_RESULT || r->kind == RPC_KILLED; /* RPC_UNKNOWN: nothing follows */
  for (int k = 0; rc == RCCE_SUCCESS && ran && f->transfer == SCC_RPC_MESSAGES && k < f->ndata; k++)
    if ((f->data[k].dir & SCC_RPC_OUT) && f->data[k].bytes) rc = RCCE_recv(f->data[k].ptr, f->data[k].bytes, place);
  if (rc == RCCE_SUCCESS && ran && f->shared_bytes) rc = RCCE_recv(f->shared, f->shared_bytes, place);
  if (rc == RCCE_SUCCESS) rc = svp_kill_taken(place);
  return rc;
}

int svp_sync_family(int place, int id) {
  struct family_state *f = &families[place];
  struct rpc_header r = {f->unknown_here ? RPC_UNKNOWN : RPC_RESULT, id, 0};
  int rc = place == rcce_my_ue() ? RCCE_SUCCESS : receive_family_answer(f, place, &r);
  f->active = 0;
  svp_pending[place] = 0;
  if (rc != RCCE_SUCCESS) return rc;
  if (r.kind == RPC_UNKNOWN)
    return rcce_report(RCCE_ERROR_RPC_NOT_ALLOCATED, "scc_rpc_sync", "UE %d has no thread function %d registered",
                       place, id);
  return r.kind == RPC_KILLED ? SCC_RPC_KILLED : RCCE_SUCCESS;
}

/* ---- the place --------------------------------------------------------------- */

/* A creator's buffer at `offset` of the job's memory to my copy at `mine`,
 * or back (to_creator): copied by me through my LUT (copy_remapped), or by
 * the copy cores from a mapping of it ([SVP-SCC] secs. III.B-C). */
static void move_remapped(unsigned char *mine, uint64_t offset, size_t bytes, int transfer, int to_creator) {
  if (transfer != SCC_RPC_COPY_CORES) {
    uint64_t local, copied = 0;
    lut_segment_offset(mine, bytes, &local); /* my copies are in my private memory (place_copies) */
    if (copy_remapped(to_creator ? offset : local, to_creator ? local : offset, bytes, 0, bytes, bytes, &copied) !=
        SCC_COPY_SUCCESS)
      rcce_fatal("scc_rpc_serve", "cannot map %zu bytes of the creator's memory (LUT full?)", bytes);
    return;
  }
  void *theirs;
  if (lut_map_offset(offset, bytes, SCC_LUT_MPBT, &theirs) != SCC_LUT_SUCCESS)
    rcce_fatal("scc_rpc_serve", "cannot map %zu bytes of the creator's memory (LUT full?)", bytes);
  if ((to_creator ? scc_copy(theirs, mine, bytes) : scc_copy(mine, theirs, bytes)) != SCC_COPY_SUCCESS)
    rcce_fatal("scc_rpc_serve", "the copy cores could not copy %zu bytes", bytes);
  scc_unmap(theirs, bytes);
}

/* My copies of the family's buffers: one after another from the start of
 * my private memory, each on its own line. */
static void place_copies(const struct data_desc *d, int ndata, scc_rpc_data *mine, unsigned char **shared,
                         size_t shared_bytes) {
  unsigned char *base = scc_private_base();
  size_t used = 0, room = scc_private_size();
  for (int k = 0; k <= ndata; k++) {
    size_t bytes = k < ndata ? d[k].bytes : shared_bytes;
    if (!base || bytes > room - used)
      rcce_fatal("scc_rpc_serve",
                 "a family's data does not fit UE %d's %zu bytes of private memory (rccerun "
                 "--private-size)",
                 rcce_my_ue(), room);
    if (k < ndata) mine[k] = (scc_rpc_data){base + used, bytes, d[k].dir};
    else *shared = base + used;
    used += (bytes + 31) / 32 * 32;
  }
}

int svp_run_family(int source, int id, const void *description, size_t bytes) {
  const struct family_desc *f = description;
  const struct data_desc *d = (const struct data_desc *)(f + 1);
  if (bytes < sizeof *f || f->ndata < 0 || f->ndata > SCC_RPC_MAX_DATA ||
      bytes != sizeof *f + (size_t)f->ndata * sizeof *d)
    rcce_fatal("scc_rpc_serve", "a malformed family description from UE %d", source);
  scc_rpc_data mine[SCC_RPC_MAX_DATA];
  unsigned char *shared = NULL;
  place_copies(d, f->ndata, mine, &shared, f->shared_bytes);
  int rc = RCCE_SUCCESS;
  for (int k = 0; rc == RCCE_SUCCESS && k < f->ndata; k++) {
    if (!(d[k].dir & SCC_RPC_IN) || !d[k].bytes) memset(mine[k].ptr, 0, d[k].bytes);
    else if (f->transfer == SCC_RPC_MESSAGES) rc = RCCE_recv(mine[k].ptr, d[k].bytes, source);
    else move_remapped(mine[k].ptr, d[k].offset, d[k].bytes, f->transfer, 0);
  }
  if (rc == RCCE_SUCCESS && f->shared_bytes) rc = RCCE_recv((char *)shared, f->shared_bytes, source);
  if (rc != RCCE_SUCCESS) return rc;
  scc_rpc_thread fn = thread_of(id);
  if (!fn) return svp_send_message(source, RPC_UNKNOWN, id, NULL, 0);
  int killed = 0; /* looked for before each thread (kill.c) */
  for (long i = f->start; i < f->limit && !(killed = svp_kill_arrived(source)); i += f->step)
    fn(i, mine, f->ndata, shared, f->shared_bytes);
  if (f->transfer != SCC_RPC_MESSAGES) {
    scc_l2_flush(); /* my results reach memory before the creator's copies are made from it */
    for (int k = 0; k < f->ndata; k++)
      if ((d[k].dir & SCC_RPC_OUT) && d[k].bytes) move_remapped(mine[k].ptr, d[k].offset, d[k].bytes, f->transfer, 1);
  }
  rc = svp_send_message(source, killed ? RPC_KILLED : RPC_RESULT, id, NULL, 0);
  for (int k = 0; rc == RCCE_SUCCESS && f->transfer == SCC_RPC_MESSAGES && k < f->ndata; k++)
    if ((d[k].dir & SCC_RPC_OUT) && d[k].bytes) rc = RCCE_send(mine[k].ptr, d[k].bytes, source);
  if (rc == RCCE_SUCCESS && f->shared_bytes) rc = RCCE_send((char *)shared, f->shared_bytes, source);
  return rc;
}

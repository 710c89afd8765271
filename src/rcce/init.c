/* RCCE_init / RCCE_finalize and the per-UE view of the job. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../hw/peer_copy.h"
#include "../openscc_api.h"
#include "rcce_internal.h"

struct rcce_state rcce_g = {.ue = -1};
int RCCE_IAM = -1;
int RCCE_NP = 0;
t_vcharp RCCE_comm_buffer[RCCE_MAXNP];
t_vcharp RCCE_buff_ptr;
size_t RCCE_chunk;
RCCE_COMM RCCE_COMM_WORLD;
RCCE_COMM RCCE_P_COMM;

#define STANDALONE_SHARED_BYTES (64u << 20)

/* RCCE_init cannot go on: stop the UE (docs/errors.md, "Fatal errors"). */
static _Noreturn void die(const char *fmt, const char *detail) {
  char why[400];
  snprintf(why, sizeof why, fmt, detail);
  rcce_fatal("RCCE_init failed", "%s", why);
}

/* A program started without rccerun runs as a one-UE job on core 0. */
static void attach_standalone(void) {
  static struct hw_job_params p;
  char err[256];
  rcce_g.ue = 0; /* first, so a failure below names UE 0 (docs/errors.md) */
  memset(&p, 0, sizeof p);
  p.nue = 1;
  if (chip_preset("scc", &p.chip, err, sizeof err) != 0) die("%s", err);
  p.shared_bytes = STANDALONE_SHARED_BYTES;
  p.svm_bytes = STANDALONE_SHARED_BYTES;
  p.private_bytes = STANDALONE_SHARED_BYTES;
  p.set.mailbox_irq = 1;
  p.set.initial_divider = p.chip.default_divider;
  p.set.spin_limit = 1000;
  p.set.single_copy = 1;
  p.set.mpi_channel = HW_MPI_CHANNEL_NONE; /* not an MPI job (0 would be the rckmpi channel) */
  if (hw_job_create_private(&p, &rcce_g.job, err, sizeof err) != 0) die("%s", err);
}

/* The job rccerun started this UE in, or a one-UE job of its own. */
static void attach_job(void) {
  char err[256];
  int r = hw_job_attach_env(&rcce_g.job, &rcce_g.ue, err, sizeof err);
  if (r == 1) attach_standalone();
  else if (r != 0) die("%s", err);
}

/* Every UE of a job must be built with the same flag form and interface. */
static void agree(_Atomic int32_t *slot, int mine, const char *what) {
  int32_t expected = 0;
  if (!__atomic_compare_exchange_n(slot, &expected, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) && expected != mine)
    die("UEs of this job were compiled with different %s options", what);
}

/* Lines kept free above the send buffer for later RCCE_comm_split barriers
 * and RCCE_flag_alloc calls of basic-interface programs. */
#define SPARE_FLAG_LINES 8

/* Big flags: 2 per peer, 2 barrier lines, the spares and at least one line of
 * send buffer must fit the MPB (docs/rcce.md, "MPB budget"). */
static void check_flag_budget(void) {
  uint32_t nlines = rcce_g.mpb_bytes / rcce_g.line;
  uint32_t flag_lines =
      rcce_g.flag_mode == RCCE_FLAGMODE_BIG ? 2u * (uint32_t)rcce_g.nue : (2u * (uint32_t)rcce_g.nue + 255) / 256;
  if (flag_lines + 2 + SPARE_FLAG_LINES + 1 <= nlines) return;
  char msg[256];
  snprintf(msg, sizeof msg,
           "%d UEs need more flag lines than a %u-byte MPB holds; compile with -DSINGLEBITFLAGS "
           "or use a chip with a larger MPB (--chip WxHxC:BYTES)",
           rcce_g.nue, rcce_g.mpb_bytes);
  die("%s", msg);
}

static void alloc_basic_resources(void) {
  rcce_g.sent = calloc((size_t)rcce_g.nue, sizeof *rcce_g.sent);
  rcce_g.ready = calloc((size_t)rcce_g.nue, sizeof *rcce_g.ready);
  rcce_g.send_seq = calloc((size_t)rcce_g.nue, sizeof *rcce_g.send_seq);
  rcce_g.recv_seq = calloc((size_t)rcce_g.nue, sizeof *rcce_g.recv_seq);
  if (!rcce_g.sent || !rcce_g.ready || !rcce_g.send_seq || !rcce_g.recv_seq) die("%s", "out of memory");
  /* sent[u] and ready[u] are both written by u: adjacent lines share a host
   * cache line, so one transfer carries both. */
  for (int u = 0; u < rcce_g.nue; u++) {
    if (rcce_iflag_alloc(&rcce_g.sent[u]) || rcce_iflag_alloc(&rcce_g.ready[u]))
      die("%s", "no MPB line left for flags");
  }
}

static void alloc_comm_buffer(void) {
  uint64_t largest = rcce_range_largest_free(&rcce_g.mpb_alloc);
  uint64_t lines = largest > SPARE_FLAG_LINES ? largest - SPARE_FLAG_LINES : 0;
  int64_t start = lines ? rcce_range_alloc_low(&rcce_g.mpb_alloc, lines) : -1;
  if (start < 0) die("%s", "no MPB space left for the send buffer");
  RCCE_buff_ptr = RCCE_comm_buffer[rcce_g.ue] + start * rcce_g.line;
  RCCE_chunk = lines * rcce_g.line;
}

/* RCCE's world (the job's UEs but the copy cores), my core, the line and MPB sizes. */
static void set_geometry(const struct hw_header *h) {
  rcce_g.nue = HW_PROGRAM_UES(h);
  rcce_g.core = hw_ue(&rcce_g.job, rcce_g.ue)->core;
  rcce_g.line = (uint32_t)h->chip.line_bytes;
  rcce_g.mpb_bytes = (uint32_t)h->chip.mpb_bytes_per_core;
}

/* My pid for the launcher, my clock and my monitoring records. */
static struct hw_ue *start_clock(void) {
  struct hw_ue *me = hw_ue(&rcce_g.job, rcce_g.ue);
  me->pid = (int32_t)getpid();
  if (timing_init(&rcce_g.job, rcce_g.ue) != 0) die("%s", "out of memory for the timing model");
  timing_record_init(&rcce_g.job, rcce_g.ue);
  return me;
}

static int init_common(int flag_mode, int gory) {
  if (rcce_g.initialized) return RCCE_SUCCESS;
  attach_job();
  struct hw_header *h = rcce_g.job.hdr;
  /* This layer's regions (rcce_shared.h): present, since attach checked the layout hash. */
  rcce_g.shared = rcce_job_shared_of(&rcce_g.job);
  rcce_g.ue_shared = rcce_ue_shared_of(&rcce_g.job, 0);
  agree(&rcce_g.shared->flag_mode, flag_mode, "flag (-DSINGLEBITFLAGS)");
  agree(&rcce_g.shared->iface, gory ? RCCE_IFACE_GORY : RCCE_IFACE_BASIC, "interface (-DGORY)");
  rcce_g.flag_mode = flag_mode;
  rcce_g.gory = gory;
  if (h->set.tagged_flags == HW_TAGGED_ON && flag_mode != RCCE_FLAGMODE_BIG)
    die("%s", "tagged flags (rccerun --flags tagged) need big flags; the program is built with -DSINGLEBITFLAGS");
  /* The options shape the basic interface's protocol; gory programs bring their own. */
  rcce_g.tagged = rcce_tagged_messages(h, flag_mode, gory ? RCCE_IFACE_GORY : RCCE_IFACE_BASIC);
  rcce_g.rplg = h->set.scheme == HW_SCHEME_RPLG && !gory;
  rcce_g.landing_owner = -1;
  set_geometry(h);
  if (rcce_g.ue >= rcce_g.nue) die("%s", "this UE is a copy core (rccerun --copy-cores), which runs no program");
  if (rcce_g.line != RCCE_LINE_SIZE) die("%s", "chip line size differs from RCCE_LINE_SIZE (32)");
  if (h->set.debug) RCCE_debug_set(RCCE_DEBUG_ALL);
  RCCE_IAM = rcce_g.ue;
  RCCE_NP = rcce_g.nue;
  for (int u = 0; u < rcce_g.nue; u++) RCCE_comm_buffer[u] = hw_mpb(&rcce_g.job, hw_ue(&rcce_g.job, u)->core);
  if (h->set.asym_fence && hw_asym_fence_register() != 0)
    die("%s", "membarrier registration refused (set OPENSCC_ASYM_FENCE=0)");
  /* The single-copy path (single_copy.c) reads and writes the peers' memory:
   * let the job's other UEs in (docs/rccerun.md, "Single-copy transfers and
   * ptrace"); under Yama's ptrace_scope 2 or 3 copies fail and fall back to
   * MPB chunks. */
  hw_allow_peer_copies(h);
  struct hw_ue *me = start_clock();
  uint32_t nlines = rcce_g.mpb_bytes / rcce_g.line;
  rcce_g.flag_line = calloc(nlines, 1);
  rcce_g.recv_queue = calloc((size_t)rcce_g.nue, sizeof *rcce_g.recv_queue);
  if (!rcce_g.flag_line || !rcce_g.recv_queue || rcce_range_alloc_init(&rcce_g.mpb_alloc, nlines) ||
      rcce_range_alloc_init(&rcce_g.shm_alloc, h->shared_bytes / rcce_g.line))
    die("%s", "out of memory");
  if (!gory) {
    check_flag_budget();
    alloc_basic_resources();
  }
  if (rcce_comm_setup_world() != RCCE_SUCCESS) die("%s", "no MPB line left for the barrier");
  if (!gory) alloc_comm_buffer();
  rcce_g.initialized = 1;
  __atomic_store_n(&me->state, HW_UE_RUNNING, __ATOMIC_RELEASE);
  __atomic_fetch_add(&rcce_g.shared->init_count, 1, __ATOMIC_ACQ_REL);
  RCCE_barrier(&RCCE_COMM_WORLD);
  return RCCE_SUCCESS;
}

/* A copy core (rccerun --copy-cores; copy layer): this UE of the job with
 * its clock and the rcce interface's view of the job, outside RCCE's world
 * (no flags, no barrier). */
void rcce_init_service(void) {
  if (rcce_g.initialized) return;
  attach_job();
  set_geometry(rcce_g.job.hdr);
  struct hw_ue *me = start_clock();
  timing_runtime_only();
  rcce_g.initialized = 1;
  __atomic_store_n(&me->state, HW_UE_RUNNING, __ATOMIC_RELEASE);
}

/* The clock stops; the launcher sees me done. */
void rcce_finalize_service(void) {
  timing_finalize();
  rcce_g.finalized = 1;
  fflush(NULL);
  __atomic_store_n(&hw_ue(&rcce_g.job, rcce_g.ue)->state, HW_UE_FINALIZED, __ATOMIC_RELEASE);
}

/* One entry point per compile-time variant (RCCE.h renames RCCE_init), each
 * exported: the library's own build declares only RCCE_init. */
#define INIT_VARIANT(name, flag_mode, gory)      \
  OPENSCC_API int name(int *argc, char ***argv); \
  int name(int *argc, char ***argv) {            \
    (void)argc;                                  \
    (void)argv;                                  \
    return init_common(flag_mode, gory);         \
  }
INIT_VARIANT(RCCE_init, RCCE_FLAGMODE_BIG, 0)
INIT_VARIANT(RCCE_init_gory, RCCE_FLAGMODE_BIG, 1)
INIT_VARIANT(RCCE_init_singlebit, RCCE_FLAGMODE_SINGLEBIT, 0)
INIT_VARIANT(RCCE_init_gory_singlebit, RCCE_FLAGMODE_SINGLEBIT, 1)

int RCCE_finalize(void) {
  TIMING_SCOPE();
  if (!rcce_g.initialized || rcce_g.finalized) return RCCE_SUCCESS;
  while (rcce_g.nfinalize_hooks > 0) rcce_g.finalize_hooks[--rcce_g.nfinalize_hooks]();
  RCCE_barrier(&RCCE_COMM_WORLD);
  rcce_finalize_service();
  return RCCE_SUCCESS;
}

double RCCE_wtime(void) {
  TIMING_SCOPE();
  /* Model mode: virtual seconds, frozen at RCCE_finalize. */
  if (rcce_g.initialized && rcce_g.job.hdr->set.model) return timing_wtime();
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rcce_at_finalize(void (*fn)(void)) {
  int max = (int)(sizeof rcce_g.finalize_hooks / sizeof rcce_g.finalize_hooks[0]);
  if (rcce_g.nfinalize_hooks >= max) return -1;
  rcce_g.finalize_hooks[rcce_g.nfinalize_hooks++] = fn;
  return 0;
}

int RCCE_ue(void) { return rcce_g.ue; }
int RCCE_num_ues(void) { return rcce_g.nue; }
void RCCE_cache_invalidate(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void RCCE_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* The provider's process is a UE of the job: on the first fabric open it
 * attaches as RCCE_init does (hw_job_attach_env: OPENSCC_SHM_FD and
 * OPENSCC_UE), starts the UE's clock and monitoring records, shows the UE
 * running and opens the channel the job chose (rccerun --mpi-channel); when
 * the last fabric closes (MPI_Finalize) it drains the sends, closes the
 * channel and shows the UE finalized. */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../hw/wait.h"
#include "provider.h"

struct prov_process prov_g = {.ue = -1};
pthread_mutex_t prov_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* The job's number in the provider's addresses: every host's replica of a
 * job across hosts has its own launcher (the host's agent). */
int prov_job_id(void) {
  const struct hw_header *h = prov_g.job.hdr;
  return h->set.hosts_job ? h->set.hosts_job : h->launcher_pid;
}

/* A failure the user must see: the MPI library only reports the error code. */
static int fail(const char *what, int code) {
  fprintf(stderr, "openscc provider on UE %d: %s\n", prov_g.ue, what);
  return code;
}

_Noreturn void prov_out_of_memory(const char *fmt, ...) {
  char what[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "openscc provider on UE %d: out of memory (%s)\n", prov_g.ue, what);
  abort();
}

/* The attached process becomes the UE: fence, send counts, pid, clock. */
static int start_ue(void) {
  const struct hw_header *h = prov_g.job.hdr;
  /* The waits use the asymmetric fence when the job does (hw/wait.h). */
  if (h->set.asym_fence && hw_asym_fence_register() != 0)
    return fail("membarrier registration refused (set OPENSCC_ASYM_FENCE=0)", -FI_EOTHER);
  prov_g.pending_to = calloc(h->nue, sizeof *prov_g.pending_to);
  if (!prov_g.pending_to) return fail("out of memory", -FI_ENOMEM);
  hw_ue(&prov_g.job, prov_g.ue)->pid = (int32_t)getpid();
  if (timing_init(&prov_g.job, prov_g.ue) != 0) return fail("out of memory for the timing model", -FI_ENOMEM);
  timing_record_init(&prov_g.job, prov_g.ue);
  return 0;
}

static int attach(void) {
  char err[256];
  int r = hw_job_attach_env(&prov_g.job, &prov_g.ue, err, sizeof err);
  if (r == 1) return -FI_ENODATA; /* getinfo already said why */
  if (r != 0) return fail(err, -FI_EINVAL);
  r = start_ue();
  if (r != 0) { /* a later fi_fabric attaches afresh */
    free(prov_g.pending_to);
    prov_g.pending_to = NULL;
    hw_job_detach(&prov_g.job);
    return r;
  }
  prov_g.attached = 1;
  return 0;
}

/* The channel of the job's protocol (rccerun --mpi-channel). */
static int open_channel(void) {
  PROV_TIMING_SCOPE();
  char err[256];
  enum mpi_channel_kind kind = (enum mpi_channel_kind)prov_g.job.hdr->set.mpi_channel;
  if (mpi_channel_open(&prov_g.job, prov_g.ue, kind, &prov_sink, err, sizeof err) != 0) return fail(err, -FI_EINVAL);
  prov_g.channel_open = 1;
  return 0;
}

int prov_job_open(void) {
  if (prov_g.closed) return fail("the fabric was closed already (MPI initializes once per process)", -FI_EBUSY);
  if (prov_g.fabrics > 0) {
    prov_g.fabrics++;
    return 0;
  }
  if (!prov_g.attached) {
    int r = attach();
    if (r != 0) return r;
  }
  int r = open_channel();
  if (r != 0) return r;
  prov_g.fabrics = 1;
  __atomic_store_n(&hw_ue(&prov_g.job, prov_g.ue)->state, HW_UE_RUNNING, __ATOMIC_RELEASE);
  return 0;
}

/* Whether a send to a UE that may still read it is under way.  Packets to
 * a UE that has finalized are dropped with the channel: nobody reads them
 * (an MPI library's last protocol messages, e.g. acknowledgements). */
static int sends_to_live_peer(uint32_t u) {
  return prov_g.pending_to[u] &&
         __atomic_load_n(&hw_ue(&prov_g.job, (int)u)->state, __ATOMIC_ACQUIRE) != HW_UE_FINALIZED;
}

static int sends_to_live_peers(void) {
  for (uint32_t u = 0; u < prov_g.job.hdr->nue; u++)
    if (sends_to_live_peer(u)) return 1;
  return 0;
}

/* How long the drain waits without a round moving: a peer that has not
 * finalized but takes no packet (it hangs, or exited without closing its
 * fabric) must not keep this UE from finishing. */
#define DRAIN_STALL_NS 5000000000ull

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The drain gave up: one line naming the UEs whose packets are dropped. */
static void report_dropped(void) {
  char list[512];
  size_t n = 0;
  list[0] = '\0';
  for (uint32_t u = 0; u < prov_g.job.hdr->nue && n < sizeof list; u++)
    if (sends_to_live_peer(u))
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%llu to UE %u", n ? ", " : "",
                            (unsigned long long)prov_g.pending_to[u], u);
  fprintf(stderr, "openscc provider on UE %d: closing; dropping the packets nobody took for %llu s: %s\n", prov_g.ue,
          DRAIN_STALL_NS / 1000000000ull, list);
}

static void drain_and_close_channel(void) {
  PROV_TIMING_SCOPE();
  uint64_t last_move = monotonic_ns();
  while (sends_to_live_peers()) {
    if (prov_progress() > 0) last_move = monotonic_ns();
    else if (monotonic_ns() - last_move > DRAIN_STALL_NS) {
      report_dropped();
      break;
    } else prov_idle();
  }
  mpi_channel_close();
  prov_g.channel_open = 0;
  prov_g.closed = 1;
}

void prov_job_close(void) {
  if (--prov_g.fabrics > 0) return;
  drain_and_close_channel();
  timing_finalize();
  __atomic_store_n(&hw_ue(&prov_g.job, prov_g.ue)->state, HW_UE_FINALIZED, __ATOMIC_RELEASE);
}

/* mpi/channel: packets move intact and in order between every pair of UEs
 * through the emulated MPB, with both protocols (rckmpi: base + extended,
 * rckmpi-original), at 2, 8 and 48 UEs of the scc preset and on a chip with
 * a tiny MPB (the header then spans rounds).  Each UE is a forked process
 * attached to the job segment; every UE sends every size to every UE
 * (itself included) with several iov pieces on both sides, some receivers
 * take only a prefix, the last packet of each pair is acknowledged by a
 * packet posted from inside complete(), and one scenario keeps a receiver
 * away while the others must finish their own exchange; another keeps one
 * away while its sender's rounds to a third UE must still use the gEWS. */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/trace.h"
#include "hw/wait.h"
#include "mpi/channel.h"
#include "mpi/channel_internal.h"
#include "mpi/channel_sccmpich.h"
#include "mpi/mpi_shared.h"
#include "timing/timing.h"
#include "timing/timing_shared.h"
#include "unit.h"

#define MAX_SIZES 12
#define GUARD 16 /* bytes after a receive target that must stay untouched */
#define GUARD_BYTE 0xEE

enum { KIND_DATA = 1, KIND_ACK = 2 };

/* What travels in the provider's header (32 bytes). */
struct test_header {
  uint32_t magic, src, dst, index, kind, prefix_only;
  uint64_t size;
};
_Static_assert(sizeof(struct test_header) == MPI_PACKET_HEADER, "test header is not a packet header");
#define MAGIC 0x6d706963u

struct scenario {
  const char *chip;
  int nue;
  enum mpi_channel_kind kind;
  const uint64_t *sizes;
  int nsizes;
  int late_ue;     /* a receiver that starts only once the others are done with each other (-1: none) */
  int model;       /* model mode, messages recorded at the targets trace level */
  int single_copy; /* large payloads by native single copy (rccerun's default; off: --no-single-copy) */
  int refuse;      /* the kernel refuses the single copies: UE 0 may not be read (not dumpable, no CAP_SYS_PTRACE) */
};

static unsigned char pattern(int src, int dst, int index, uint64_t i) {
  return (unsigned char)(((i * 2654435761u) >> 13) + (uint64_t)src * 37 + (uint64_t)dst * 101 + (uint64_t)index * 7);
}

/* --- one UE ---------------------------------------------------------------- */

static struct {
  const struct scenario *sc;
  int me;
  int *data_from;     /* DATA packets received per sender */
  int acks, failures; /* ACKs received; checks failed in callbacks */
  uint64_t sends_done;
} ue;

struct out_packet {
  struct mpi_out_packet p;
  struct iovec iov[4];
  unsigned char *buf;
};

struct in_packet {
  struct test_header h;
  struct iovec iov[3];
  unsigned char *buf;
  uint64_t len; /* target bytes: the whole payload or a prefix */
};

#define FAIL_IF(cond)                                                          \
  do {                                                                         \
    if (cond) {                                                                \
      ue.failures++;                                                           \
      fprintf(stderr, "UE %d: %s:%d: %s\n", ue.me, __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

static void sent(struct mpi_out_packet *p) {
  struct out_packet *o = (struct out_packet *)p;
  FAIL_IF(p->sent != MPI_PACKET_HEADER + p->payload_bytes);
  free(o->buf);
  free(o);
  ue.sends_done++;
}

/* Post a packet of `size` bytes, its payload in four iov pieces (one empty). */
static struct out_packet *post(int dst, int index, int kind, uint64_t size) {
  struct out_packet *o = calloc(1, sizeof *o);
  o->buf = malloc(size ? size : 1);
  for (uint64_t i = 0; i < size; i++) o->buf[i] = pattern(ue.me, dst, index, i);
  uint64_t a = size / 3, b = size - size / 4;
  o->iov[0] = (struct iovec){o->buf, a};
  o->iov[1] = (struct iovec){o->buf + a, 0};
  o->iov[2] = (struct iovec){o->buf + a, b - a};
  o->iov[3] = (struct iovec){o->buf + b, size - b};
  struct test_header h = {MAGIC, (uint32_t)ue.me, (uint32_t)dst, (uint32_t)index, (uint32_t)kind, index % 3 == 2, size};
  memcpy(o->p.header, &h, sizeof h);
  o->p.dest = dst;
  o->p.iov = o->iov;
  o->p.iov_count = 4;
  o->p.payload_bytes = size;
  o->p.done = sent;
  if (timing_enabled) timing_enter(); /* as the provider's entry points (nested: counted once) */
  mpi_channel_post(&o->p);
  if (timing_enabled) timing_leave();
  return o;
}

static void arrived(void *arg, int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes,
                    struct mpi_in_target *t) {
  struct in_packet *in = calloc(1, sizeof *in);
  memcpy(&in->h, header, sizeof in->h);
  FAIL_IF(in->h.magic != MAGIC || in->h.src != (uint32_t)src || in->h.dst != (uint32_t)ue.me);
  FAIL_IF(in->h.size != payload_bytes);
  /* per-pair order: DATA packets come in the order they were posted */
  if (in->h.kind == KIND_DATA) FAIL_IF(in->h.index != (uint32_t)ue.data_from[src]);
  in->len = in->h.prefix_only ? payload_bytes / 2 : payload_bytes;
  in->buf = malloc(in->len + GUARD);
  memset(in->buf, GUARD_BYTE, in->len + GUARD);
  uint64_t a = in->len > 0 ? 1 : 0, b = in->len / 2 > a ? in->len / 2 : a;
  in->iov[0] = (struct iovec){in->buf, a};
  in->iov[1] = (struct iovec){in->buf + a, b - a};
  in->iov[2] = (struct iovec){in->buf + b, in->len - b};
  t->iov = in->iov;
  t->iov_count = 3;
  t->cookie = in;
}

static void complete(void *arg, int src, struct mpi_in_target *t) {
  struct in_packet *in = t->cookie;
  int bad = 0;
  for (uint64_t i = 0; i < in->len; i++) bad += in->buf[i] != pattern(src, ue.me, (int)in->h.index, i);
  for (uint64_t i = in->len; i < in->len + GUARD; i++) bad += in->buf[i] != GUARD_BYTE;
  FAIL_IF(bad != 0);
  if (in->h.kind == KIND_ACK) {
    ue.acks++;
  } else if (++ue.data_from[src] == ue.sc->nsizes) {
    post(src, ue.sc->nsizes, KIND_ACK, 1); /* from inside the callback */
  }
  free(in->buf);
  free(in);
}

static int data_done_except(int skip) {
  for (int s = 0; s < ue.sc->nue; s++)
    if (s != skip && ue.data_from[s] < ue.sc->nsizes) return 0;
  return 1;
}

/* One call of the provider's progress loop. */
static void progress(void) {
  if (timing_enabled) timing_enter();
  int moved = mpi_channel_progress();
  if (!moved) mpi_channel_idle();
  if (timing_enabled) timing_leave();
}

static void progress_until_done_with(int skip) {
  while (!data_done_except(skip)) progress();
}

/* The late UE waits (outside the channel) for the others to count themselves done. */
static _Atomic int *others_done(struct hw_job *job) { return (_Atomic int *)hw_shared(job); }

/* Attach UE me to the job and open its channel: 0, or the UE's exit status. */
static int open_ue(const struct scenario *sc, int fd, int me, struct hw_job *job) {
  char err[256];
  if (hw_job_attach(fd, job, err, sizeof err) != 0) return fprintf(stderr, "UE %d: %s\n", me, err), 2;
  if (timing_init(job, me) != 0) return fprintf(stderr, "UE %d: timing_init failed\n", me), 4;
  timing_record_init(job, me);
  hw_ue(job, me)->pid = (int32_t)getpid(); /* as the provider records it (prov_job.c): single copy checks it */
  struct mpi_channel_sink sink = {.arrived = arrived, .complete = complete};
  if (mpi_channel_open(job, me, sc->kind, &sink, err, sizeof err) != 0)
    return fprintf(stderr, "UE %d: %s\n", me, err), 3;
  ue.sc = sc;
  ue.me = me;
  ue.data_from = calloc((size_t)sc->nue, sizeof *ue.data_from);
  return 0;
}

static int close_ue(struct hw_job *job) {
  mpi_channel_close();
  timing_finalize();
  hw_job_detach(job);
  return ue.failures ? 1 : 0;
}

static int run_ue(const struct scenario *sc, int fd, int me) {
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  if (me == sc->late_ue)
    while (__atomic_load_n(others_done(&job), __ATOMIC_ACQUIRE) < sc->nue - 1) usleep(1000);
  for (int k = 1; k <= sc->nue; k++)
    for (int i = 0; i < sc->nsizes; i++) post((me + k) % sc->nue, i, KIND_DATA, sc->sizes[i]);
  if (sc->late_ue >= 0 && me != sc->late_ue) {
    progress_until_done_with(sc->late_ue); /* while the late UE reads nothing */
    __atomic_fetch_add(others_done(&job), 1, __ATOMIC_RELEASE);
  }
  progress_until_done_with(-1);
  while (ue.acks < sc->nue || mpi_channel_pending() > 0) progress();
  FAIL_IF(ue.sends_done != (uint64_t)sc->nue * (uint64_t)(sc->nsizes + 1));
  return close_ue(&job);
}

/* --- the job ------------------------------------------------------------------ */

static int make_job(const char *chip, int nue, int model, struct hw_job *job) {
  struct hw_job_params p;
  char err[256];
  memset(&p, 0, sizeof p);
  p.nue = nue;
  if (chip_preset(chip, &p.chip, err, sizeof err) != 0) return fprintf(stderr, "%s\n", err), -1;
  for (int u = 0; u < nue; u++) p.ue_core[u] = chip_num_cores(&p.chip) - 1 - u; /* UE != core */
  p.shared_bytes = 4096;
  p.set.initial_divider = 3;
  p.set.spin_limit = 200; /* small budgets: the naps on the doorbell are exercised too */
  p.set.yield_limit = 2;
  p.set.model = model;
  p.set.trace_level = model ? HW_TRACE_TARGETS : HW_TRACE_OFF;
  if (hw_job_create(&p, job, err, sizeof err) != 0) return fprintf(stderr, "%s\n", err), -1;
  return 0;
}

static void check_statistics(const struct scenario *sc, struct hw_job *job) {
  uint64_t rounds_sent = 0, rounds_recv = 0, packets_recv = 0, gews = 0;
  for (int u = 0; u < sc->nue; u++) {
    const struct mpi_ue_shared *s = mpi_ue_shared_of(job, u);
    uint64_t bytes = 0;
    for (int i = 0; i < sc->nsizes; i++) bytes += MPI_PACKET_HEADER + sc->sizes[i];
    CHECK_EQ(s->packets_sent, sc->nue * (sc->nsizes + 1));
    CHECK_EQ(s->bytes_sent, (uint64_t)sc->nue * (bytes + MPI_PACKET_HEADER + 1));
    CHECK_EQ(s->packets_recv, sc->nue * (sc->nsizes + 1));
    CHECK(s->rounds_sent >= s->packets_sent);
    rounds_sent += s->rounds_sent;
    rounds_recv += s->rounds_recv;
    packets_recv += s->packets_recv;
    gews += s->gews_rounds;
    if (!sc->model) continue;
    /* model mode: the channel's MPB accesses were charged; every packet was recorded once per side */
    CHECK(timing_clock_of(job, u)->comm_ps > 0);
    for (int v = 0; v < sc->nue; v++) {
      CHECK_EQ(hw_trace_msgs_to(job, u)[v], sc->nsizes + 1);
      CHECK_EQ(hw_trace_bytes_to(job, u)[v], bytes + MPI_PACKET_HEADER + 1);
    }
  }
  CHECK_EQ(rounds_sent, rounds_recv);
  CHECK_EQ(packets_recv, (uint64_t)sc->nue * sc->nue * (sc->nsizes + 1));
  /* the extended protocol carries what exceeds an EWS in the gEWS */
  if (sc->kind == MPI_CHANNEL_RCKMPI) CHECK(gews > 0);
  else CHECK_EQ(gews, 0);
}

typedef int (*ue_fn)(const struct scenario *sc, int fd, int me);

/* Run every UE of sc in its own process (fn); checks the statistics of run_ue's all-to-all. */
static void run_scenario_with(const struct scenario *sc, ue_fn fn) {
  struct hw_job job;
  if (make_job(sc->chip, sc->nue, sc->model, &job) != 0) {
    CHECK(0);
    return;
  }
  job.hdr->set.single_copy = sc->single_copy;
  pid_t *pids = calloc((size_t)sc->nue, sizeof *pids);
  for (int u = 0; u < sc->nue; u++) {
    pids[u] = fork();
    if (pids[u] == 0) {
      alarm(120); /* a lost wake-up or a blocked queue hangs: fail instead */
      _exit(fn(sc, job.fd, u));
    }
  }
  int ok = 1;
  for (int u = 0; u < sc->nue; u++) {
    int status;
    waitpid(pids[u], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "%s, %d UEs, kind %d: UE %d ended with status 0x%x\n", sc->chip, sc->nue, (int)sc->kind, u,
              status);
      ok = 0;
    }
  }
  CHECK(ok);
  if (ok && fn == run_ue) check_statistics(sc, &job);
  free(pids);
  hw_job_unlink(&job);
  hw_job_detach(&job);
  close(job.fd);
}

static void run_scenario(const struct scenario *sc) { run_scenario_with(sc, run_ue); }

static const uint64_t all_sizes[] = {0, 1, 47, 48, 49, 4096, 4144, 100000, 1 << 20};
static const uint64_t many_ue_sizes[] = {0, 1, 47, 48, 49, 4096, 4144};
static const uint64_t tiny_mpb_sizes[] = {0, 1, 19, 20, 21, 47, 100, 4096};
#define N(a) (int)(sizeof a / sizeof a[0])

static void test_all_to_all(void) {
  const struct scenario list[] = {
      {"scc", 2, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes), -1, 0, 0, 0},
      {"scc", 2, MPI_CHANNEL_RCKMPI_ORIGINAL, all_sizes, N(all_sizes), -1, 0, 0, 0},
      {"scc", 8, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes), -1, 0, 0, 0},
      {"scc", 8, MPI_CHANNEL_RCKMPI_ORIGINAL, all_sizes, N(all_sizes), -1, 0, 0, 0},
      {"scc", 48, MPI_CHANNEL_RCKMPI, many_ue_sizes, N(many_ue_sizes), -1, 0, 0, 0},
      {"scc", 48, MPI_CHANNEL_RCKMPI_ORIGINAL, many_ue_sizes, N(many_ue_sizes), -1, 0, 0, 0},
      /* 32-byte sections: 20 bytes of payload, the header spans two rounds */
      {"2x1x2:128", 4, MPI_CHANNEL_RCKMPI_ORIGINAL, tiny_mpb_sizes, N(tiny_mpb_sizes), -1, 0, 0, 0},
      {"scc", 4, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes) - 1, -1, 1, 0, 0},
      {"scc", 4, MPI_CHANNEL_RCKMPI_ORIGINAL, all_sizes, N(all_sizes) - 1, -1, 1, 0, 0},
      /* native single copy of the payloads from 32 KiB on (prefix-only targets and iov pieces included) */
      {"scc", 2, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes), -1, 0, 1, 0},
      {"scc", 8, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes), -1, 0, 1, 0},
      {"scc", 8, MPI_CHANNEL_RCKMPI_ORIGINAL, all_sizes, N(all_sizes), -1, 0, 1, 0},
      /* model mode with single copy allowed: the rounds go through the MPB all the same */
      {"scc", 4, MPI_CHANNEL_RCKMPI, all_sizes, N(all_sizes) - 1, -1, 1, 1, 0},
      /* sccmpich: short packets in the tagged probe flag, eager, rendezvous (docs/mpi-channel.md "sccmpich") */
      {.chip = "scc",
       .nue = 2,
       .kind = MPI_CHANNEL_SCCMPICH,
       .sizes = all_sizes,
       .nsizes = N(all_sizes),
       .late_ue = -1},
      {.chip = "scc",
       .nue = 8,
       .kind = MPI_CHANNEL_SCCMPICH,
       .sizes = all_sizes,
       .nsizes = N(all_sizes),
       .late_ue = -1},
      {.chip = "scc",
       .nue = 8,
       .kind = MPI_CHANNEL_SCCMPICH_NORMAL,
       .sizes = all_sizes,
       .nsizes = N(all_sizes),
       .late_ue = -1},
      {.chip = "scc",
       .nue = 48,
       .kind = MPI_CHANNEL_SCCMPICH,
       .sizes = many_ue_sizes,
       .nsizes = N(many_ue_sizes),
       .late_ue = -1},
      {.chip = "scc",
       .nue = 4,
       .kind = MPI_CHANNEL_SCCMPICH,
       .sizes = all_sizes,
       .nsizes = N(all_sizes) - 1,
       .late_ue = -1,
       .model = 1},
  };
  for (int i = 0; i < N(list); i++) run_scenario(&list[i]);
}

/* UE 3 reads nothing until UEs 0-2 have received everything they sent each
 * other, while their packets to UE 3 (gEWS chunks included) wait. */
static void test_late_receiver(void) {
  static const uint64_t sizes[] = {1, 4144, 100000};
  const struct scenario rck = {"scc", 4, MPI_CHANNEL_RCKMPI, sizes, N(sizes), 3, 0, 0, 0};
  const struct scenario orig = {"scc", 4, MPI_CHANNEL_RCKMPI_ORIGINAL, sizes, N(sizes), 3, 0, 0, 0};
  /* sccmpich: the rendezvous packets to UE 3 wait for its clear-to-send, holding back only UE 3's queues */
  const struct scenario sccm = {
      .chip = "scc", .nue = 4, .kind = MPI_CHANNEL_SCCMPICH, .sizes = sizes, .nsizes = N(sizes), .late_ue = 3};
  run_scenario(&rck);
  run_scenario(&orig);
  run_scenario(&sccm);
}

/* [RCKMPI-2011] sec. II-B/II-C: UE 0 sends a packet to UE 2, which reads
 * nothing yet: alone, its first round takes the whole gEWS (32 chunks).  Then
 * UE 0 sends one to UE 1 while UE 2 still holds them: its rounds carry only
 * their 48 EWS bytes (no gEWS round), and the packet arrives all the same --
 * degraded, never stopped. */
static int run_stall_ue(const struct scenario *sc, int fd, int me) {
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  const struct mpi_ue_shared *stats = mpi_ue_shared_of(&job, me);
  if (me == 0) {
    post(2, 0, KIND_DATA, sc->sizes[0]);
    FAIL_IF(stats->gews_rounds != 1 || stats->gews_chunks != 32); /* the lone stream took every chunk */
    post(1, 0, KIND_DATA, sc->sizes[0]);
    while (ue.sends_done < 1) progress();
    FAIL_IF(stats->gews_rounds != 1); /* UE 1's rounds went through the EWS alone */
    __atomic_store_n(others_done(&job), 1, __ATOMIC_RELEASE);
    while (ue.acks < 2 || mpi_channel_pending() > 0) progress();
  } else {
    if (me == sc->late_ue)
      while (!__atomic_load_n(others_done(&job), __ATOMIC_ACQUIRE)) usleep(1000);
    while (ue.data_from[0] < 1 || mpi_channel_pending() > 0) progress();
  }
  return close_ue(&job);
}

static void test_stalled_receiver_degrades_others(void) {
  static const uint64_t sizes[] = {100000};
  const struct scenario sc = {"scc", 3, MPI_CHANNEL_RCKMPI, sizes, N(sizes), 2, 0, 0, 0};
  run_scenario_with(&sc, run_stall_ue);
}

/* sccmpich: UE 0 holds UE 1's rendezvous buffer and leaves with its packet
 * unfinished (one chunk sent): it finishes (closes its channel, marked
 * HW_UE_FINALIZED as the provider does) or exits without closing (its
 * process is gone).  UE 2's rendezvous to UE 1, requested after that, must
 * still get the buffer and arrive intact (before: it waited forever). */
enum { OWNER_GRANTED = 1, OWNER_GONE = 2 }; /* the steps, in the job's shared word */

static void until_step(struct hw_job *job, int step, int progressing) {
  while (__atomic_load_n(others_done(job), __ATOMIC_ACQUIRE) < step)
    if (progressing) progress();
    else usleep(1000);
}

static int run_owner_gone_ue(const struct scenario *sc, int fd, int me, int owner_exits) {
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  alarm(30); /* a waiter left behind forever fails the UE */
  const struct mpi_ue_shared *stats = mpi_ue_shared_of(&job, me);
  if (me == 0) {
    post(1, 0, KIND_DATA, sc->sizes[0]); /* the request-to-send goes at once */
    until_step(&job, OWNER_GRANTED, 0);
    while (stats->rounds_sent < 2) progress(); /* the clear-to-send seen, the first chunk announced */
    if (!owner_exits) {
      mpi_channel_close();
      __atomic_store_n(&hw_ue(&job, me)->state, HW_UE_FINALIZED, __ATOMIC_RELEASE);
    }
    __atomic_store_n(others_done(&job), OWNER_GONE, __ATOMIC_RELEASE);
    return ue.failures ? 1 : 0; /* reaped first (run_scenario_with): its process is gone at once */
  }
  if (me == 1) {
    while (sccm.owner != 0) progress();
    __atomic_store_n(others_done(&job), OWNER_GRANTED, __ATOMIC_RELEASE);
    while (ue.data_from[2] < 1 || mpi_channel_pending() > 0) progress();
    FAIL_IF(ue.data_from[0] != 0 || sccm.owner != -1 || sccm.wait_count != 0);
  } else {
    until_step(&job, OWNER_GONE, 0);
    post(1, 0, KIND_DATA, sc->sizes[0]);
    while (ue.acks < 1 || mpi_channel_pending() > 0) progress();
  }
  return close_ue(&job);
}

static int run_owner_finishes_ue(const struct scenario *sc, int fd, int me) { return run_owner_gone_ue(sc, fd, me, 0); }
static int run_owner_exits_ue(const struct scenario *sc, int fd, int me) { return run_owner_gone_ue(sc, fd, me, 1); }

static void test_rendezvous_owner_gone(void) {
  static const uint64_t sizes[] = {100000};
  const struct scenario sc = {
      .chip = "scc", .nue = 3, .kind = MPI_CHANNEL_SCCMPICH, .sizes = sizes, .nsizes = N(sizes), .late_ue = -1};
  run_scenario_with(&sc, run_owner_finishes_ue);
  run_scenario_with(&sc, run_owner_exits_ue); /* without closing: its process is looked for */
}

/* --- single copy ----------------------------------------------------------------- */

/* Without CAP_SYS_PTRACE (root has it) this process may not read a process
 * that is not dumpable: process_vm_readv fails with EPERM. */
static int drop_ptrace_capability(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  if (syscall(SYS_capget, &h, d) != 0) return -1;
  d[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
  return (int)syscall(SYS_capset, &h, d);
}

#define COPY_PACKETS 3 /* the third one is taken as a prefix only */

/* UE 0 sends UE 1 COPY_PACKETS packets of sc->sizes[0] bytes (four iov
 * pieces; UE 1 takes each in three).  By single copy each moves in one
 * round, the rendezvous; with single copy off, in model mode, or refused by
 * the kernel (after which the sender sends no more rendezvous), in rounds
 * through the MPB.  Every time intact, the same packets and bytes counted. */
static int run_copy_ue(const struct scenario *sc, int fd, int me) {
  if (sc->refuse && (me == 0 ? prctl(PR_SET_DUMPABLE, 0) : drop_ptrace_capability()) != 0) return 5;
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  const struct mpi_ue_shared *stats = mpi_ue_shared_of(&job, me);
  uint64_t size = sc->sizes[0], bytes = COPY_PACKETS * (MPI_PACKET_HEADER + size);
  uint64_t mpb_rounds = size / (48 + 4096); /* at least, for one packet through the MPB */
  if (me == 0) {
    for (int i = 0; i < COPY_PACKETS; i++) post(1, i, KIND_DATA, size);
    while (ue.sends_done < COPY_PACKETS) progress();
    if (sc->single_copy && !sc->model && !sc->refuse) FAIL_IF(stats->rounds_sent != COPY_PACKETS);
    else FAIL_IF(stats->rounds_sent < COPY_PACKETS * mpb_rounds);
    FAIL_IF(chan.copy_ok != (sc->single_copy && !sc->model && !sc->refuse));
    FAIL_IF(stats->packets_sent != COPY_PACKETS || stats->bytes_sent != bytes);
  } else {
    while (ue.data_from[0] < COPY_PACKETS) progress();
    FAIL_IF(stats->packets_recv != COPY_PACKETS || stats->bytes_recv != bytes);
  }
  return close_ue(&job);
}

/* The race between the receiver's claim and the sender taking its buffers
 * back (mpi_channel_copying, as a closing endpoint asks), made
 * deterministic: UE 0 posts one 1 MiB packet (its rendezvous goes at once)
 * and stops progressing.  Receiver first: UE 1 progresses until the packet
 * is in (claimed, copied, its status published); copying() must then answer
 * 1 and leave the claim word taken, and UE 0's next progress call ends the
 * packet (done(), by single copy: one round).  Sender first: copying()
 * withdraws the rendezvous (answers 0, the claim word withdrawn); the test
 * then re-points the iov at a new copy of the payload and spoils the old
 * buffer, as the provider's detach() does, and the payload must arrive
 * intact in rounds through the MPB, read from the iov as it is then. */
enum { CLAIM_POSTED = 1, CLAIM_DECIDED = 2 }; /* the steps, in the job's shared word */

static int32_t claim_word_to(int dest) {
  return __atomic_load_n((int32_t *)(chan.tx[dest].ews + chan.g.meta_bytes + MPI_PACKET_HEADER), __ATOMIC_ACQUIRE);
}

/* What detach() does: the same iov lengths over a new copy; the old buffer spoiled, then freed. */
static void repoint_payload(struct out_packet *o) {
  uint64_t size = o->p.payload_bytes;
  unsigned char *copy = malloc(size);
  memcpy(copy, o->buf, size);
  for (size_t i = 0; i < o->p.iov_count; i++)
    o->iov[i].iov_base = copy + ((unsigned char *)o->iov[i].iov_base - o->buf);
  memset(o->buf, 0, size);
  free(o->buf);
  o->buf = copy;
}

static int run_claim_ue(const struct scenario *sc, int fd, int me, int receiver_first) {
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  const struct mpi_ue_shared *stats = mpi_ue_shared_of(&job, me);
  uint64_t size = sc->sizes[0], mpb_rounds = size / (48 + 4096);
  if (me == 0) {
    struct out_packet *o = post(1, 0, KIND_DATA, size);
    FAIL_IF(stats->rounds_sent != 1 || !chan.tx[1].copy);
    __atomic_store_n(others_done(&job), CLAIM_POSTED, __ATOMIC_RELEASE);
    if (receiver_first) {
      until_step(&job, CLAIM_DECIDED, 0);
      FAIL_IF(mpi_channel_copying(&o->p) != 1);
      FAIL_IF(claim_word_to(1) != -1); /* taken */
      FAIL_IF(ue.sends_done != 0);
      FAIL_IF(mpi_channel_progress() == 0);
      FAIL_IF(ue.sends_done != 1); /* done() by the status */
    } else {
      FAIL_IF(mpi_channel_copying(&o->p) != 0);
      FAIL_IF(claim_word_to(1) != 0); /* withdrawn */
      repoint_payload(o);
      __atomic_store_n(others_done(&job), CLAIM_DECIDED, __ATOMIC_RELEASE);
    }
    while (ue.sends_done < 1 || ue.acks < 1 || mpi_channel_pending() > 0) progress();
    if (receiver_first) FAIL_IF(stats->rounds_sent != 1);
    else FAIL_IF(stats->rounds_sent < 1 + mpb_rounds);
    FAIL_IF(!chan.copy_ok); /* a withdrawn copy is no refusal */
  } else {
    until_step(&job, receiver_first ? CLAIM_POSTED : CLAIM_DECIDED, 0);
    while (ue.data_from[0] < 1) progress(); /* complete() checks the data */
    if (receiver_first) __atomic_store_n(others_done(&job), CLAIM_DECIDED, __ATOMIC_RELEASE);
    while (mpi_channel_pending() > 0) progress();
  }
  return close_ue(&job);
}

static int run_receiver_claims_first_ue(const struct scenario *sc, int fd, int me) {
  return run_claim_ue(sc, fd, me, 1);
}
static int run_sender_withdraws_first_ue(const struct scenario *sc, int fd, int me) {
  return run_claim_ue(sc, fd, me, 0);
}

/* A receiver gone between its claim and its status: UE 0 claims UE 1's
 * rendezvous (the claim word taken, as chan_copy_pull does) and exits
 * without publishing a status (reaped first by run_scenario_with, so its
 * process is gone at once).  Its sender must stop waiting, with a message
 * on stderr: copying() answers 0 at last (the provider's endpoint close),
 * or the channel closes (chan_copy_close's wait); the packet is never done
 * (before: both waited forever). */
static int run_claimer_gone_ue(const struct scenario *sc, int fd, int me, int sender_closes) {
  struct hw_job job;
  int r = open_ue(sc, fd, me, &job);
  if (r) return r;
  alarm(30); /* a sender left waiting forever fails the UE */
  if (me == 0) {
    until_step(&job, CLAIM_POSTED, 0);
    __atomic_store_n((int32_t *)(chan.rx[1].ews + chan.g.meta_bytes + MPI_PACKET_HEADER), -1, __ATOMIC_RELEASE);
    __atomic_store_n(others_done(&job), CLAIM_DECIDED, __ATOMIC_RELEASE);
    return ue.failures ? 1 : 0; /* without closing */
  }
  struct out_packet *o = post(0, 0, KIND_DATA, sc->sizes[0]);
  __atomic_store_n(others_done(&job), CLAIM_POSTED, __ATOMIC_RELEASE);
  until_step(&job, CLAIM_DECIDED, 0);
  if (!sender_closes) {
    while (mpi_channel_copying(&o->p)) progress();
    FAIL_IF(claim_word_to(0) != 0); /* withdrawn once reported */
  }
  FAIL_IF(ue.sends_done != 0);
  int status = close_ue(&job);
  free(o->buf); /* never done */
  free(o);
  return status;
}

static int run_claimer_gone_copying_ue(const struct scenario *sc, int fd, int me) {
  return run_claimer_gone_ue(sc, fd, me, 0);
}
static int run_claimer_gone_closing_ue(const struct scenario *sc, int fd, int me) {
  return run_claimer_gone_ue(sc, fd, me, 1);
}

static void test_single_copy_claim(void) {
  static const uint64_t sizes[] = {1 << 20};
  const struct scenario sc = {"scc", 2, MPI_CHANNEL_RCKMPI, sizes, 1, -1, 0, 1, 0};
  run_scenario_with(&sc, run_receiver_claims_first_ue);
  run_scenario_with(&sc, run_sender_withdraws_first_ue);
  run_scenario_with(&sc, run_claimer_gone_copying_ue);
  run_scenario_with(&sc, run_claimer_gone_closing_ue);
}

static void test_single_copy(void) {
  static const uint64_t sizes[] = {1 << 20};
  const struct scenario list[] = {
      {"scc", 2, MPI_CHANNEL_RCKMPI, sizes, 1, -1, 0, 1, 0},
      {"scc", 2, MPI_CHANNEL_RCKMPI_ORIGINAL, sizes, 1, -1, 0, 1, 0},
      {"scc", 2, MPI_CHANNEL_RCKMPI, sizes, 1, -1, 0, 0, 0}, /* --no-single-copy */
      {"scc", 2, MPI_CHANNEL_RCKMPI, sizes, 1, -1, 0, 1, 1}, /* refused: EPERM */
      {"scc", 2, MPI_CHANNEL_RCKMPI_ORIGINAL, sizes, 1, -1, 0, 1, 1},
      {"scc", 2, MPI_CHANNEL_RCKMPI, sizes, 1, -1, 1, 1, 0}, /* model mode */
  };
  for (int i = 0; i < N(list); i++) run_scenario_with(&list[i], run_copy_ue);
}

/* --- layouts ------------------------------------------------------------------- */

static void test_geometry(void) {
  struct chip_desc scc;
  struct chan_geometry g;
  char err[512];
  chip_preset("scc", &scc, err, sizeof err);
  /* [RCKMPI-2011] Fig. 1: gEWS 32 x 128 B, 48 EWSs of 64 B (16 B metadata), 1 KB left */
  CHECK_EQ(chan_geometry_of(MPI_CHANNEL_RCKMPI, &scc, 2, &g, err, sizeof err), 0);
  CHECK_EQ(g.sections, 48);
  CHECK(g.per_core);
  CHECK_EQ(g.gews_off, 0);
  CHECK_EQ(g.gews_chunks * g.chunk_bytes, 4096);
  CHECK_EQ(g.ews_off, 4096);
  CHECK_EQ(g.section_bytes, 64);
  CHECK_EQ(g.ews_payload, 48);
  CHECK_EQ(scc.mpb_bytes_per_core - g.used_bytes, 1024);
  /* the original channel: 160-byte sections at 48 UEs, 4096 at 2, 12 B of metadata */
  CHECK_EQ(chan_geometry_of(MPI_CHANNEL_RCKMPI_ORIGINAL, &scc, 48, &g, err, sizeof err), 0);
  CHECK_EQ(g.section_bytes, 160);
  CHECK_EQ(g.ews_payload, 148);
  CHECK_EQ(g.gews_chunks, 0);
  CHECK_EQ(chan_geometry_of(MPI_CHANNEL_RCKMPI_ORIGINAL, &scc, 2, &g, err, sizeof err), 0);
  CHECK_EQ(g.section_bytes, 4096);
  /* a chip whose MPB holds no EWS per core gets one per UE */
  struct chip_desc big;
  chip_preset("8x8x2:8192", &big, err, sizeof err);
  CHECK_EQ(chan_geometry_of(MPI_CHANNEL_RCKMPI, &big, 64, &g, err, sizeof err), 0);
  CHECK(!g.per_core);
  CHECK_EQ(g.sections, 64);
}

/* Layouts that do not fit fail at open with what to do about it. */
static void test_open_errors(void) {
  struct hw_job job;
  char err[512];
  struct mpi_channel_sink sink = {.arrived = arrived, .complete = complete};
  if (make_job("2x1x2:128", 4, 0, &job) != 0) {
    CHECK(0);
    return;
  }
  CHECK_EQ(mpi_channel_open(&job, 0, MPI_CHANNEL_RCKMPI, &sink, err, sizeof err), -1);
  CHECK(strcmp(err,
               "the rckmpi channel needs 4352 bytes of MPB per core for 4 UEs (a 4096-byte gEWS and 4 EWSs of "
               "64 bytes); this chip has 128; use --mpi-channel rckmpi-original or a chip with a larger MPB") == 0);
  CHECK_EQ(mpi_channel_open(&job, 4, MPI_CHANNEL_RCKMPI_ORIGINAL, &sink, err, sizeof err), -1);
  CHECK(strcmp(err, "UE 4 is not a UE of this job (4 UEs)") == 0);
  hw_job_unlink(&job);
  hw_job_detach(&job);
  close(job.fd);
  struct chip_desc c;
  struct chan_geometry g;
  chip_preset("4x1x2:128", &c, err, sizeof err);
  CHECK_EQ(chan_geometry_of(MPI_CHANNEL_RCKMPI_ORIGINAL, &c, 8, &g, err, sizeof err), -1);
  CHECK(strcmp(err, "the rckmpi-original channel splits each core's MPB (128 bytes) among 8 UEs: 0-byte sections leave "
                    "no room beyond the 12 bytes of metadata; use fewer UEs or a chip with a larger MPB") == 0);
}

/* --- waiting ------------------------------------------------------------------- */

static int idle_state(struct hw_job *job, int u) { return __atomic_load_n(&hw_ue(job, u)->state, __ATOMIC_ACQUIRE); }

/* Until UE u naps blocked in MPI (between naps it shows its own state for a moment). */
static void until_blocked(struct hw_job *job, int u) {
  while (idle_state(job, u) != HW_UE_BLOCKED) usleep(1000);
}

/* A UE idle in the channel shows HW_UE_BLOCKED / HW_WAIT_MPI on its
 * doorbell, as the launcher's deadlock check reads it (supervise.c
 * asleep_unwoken): naps that time out with nothing rung do not count as new
 * sleeps; a doorbell ring does, and so does work done without the MPB (the
 * provider's hw_poll_fruitful when a receive is served from an unexpected
 * message: before, a rank working through such messages napped after each
 * one as if in one unbroken sleep and 48-rank jobs were reported
 * deadlocked). */
static void test_idle_shows_blocked(void) {
  struct hw_job job;
  if (make_job("scc", 2, 0, &job) != 0) {
    CHECK(0);
    return;
  }
  _Atomic int *stop = others_done(&job);
  pid_t pid = fork();
  if (pid == 0) {
    struct hw_job mine;
    char err[256];
    struct mpi_channel_sink sink = {.arrived = arrived, .complete = complete};
    alarm(60);
    if (hw_job_attach(job.fd, &mine, err, sizeof err) != 0 ||
        mpi_channel_open(&mine, 1, MPI_CHANNEL_RCKMPI, &sink, err, sizeof err) != 0)
      _exit(2);
    while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
      if (__atomic_exchange_n(&stop[1], 0, __ATOMIC_ACQ_REL)) hw_poll_fruitful(); /* the provider's work */
      if (!mpi_channel_progress()) mpi_channel_idle();
    }
    _exit(0);
  }
  alarm(60);
  struct hw_ue *u = hw_ue(&job, 1);
  until_blocked(&job, 1);
  CHECK_EQ(u->wait.kind, HW_WAIT_MPI);
  CHECK_EQ(u->wait.peer, -1);
  CHECK_EQ(u->wait.futex_off, (uint64_t)((unsigned char *)&u->doorbell_seq - job.base));
  CHECK_EQ(u->wait.futex_val, __atomic_load_n(&u->doorbell_seq, __ATOMIC_ACQUIRE));
  uint64_t sleeps = u->sleeps;
  usleep(350000); /* several bounded naps time out */
  until_blocked(&job, 1);
  CHECK_EQ(u->sleeps, sleeps);
  hw_ring_slow(&job, 1); /* a real wake: the next nap is a new sleep */
  while (u->sleeps == sleeps) usleep(1000);
  CHECK_EQ(u->sleeps, sleeps + 1);
  /* Work without a ring ends the idle stretch: one new sleep, the doorbell untouched. */
  until_blocked(&job, 1);
  sleeps = u->sleeps;
  uint32_t bell = __atomic_load_n(&u->doorbell_seq, __ATOMIC_ACQUIRE);
  __atomic_store_n(&stop[1], 1, __ATOMIC_RELEASE);
  while (__atomic_load_n(&stop[1], __ATOMIC_ACQUIRE)) usleep(1000);
  until_blocked(&job, 1);
  CHECK_EQ(u->sleeps, sleeps + 1);
  CHECK_EQ(__atomic_load_n(&u->doorbell_seq, __ATOMIC_ACQUIRE), bell);
  __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
  hw_ring_slow(&job, 1);
  int status;
  waitpid(pid, &status, 0);
  alarm(0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(idle_state(&job, 1), HW_UE_NOT_STARTED); /* restored after the wait */
  hw_job_unlink(&job);
  hw_job_detach(&job);
  close(job.fd);
}

int main(void) {
  test_geometry();
  test_open_errors();
  test_all_to_all();
  test_late_receiver();
  test_stalled_receiver_degrades_others();
  test_rendezvous_owner_gone();
  test_single_copy();
  test_single_copy_claim();
  test_idle_shows_blocked();
  return unit_report("test_mpi_channel");
}

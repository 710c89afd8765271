/*
 * hw layer: the emulated hardware of one job, in one shared-memory segment.
 *
 * Layout (every part aligned to a host cache line, 64 B):
 *   header | per-UE blocks | config registers | test-and-set registers |
 *   MPBs (one per core of the chip) | off-chip shared region | SVM pool
 * The launcher creates the segment; every UE maps it from an inherited fd.
 */
#ifndef OPENSCC_HW_SEGMENT_H
#define OPENSCC_HW_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../chip/chip.h"
#include "settings.h"

#define HW_MAGIC 0x214343536e65704fULL /* "OpenSCC!" */
#define HW_VERSION 8
#define HW_HOST_LINE 64
#define HW_MAX_UES CHIP_MAX_CORES
#define HW_SHM_PREFIX "openscc-"
#define HW_ALIGNED __attribute__((aligned(HW_HOST_LINE)))

/* Where UEs try to map the segment, so MPB and shared-region pointers are
 * equal in every UE (as on the SCC).  Falls back to any address. */
#define HW_MAP_HINT ((void *)0x5e0000000000ULL)

enum hw_ue_state {
  HW_UE_NOT_STARTED = 0, /* forked, RCCE_init not reached */
  HW_UE_RUNNING = 1,
  HW_UE_BLOCKED = 2,     /* asleep in the runtime; wait descriptor valid */
  HW_UE_FINALIZED = 3,   /* RCCE_finalize done */
};

enum hw_wait_kind {
  HW_WAIT_NONE = 0,
  HW_WAIT_RECV,    /* RCCE_recv: data from peer */
  HW_WAIT_SEND,    /* RCCE_send: peer to take the data */
  HW_WAIT_FLAG,    /* RCCE_wait_until on a user flag */
  HW_WAIT_BARRIER, /* barrier of a communicator */
  HW_WAIT_LOCK,    /* test-and-set lock of core peer */
  HW_WAIT_MAIL,    /* mailbox_recv: a mail (from peer, or any UE when -1) */
  HW_WAIT_MAILBOX_FULL, /* mailbox_send: peer to empty its mailbox */
  HW_WAIT_SVM_PAGE, /* SVM page fault: ownership of a page held by peer */
};

/* What a sleeping UE waits for: read by the launcher's deadlock report. */
struct hw_wait_desc {
  int32_t kind;
  int32_t peer;        /* UE waited for, or -1 */
  int32_t comm_size;   /* barrier: communicator size */
  int32_t comm_label;  /* barrier: communicator creation order (0 = world) */
  uint32_t mpb_offset; /* flag: line offset in the waiter's MPB */
  int32_t value;       /* flag: value waited for */
  uint64_t futex_off;  /* segment offset of the futex word slept on */
  uint32_t futex_val;  /* value it was expected to hold while asleep */
  int32_t comm_members[4]; /* barrier: first members, for the report */
};

struct hw_counters {
  uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
  uint64_t puts, put_bytes, gets, get_bytes;
  uint64_t flag_writes, barriers, sleeps;
  /* Mailboxes and SVM (updated atomically: interrupt handlers count too). */
  uint64_t mails_sent, mails_recv, doorbells, interrupts;
  uint64_t svm_faults, svm_frames, svm_acquired, svm_served, svm_forwarded;
};

/* Model mode (rccerun --model): a UE's virtual clock and its core's energy,
 * kept by the timing layer, read by the launcher for the job summary. */
#define HW_POWER_BUCKETS 512
#define HW_POWER_BUCKET_PS 1000000ULL /* narrowest power-trace bucket: 1 us */
struct hw_vclock {
  uint64_t now_ps;                 /* virtual time of the UE */
  uint64_t compute_ps, comm_ps, wait_ps; /* where it went */
  uint64_t end_ps;                 /* virtual time of RCCE_finalize (0: not reached) */
  uint64_t ddr_reads, ddr_writes;  /* shared-memory accesses of a counted program */
  double dynamic_j;                /* the core's dynamic energy */
  int32_t bucket_shift;            /* power trace bucket = HW_POWER_BUCKET_PS << shift */
  int32_t running;                 /* 1 between RCCE_init and RCCE_finalize */
  int32_t counted;                 /* computation counted (rccecc --model-build), not host time */
  int32_t pad2;
  double bucket_j[HW_POWER_BUCKETS]; /* dynamic energy per bucket of virtual time */
};

struct hw_ue {
  /* Doorbell: written by the UE when it goes to sleep, read by writers. */
  _Atomic uint32_t doorbell_seq HW_ALIGNED;
  _Atomic int32_t sleeping;
  /* State, written by the UE, read by the launcher. */
  _Atomic int32_t state HW_ALIGNED;
  int32_t core;
  int32_t pid;
  struct hw_wait_desc wait;
  struct hw_counters counters;
  /* Native single-copy transfers (rcce/single_copy.c): how the receiver of
   * this UE's current outgoing message fared, written by that receiver. */
  _Atomic uint32_t sc_receiver_status;
  struct hw_vclock clock HW_ALIGNED;
  /* Mailboxes (mailbox layer, seed 003 section 5): the interrupt status the
   * SCC's global interrupt controller keeps for this core, one bit per UE
   * that rang, and the process the doorbell signal goes to. */
  _Atomic uint64_t gic_pending[HW_MAX_UES / 64] HW_ALIGNED;
  _Atomic int32_t mailbox_state; /* enum hw_mailbox_state */
  _Atomic int32_t mailbox_waiting; /* > 0 while the UE waits and checks its status itself */
  int32_t svm_on;                  /* svm_init succeeded (summary.json shows the svm counters) */
};

enum hw_mailbox_state { HW_MAILBOX_NONE = 0, HW_MAILBOX_READY = 1, HW_MAILBOX_GONE = 2 };

struct hw_tas {
  _Atomic int32_t locked HW_ALIGNED; /* one test-and-set register per core */
  _Atomic int32_t waiters;
  _Atomic uint64_t free_ps; /* model mode: virtual time of the last release */
};

/* Model mode: the voltage levels a domain went through, in virtual time. */
#define HW_VLOG_ENTRIES 64
struct hw_vlog {
  _Atomic int32_t n; /* entries written (may exceed HW_VLOG_ENTRIES: later ones are dropped) */
  struct {
    uint64_t t_ps;
    int32_t vlevel;
  } e[HW_VLOG_ENTRIES];
};

struct hw_config {
  _Atomic int32_t tile_divider[CHIP_MAX_CORES];  /* per frequency domain (tile) */
  _Atomic int32_t domain_vlevel[CHIP_MAX_CORES]; /* per voltage domain */
  _Atomic int32_t domain_pending[CHIP_MAX_CORES]; /* a voltage request in flight */
};

enum hw_flag_mode { HW_FLAGS_UNSET = 0, HW_FLAGS_BIG = 1, HW_FLAGS_SINGLEBIT = 2 };
enum hw_iface { HW_IFACE_UNSET = 0, HW_IFACE_BASIC = 1, HW_IFACE_GORY = 2 };
struct hw_header {
  uint64_t magic;
  uint32_t version;
  uint32_t nue;
  struct chip_desc chip;
  int32_t launcher_pid;
  int32_t initial_vlevel; /* every domain's voltage level at the start */
  struct hw_settings set; /* rccerun's options (settings.h) */
  /* Model mode: one time stamp per bit of every MPB line (flags and
   * barriers carry their writer's virtual time, docs/model.md), and the
   * voltage log of every domain. */
  uint64_t stamp_off, stamp_slots_per_line, vlog_off;
  /* Model mode: the summed utilisation of every shared resource (timing
   * layer, contention.c): memory controllers, MPB ports, mesh links. */
  uint64_t load_off, n_resources;
  /* Monitoring (hw/trace.h): one block per UE of trace_ue_bytes. */
  uint64_t trace_off, trace_ue_bytes, trace_capacity;
  uint64_t trace_ticks0, trace_ns0; /* hw_trace_clock() and CLOCK_MONOTONIC at the job's start */
  uint64_t ue_off, config_off, tas_off, mpb_off, shared_off, shared_bytes, total_bytes;
  /* SVM pool (svm layer): page frames and their tables, right after the
   * shared region, so frame offsets continue its memory-controller map. */
  uint64_t svm_off, svm_bytes;
  _Atomic int32_t flag_mode;  /* set by the first UE to initialise */
  _Atomic int32_t iface;
  _Atomic int32_t init_count; /* UEs that completed RCCE_init */
  _Atomic int32_t cma_broken; /* cross-process copy refused: chunk instead */
};

struct hw_job_params {
  int nue;
  struct chip_desc chip;
  int ue_core[HW_MAX_UES];
  uint64_t shared_bytes;
  uint64_t svm_bytes;       /* SVM pool (rccerun --svm-size) */
  struct hw_settings set;   /* rccerun's options (settings.h) */
  uint64_t trace_capacity;  /* events per UE at the sizes and timeline levels */
};

/* A mapping of a job segment in this process. */
struct hw_job {
  struct hw_header *hdr;
  unsigned char *base;
  size_t bytes;
  int fd;
  char name[64]; /* shm name, empty for private segments */
};

/* Launcher: create the segment (mode 0600, unique name).  The fd is left
 * inheritable so UEs can map it.  Returns 0 or -1 with err set. */
int hw_job_create(const struct hw_job_params *p, struct hw_job *job, char *err, size_t errlen);
/* A single-UE segment for a program started without rccerun. */
int hw_job_create_private(const struct hw_job_params *p, struct hw_job *job, char *err, size_t errlen);
/* UE: map a segment from an inherited fd. */
int hw_job_attach(int fd, struct hw_job *job, char *err, size_t errlen);
void hw_job_detach(struct hw_job *job);
/* Launcher: remove the segment's name (idempotent). */
void hw_job_unlink(struct hw_job *job);
/* Remove segments of this user whose launcher is dead; returns how many. */
int hw_clean_stale_segments(void);

static inline struct hw_ue *hw_ue(const struct hw_job *j, int ue) {
  return (struct hw_ue *)(j->base + j->hdr->ue_off) + ue;
}
static inline struct hw_config *hw_config(const struct hw_job *j) {
  return (struct hw_config *)(j->base + j->hdr->config_off);
}
static inline struct hw_tas *hw_tas(const struct hw_job *j, int core) {
  return (struct hw_tas *)(j->base + j->hdr->tas_off) + core;
}
static inline unsigned char *hw_mpb(const struct hw_job *j, int core) {
  return j->base + j->hdr->mpb_off + (size_t)core * (size_t)j->hdr->chip.mpb_bytes_per_core;
}
/* Model mode: the time stamp of one bit (slot) of one line of core's MPB. */
static inline _Atomic uint64_t *hw_stamp(const struct hw_job *j, int core, uint64_t line, uint64_t slot) {
  const struct hw_header *h = j->hdr;
  uint64_t lines = (uint64_t)h->chip.mpb_bytes_per_core / (uint64_t)h->chip.line_bytes;
  return (_Atomic uint64_t *)(j->base + h->stamp_off) + (((uint64_t)core * lines + line) * h->stamp_slots_per_line + slot);
}
static inline _Atomic int64_t *hw_load(const struct hw_job *j, uint64_t resource) {
  return (_Atomic int64_t *)(j->base + j->hdr->load_off) + resource;
}
static inline struct hw_vlog *hw_vlog(const struct hw_job *j, int domain) {
  return (struct hw_vlog *)(j->base + j->hdr->vlog_off) + domain;
}
/* Whether the basic interface's short messages travel tagged (enum hw_tagged)
 * for a program of this flag form and interface. */
static inline int hw_tagged_messages(const struct hw_header *h, int flag_mode, int iface) {
  int on = h->set.tagged_flags == HW_TAGGED_ON || (h->set.tagged_flags == HW_TAGGED_AUTO && !h->set.model);
  return on && flag_mode == HW_FLAGS_BIG && iface == HW_IFACE_BASIC;
}
static inline unsigned char *hw_shared(const struct hw_job *j) { return j->base + j->hdr->shared_off; }
static inline unsigned char *hw_svm_pool(const struct hw_job *j) { return j->base + j->hdr->svm_off; }

#endif

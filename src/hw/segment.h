/*
 * hw layer: the emulated hardware of one job, in one shared-memory segment.
 *
 * Layout (every part aligned to a host cache line, 64 B; from the MPBs on, to a page):
 *   header (with the region table and the layout hash) | per-UE hw blocks |
 *   config registers | test-and-set registers | MPBs (one per core of the chip) |
 *   named regions (region.h: the layers' shared state, by name) |
 *   trace logs | off-chip shared region | SVM pool | private memory (one
 *   partition per UE, what its LUT maps: scc_lut.h)
 * hw embeds none of the upper layers' types: timing, rcce, mailbox and svm
 * declare their blocks in their own *_shared.h (docs/architecture.md).
 * The launcher creates the segment; every UE maps it from an inherited fd.
 */
#ifndef OPENSCC_HW_SEGMENT_H
#define OPENSCC_HW_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../chip/chip.h"
#include "region.h"
#include "settings.h"

#define HW_MAGIC 0x214343536e65704fULL /* "OpenSCC!" */
#define HW_VERSION 11                  /* raise when struct hw_header or struct hw_ue changes */
#define HW_HOST_LINE 64
#define HW_MAX_UES CHIP_MAX_CORES
#define HW_SHM_PREFIX "openscc-"
#define HW_ALIGNED __attribute__((aligned(HW_HOST_LINE)))

/* v rounded up to a multiple of a. */
static inline uint64_t hw_align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Where UEs try to map the segment, so MPB and shared-region pointers are
 * equal in every UE (as on the SCC).  Falls back to any address. */
#define HW_MAP_HINT ((void *)0x5e0000000000ULL)

enum hw_ue_state {
  HW_UE_NOT_STARTED = 0, /* forked, RCCE_init not reached */
  HW_UE_RUNNING = 1,
  HW_UE_BLOCKED = 2,   /* asleep in the runtime; wait descriptor valid */
  HW_UE_FINALIZED = 3, /* RCCE_finalize done */
};

enum hw_wait_kind {
  HW_WAIT_NONE = 0,
  HW_WAIT_RECV,         /* RCCE_recv: data from peer */
  HW_WAIT_SEND,         /* RCCE_send: peer to take the data */
  HW_WAIT_FLAG,         /* RCCE_wait_until on a user flag */
  HW_WAIT_BARRIER,      /* barrier of a communicator */
  HW_WAIT_LOCK,         /* test-and-set lock of core peer */
  HW_WAIT_MAIL,         /* mailbox_recv: a mail (from peer, or any UE when -1) */
  HW_WAIT_MAILBOX_FULL, /* mailbox_send: peer to empty its mailbox */
  HW_WAIT_SVM_PAGE,     /* SVM page fault: ownership of a page held by peer */
  HW_WAIT_MPI,          /* in MPI (mpi channel): a packet from any UE, or an EWS to free */
  HW_WAIT_VTIME,        /* model mode: peer's virtual time to pass this UE's (timing floor.c) */
  HW_WAIT_COPY,         /* scc_copy_wait: copy core peer to answer */
  HW_WAIT_COPY_IDLE,    /* a copy core waiting for requests */
};

/* What a sleeping UE waits for: read by the launcher's deadlock report. */
struct hw_wait_desc {
  int32_t kind;
  int32_t peer;            /* UE waited for, or -1 */
  int32_t comm_size;       /* barrier: communicator size */
  int32_t comm_label;      /* barrier: communicator creation order (0 = world) */
  uint32_t mpb_offset;     /* flag: line offset in the waiter's MPB */
  int32_t value;           /* flag: value waited for */
  uint64_t futex_off;      /* segment offset of the futex word slept on */
  uint32_t futex_val;      /* value it was expected to hold while asleep */
  int32_t comm_members[4]; /* barrier: first members, for the report */
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
  uint64_t sleeps; /* times the UE slept on a futex (wait.c) */
};

struct hw_tas {
  _Atomic int32_t locked HW_ALIGNED; /* one test-and-set register per core */
  _Atomic int32_t waiters;
};

struct hw_config {
  _Atomic int32_t tile_divider[CHIP_MAX_CORES];   /* per frequency domain (tile) */
  _Atomic int32_t domain_vlevel[CHIP_MAX_CORES];  /* per voltage domain */
  _Atomic int32_t domain_pending[CHIP_MAX_CORES]; /* a voltage request in flight */
};

struct hw_header {
  uint64_t magic;
  uint64_t layout_hash; /* region.h: what attach compares (kept at this offset in every version) */
  uint32_t version;
  uint32_t nue;
  struct chip_desc chip;
  int32_t launcher_pid;
  int32_t initial_vlevel; /* every domain's voltage level at the start */
  struct hw_settings set; /* rccerun's options (settings.h) */
  uint32_t n_regions;     /* the layers' named regions (region.h), sorted by name */
  struct hw_region_entry regions[HW_REGION_MAX];
  /* Monitoring (hw/trace.h): one block per UE of trace_ue_bytes. */
  uint64_t trace_off, trace_ue_bytes, trace_capacity;
  uint64_t trace_ticks0, trace_ns0; /* hw_trace_clock() and CLOCK_MONOTONIC at the job's start */
  uint64_t ue_off, config_off, tas_off, mpb_off, shared_off, shared_bytes, total_bytes;
  /* SVM pool (svm layer): page frames and their tables, right after the
   * shared region, so frame offsets continue its memory-controller map. */
  uint64_t svm_off, svm_bytes;
  /* Private memory: one partition of private_bytes per UE, after the SVM
   * pool (the SCC's per-core DDR3 that the cores' lookup tables map;
   * rccerun --private-size, docs/data-movement.md). */
  uint64_t private_off, private_bytes;
  /* rccerun --hosts (hosts.h): this host's log of MPB writes and the UEs'
   * answers from other hosts; none (0 bytes) on one host. */
  uint64_t hosts_off, hosts_bytes;
};

struct hw_job_params {
  int nue;
  struct chip_desc chip;
  int ue_core[HW_MAX_UES];
  uint64_t shared_bytes;
  uint64_t svm_bytes;      /* SVM pool (rccerun --svm-size) */
  uint64_t private_bytes;  /* private memory per UE (rccerun --private-size) */
  struct hw_settings set;  /* rccerun's options (settings.h) */
  uint64_t trace_capacity; /* events per UE at the sizes and timeline levels */
};

/* A fingerprint of the sizes and offsets of hw's own structures (segment.c),
 * part of the layout hash (region.h). */
uint64_t hw_shapes_fingerprint(void);

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
/* UE: the job rccerun started this process in (attach_env.c), named by the
 * environment OPENSCC_SHM_FD (an inherited fd of the segment) and OPENSCC_UE,
 * each parsed whole.  The UE is parsed first and stored in *ue, so that every
 * later failure can name it.  Returns 0 attached, 1 when either variable is
 * unset (not started by rccerun; nothing touched but *ue = -1), -1 with err
 * set ("OPENSCC_UE must be a UE number (set by rccerun), got 'x'", the error
 * of hw_job_attach, or a UE number beyond the job's). */
int hw_job_attach_env(struct hw_job *job, int *ue, char *err, size_t errlen);
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
static inline unsigned char *hw_shared(const struct hw_job *j) { return j->base + j->hdr->shared_off; }
static inline unsigned char *hw_svm_pool(const struct hw_job *j) { return j->base + j->hdr->svm_off; }
/* UE ue's private memory partition (private_bytes of it). */
static inline unsigned char *hw_private(const struct hw_job *j, int ue) {
  return j->base + j->hdr->private_off + (size_t)ue * (size_t)j->hdr->private_bytes;
}

#endif

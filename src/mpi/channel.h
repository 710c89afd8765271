/*
 * mpi layer: the SCC channel protocols over the emulated MPB, one channel per
 * UE (process).  The channel moves packets -- a fixed header then a payload of
 * any size -- from UE to UE, in order between each pair, through the MPBs of
 * the job segment; the provider (provider.h) above it matches them to
 * libfabric operations.  Protocols (rccerun --mpi-channel, docs/mpi.md):
 *  - rckmpi: [RCKMPI-2011] sec. II: the base protocol's exclusive write
 *    sections (EWS) at the receiver, one per sender, 64 B with 16 B of
 *    metadata, plus the extended protocol's 4 KB general-purpose EWS (gEWS)
 *    at the sender, 32 chunks of 128 B named by a 32-bit mask;
 *  - rckmpi-original: RCKMPI's first SCCMPB channel: the receiver's MPB split
 *    evenly among all senders (160-byte sections at 48 UEs), 12 B of metadata;
 *  - sccmpich: [SCC-2BOARD] sec. V: SCC-MPICH's short protocol in tagged
 *    probe flags, eager and rendezvous (channel_sccmpich*.c).
 * Every MPB access goes through hw (the segment, doorbells) and timing (model
 * mode charges, monitoring records).  The channel does not bracket itself
 * with timing_enter/timing_leave: the provider's public entry points do, and
 * call the channel inside (docs/mpi-channel.md).
 * Single-threaded: one thread at a time may call the channel (its state is
 * per process, unlocked); the provider serialises all its entry points
 * (provider.h, PROV_LOCK_SCOPE), whatever threading level the MPI library
 * asked for (FI_THREAD_SAFE included).
 */
#ifndef OPENSCC_MPI_CHANNEL_H
#define OPENSCC_MPI_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../hw/segment.h"

enum mpi_channel_kind {
  MPI_CHANNEL_RCKMPI = 0,          /* base + extended protocol (the default) */
  MPI_CHANNEL_RCKMPI_ORIGINAL = 1, /* evenly split MPB */
  MPI_CHANNEL_SCCMPICH = 2,        /* SCC-MPICH: short (tagged flags), eager, rendezvous */
  MPI_CHANNEL_SCCMPICH_NORMAL = 3, /* the same with normal flags: no payload in the flags */
};

/* The provider's packet header travels in front of every payload: 32 bytes,
 * as an MPICH2 packet header ([RCKMPI-2011] sec. II-A). */
#define MPI_PACKET_HEADER 32

/* An outgoing packet.  The provider fills dest, header, iov/iov_count,
 * payload_bytes and done; the channel owns the rest until done() is called,
 * after the last byte has been written into the MPB (the caller may then
 * reuse its buffers).  The iov array and the buffers must stay valid until
 * then. */
struct mpi_out_packet {
  struct mpi_out_packet *next; /* channel: the destination's FIFO */
  int dest;                    /* UE */
  unsigned char header[MPI_PACKET_HEADER];
  const struct iovec *iov;
  size_t iov_count;
  uint64_t payload_bytes; /* sum of the iov lengths */
  void (*done)(struct mpi_out_packet *p);
  /* channel progress state */
  uint64_t sent; /* bytes of header + payload written so far */
  size_t iov_index, iov_offset;
};

/* Where an incoming packet's payload goes, chosen by the provider when its
 * header arrives: bytes beyond the iov's total are read and discarded (the
 * provider reports the truncation).  The channel re-reads the iov entries'
 * lengths as the payload lands, so the provider may shrink them meanwhile
 * (to 0: the rest is discarded, e.g. when the receiving endpoint closed). */
struct mpi_in_target {
  const struct iovec *iov;
  size_t iov_count;
  void *cookie; /* the provider's */
};

/* The provider's side of the receive path.  arrived(), complete() and the
 * packets' done() are called from inside mpi_channel_progress only (never
 * from mpi_channel_post), and may call mpi_channel_post: the packet is
 * queued and moved by that progress call or the next. */
struct mpi_channel_sink {
  /* A packet's header has arrived from UE src; payload_bytes follow.  Fill *t
   * (the channel keeps it until complete()). */
  void (*arrived)(void *arg, int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes,
                  struct mpi_in_target *t);
  /* The packet's last payload byte has been copied into t (or discarded). */
  void (*complete)(void *arg, int src, struct mpi_in_target *t);
  /* Whether a packet with this header would land in a receive posted now
   * (or needs none); may be NULL.  A single copy nobody wants yet waits a
   * while in its EWS (channel_copy.c, "Rendezvous kept waiting"). */
  int (*wanted)(void *arg, int src, const unsigned char header[MPI_PACKET_HEADER], uint64_t payload_bytes);
  void *arg;
};

/* Open this process's channel as UE `ue` of the attached job; 0, or -1 with
 * err set (e.g. the job's UEs do not fit the protocol's MPB layout). */
int mpi_channel_open(struct hw_job *job, int ue, enum mpi_channel_kind kind, const struct mpi_channel_sink *sink,
                     char *err, size_t errlen);
/* Close it (every queued packet should have completed). */
void mpi_channel_close(void);

/* The single copies kept waiting for a receive (sink.wanted) are taken at
 * the next progress call, wanted or not: a probe looks at arrived messages
 * only (the provider's FI_PEEK). */
void mpi_channel_take_waiting(void);

/* 0 when the channel's MPB layout fits `nue` UEs on `chip`, else -1 with
 * the reason in err (as mpi_channel_open would give it). */
struct chip_desc;
int mpi_channel_fits(enum mpi_channel_kind kind, const struct chip_desc *chip, int nue, char *err, size_t errlen);

/* Queue p behind the packets already queued for p->dest and start moving it. */
void mpi_channel_post(struct mpi_out_packet *p);
/* Move what can move now: write rounds to free EWSs, read arrived rounds.
 * Returns how many rounds moved (0: nothing happened). */
int mpi_channel_progress(void);
/* Only the done() calls of the packets whose last byte has left (a post
 * that wrote its whole packet at once); how many. */
int mpi_channel_finish(void);
/* Nothing moved: spend one unit of the wait budget (spin, yield, then sleep on
 * the UE's doorbell until something arrives or an EWS frees, bounded), with
 * the UE shown as waiting in MPI to the launcher's deadlock detector. */
void mpi_channel_idle(void);
/* The same for a caller that lets its other threads in while it sleeps:
 * the wake condition is tested under the caller's lock, then release() lets
 * the lock go for the nap and reacquire() takes it back (both only around a
 * nap).  show_blocked 0: the nap is not shown as a wait in MPI (another
 * thread of the process is busy) and lasts at most 1 ms. */
struct mpi_idle_lock {
  void (*release)(void);
  void (*reacquire)(void);
};
void mpi_channel_idle_unlocked(const struct mpi_idle_lock *lock, int show_blocked);
/* Packets queued and not yet done. */
uint64_t mpi_channel_pending(void);
/* Asked when p's buffers go back to the caller (native single copy,
 * docs/mpi-channel.md): withdraws p's single copy if its receiver has not
 * claimed it, whose payload then follows in rounds from p's iov as it is
 * then (the caller may re-point the iov entries, with the same lengths);
 * 0 then, or when p has no single copy under way (or its receiver is gone
 * after claiming it: p is never done).  1: the receiver claimed it and is
 * copying from p's buffers: keep p's iov and buffers as they are until
 * done() or a later 0. */
int mpi_channel_copying(const struct mpi_out_packet *p);

#endif

/*
 * Native single copy of large payloads (docs/mpi-channel.md, "Single
 * copy"), as RCCE's native path copies large messages (rcce/single_copy.c):
 * a packet whose payload is at least CHAN_COPY_MIN bytes moves in one round
 * of the usual protocol, the rendezvous, which carries the packet's header
 * and a descriptor of the sender's payload (its process, and the address of
 * the payload or of its iov array) instead of the payload.  The receiver copies the payload
 * straight from the sender's buffers into the provider's target
 * (process_vm_readv, hw/peer_copy.h), writes the outcome into the EWS
 * payload and then publishes its receive sequence as for any round: the
 * sender, seeing the round consumed, reads the outcome, and the packet is
 * done (its buffers reusable) only then.  A refused copy (Yama's
 * ptrace_scope 2 or 3, a sender that forbids ptrace) leaves the payload to
 * the ordinary rounds that follow, and the sender sends no more single
 * copies.  The descriptor's pid is also a claim word: the receiver swaps
 * it for CLAIM_TAKEN before it reads anything, a sender taking its buffers
 * back (its endpoint or channel closing) swaps it for CLAIM_WITHDRAWN; the
 * first swap decides, so the receiver never reads buffers the sender gave
 * back, and a sender that lost waits for the receiver's status (it copies
 * within its current progress call), or until the receiver is gone.  A
 * withdrawn payload follows in rounds too.  The receiver reads only the
 * process that is UE src: its pid (hw_ue) and its start time, recorded at
 * open in the mpi layer's per-UE state, must both match.  The EWS, the sequences, the doorbells, the packet order, the
 * statistics' packets and bytes and the monitoring records are those of the
 * MPB path; only the payload bypasses the MPB.  Model mode never takes this
 * path: its rounds are what the model charges (timing.h).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../hw/peer_copy.h"
#include "../hw/trace.h"
#include "../hw/wait.h"
#include "channel_internal.h"

/* Payloads from this size on go by single copy: below it the rounds through
 * the MPB cost less than the two system calls and the round trip
 * (measured, docs/mpi-channel.md "Single copy"). */
#define CHAN_COPY_MIN (32 * 1024)
/* The sender's iov entries the receiver reads at most (the provider's are fewer). */
#define CHAN_COPY_IOV_MAX 64

/* The descriptor after the header in the rendezvous round.  One piece
 * (the usual case: an MPI library sends from one buffer) is described
 * directly, which saves the receiver the system call that reads the iov
 * array. */
struct chan_copy_desc {
  int32_t pid;        /* the sender's process; the claim word (below) */
  uint32_t iov_count; /* 0: one piece, at addr, of the packet's payload length */
  uint64_t addr;      /* the payload, or the sender's struct iovec[iov_count] */
};
_Static_assert(sizeof(struct chan_copy_desc) == CHAN_COPY_DESC_BYTES, "descriptor size");
/* The claim word's values besides the sender's pid (never a process id). */
#define CLAIM_TAKEN (-1)
#define CLAIM_WITHDRAWN 0

/* This process's id, read once (getpid is a system call). */
static int32_t my_pid;

/* How many polls of a claimed rendezvous between looks for the receiver's
 * process (a system call; its state is read every poll). */
#define CLAIM_PROCESS_CHECK 64
static unsigned claim_polls;

/* The start time of process pid: field 22 of /proc/pid/stat (proc(5),
 * clock ticks since boot), which tells apart two processes that had the
 * same pid; 0: unknown (no such process).  The fields after the command
 * name, which may hold spaces and parentheses, follow its last ')'. */
static uint64_t process_start_time(pid_t pid) {
  char path[40], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *at = strrchr(buf, ')');
  unsigned long long start = 0;
  /* after ") ": fields 3 (state) to 21, then 22 */
  if (!at ||
      sscanf(at + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
    return 0;
  return start;
}

/* The process of each sender UE, once checked (owner_is_ue). */
struct owner_process {
  pid_t pid; /* 0: not checked yet */
  int fd;    /* a pidfd of it, or -1 */
};
static struct owner_process *owners; /* by UE, while single copy is on */

/* Whether process `owner` is UE src's: the one whose start time UE src
 * recorded (a stale descriptor of an exited sender whose pid a new process
 * took must never read that process).  /proc is read once per pid: a pidfd
 * opened before that check refers to the process checked, whatever becomes
 * of its pid, and is readable once the process has exited (pidfd_open(2));
 * each copy then costs one poll(2), not a /proc read (which doubled the
 * time of a 64 KiB copy).  Without pidfds, /proc is read every time. */
static int owner_is_ue(int src, pid_t owner) {
  uint64_t start = mpi_ue_shared_of(chan.job, src)->start_time;
  struct owner_process *o = &owners[src];
  if (o->pid != owner) {
    if (o->fd >= 0) close(o->fd);
    *o = (struct owner_process){0, (int)syscall(SYS_pidfd_open, owner, 0)};
    if (start == 0 || process_start_time(owner) != start) {
      if (o->fd >= 0) close(o->fd);
      *o = (struct owner_process){0, -1};
      return 0;
    }
    o->pid = owner;
    if (o->fd < 0) o->pid = 0; /* no pidfd: check again next time */
    return 1;
  }
  struct pollfd exited = {o->fd, POLLIN, 0};
  return poll(&exited, 1, 0) == 0;
}

/* The claim word of the rendezvous in the EWS `ews` (in the receiver's
 * MPB): 4-byte aligned, as EWSs start on a line and metadata and header
 * are multiples of 4 bytes. */
static int32_t *claim_word(unsigned char *ews) {
  return (int32_t *)(ews + chan.g.meta_bytes + MPI_PACKET_HEADER + offsetof(struct chan_copy_desc, pid));
}

void chan_copy_open(void) {
  const struct hw_header *h = chan.job->hdr;
  /* The rendezvous (header + descriptor) must fit one EWS round. */
  chan.copy_ok = h->set.single_copy && !h->set.model && chan.g.ews_payload >= MPI_PACKET_HEADER + CHAN_COPY_DESC_BYTES;
  if (chan.copy_ok) hw_allow_peer_copies(h);
  my_pid = (int32_t)getpid();
  if (!chan.copy_ok) return;
  chan.stats->start_time = process_start_time(my_pid); /* before any rendezvous */
  owners = malloc((size_t)chan.nue * sizeof *owners);
  if (!owners) chan_fatal("out of memory for the single-copy peers");
  for (int u = 0; u < chan.nue; u++) owners[u] = (struct owner_process){0, -1};
}

int chan_copy_wanted(const struct mpi_out_packet *p) {
  return chan.copy_ok && p->payload_bytes >= CHAN_COPY_MIN && p->iov_count <= CHAN_COPY_IOV_MAX;
}

void chan_copy_describe(const struct mpi_out_packet *p, unsigned char *to) {
  const int one = p->iov_count == 1;
  const struct chan_copy_desc d = {my_pid, one ? 0 : (uint32_t)p->iov_count,
                                   (uint64_t)(uintptr_t)(one ? p->iov[0].iov_base : (const void *)p->iov)};
  memcpy(to, &d, sizeof d);
}

/* The sender's iov as described: one piece, or their array (read from
 * them: an array that does not hold the packet's payload is not the
 * packet's); how many entries, or -1 (refused). */
static int their_iov(pid_t pid, const struct chan_copy_desc *d, const struct chan_rx *r, struct iovec *theirs) {
  uint64_t payload = r->packet_bytes - MPI_PACKET_HEADER;
  if (d->iov_count == 0) {
    theirs[0] = (struct iovec){(void *)(uintptr_t)d->addr, payload};
    return 1;
  }
  const struct iovec table = {theirs, d->iov_count * sizeof *theirs},
                     where = {(void *)(uintptr_t)d->addr, d->iov_count * sizeof *theirs};
  if (hw_peer_copyv(pid, &table, 1, &where, 1, 0) != 0) return -1;
  uint64_t total = 0;
  for (uint32_t i = 0; i < d->iov_count; i++) total += theirs[i].iov_len;
  return total == payload ? (int)d->iov_count : -1;
}

uint8_t chan_copy_pull(int src, const unsigned char *desc, struct chan_rx *r) {
  struct chan_copy_desc d;
  memcpy(&d, desc, sizeof d);
  if (d.iov_count > CHAN_COPY_IOV_MAX) {
    fprintf(stderr, "openscc mpi channel: UE %d: corrupt single-copy descriptor from UE %d (%u iov entries)\n", chan.me,
            src, d.iov_count);
    abort();
  }
  /* Claim it, from the process that is UE src only: its pid, and its start
   * time, so that a stale descriptor of an exited sender whose pid a new
   * process took never reads that process (it could take the pid between
   * this check and the read below only if the pid space wrapped around in
   * between). */
  int32_t owner = hw_ue(chan.job, src)->pid, seen = owner;
  if (!__atomic_compare_exchange_n(claim_word(r->ews), &seen, CLAIM_TAKEN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return seen == CLAIM_WITHDRAWN ? CHAN_COPY_WITHDRAWN : CHAN_COPY_REFUSED;
  if (!owner_is_ue(src, owner)) return CHAN_COPY_REFUSED;
  /* Their iov, then the payload into the target (bytes beyond its end stay
   * unread, as the rounds would discard them). */
  struct iovec theirs[CHAN_COPY_IOV_MAX];
  int n = their_iov(owner, &d, r, theirs);
  if (n < 0 || hw_peer_copyv(owner, r->t.iov, r->t.iov_count, theirs, (size_t)n, 0) != 0) return CHAN_COPY_REFUSED;
  return CHAN_COPY_DONE;
}

/* Rendezvous kept waiting.  A rendezvous that no posted receive wants yet
 * (its MPI receive not posted: in a ping-pong, the reply often arrives while
 * the rank still waits for its own send to complete) would be copied into
 * an unexpected-message buffer now and into the receive later: twice the
 * bytes, as an MPI library's own rendezvous avoids (Open MPI's vader keeps
 * only the header of an unexpected rendezvous and copies once the receive
 * is posted).  So it stays unconsumed in its EWS, and is asked about again
 * at every pass, for at most about as long as its copy would take
 * (WAITING_BYTES_PER_NS, a single copy's rate on the reference host: so
 * waiting never costs more than the second copy it may save); then, or when
 * a probe asks for arrived messages (mpi_channel_take_waiting), it is taken
 * as any other.  Bounded, because the sender's later packets queue behind
 * it: a receiver may want one of those first. */
#define WAITING_BYTES_PER_NS 8

int chan_copy_keep_waiting(int src, const unsigned char *header, uint64_t packet_bytes) {
  struct chan_rx *r = &chan.rx[src];
  uint64_t payload = packet_bytes - MPI_PACKET_HEADER;
  if (chan.take_waiting || !chan.sink.wanted || chan.sink.wanted(chan.sink.arg, src, header, payload)) {
    r->waiting_since_ns = 0;
    return 0;
  }
  uint64_t now = hw_trace_monotonic_ns();
  if (!r->waiting_since_ns) r->waiting_since_ns = now;
  else if (now - r->waiting_since_ns >= payload / WAITING_BYTES_PER_NS) {
    r->waiting_since_ns = 0;
    return 0;
  }
  if (chan.news) chan_ue_set(chan.due_rx, src); /* asked about again at the next pass */
  return 1;
}

void mpi_channel_take_waiting(void) { chan.take_waiting = 1; }

/* Whether the receiver of t's rendezvous published its status (its
 * receive sequence; it rings my doorbell after publishing it). */
static int status_published(void *arg) {
  const struct chan_tx *t = arg;
  return __atomic_load_n(&chan_meta_of(t->ews)->recv_seq, __ATOMIC_ACQUIRE) == t->seq;
}

/* The receiver dest claimed my rendezvous: whether it is gone without
 * publishing its status (it finished or exited between its claim and its
 * status, which it publishes in the same progress call otherwise): reported
 * once, as the claim word is then set to withdrawn; the packet is never
 * delivered, and its buffers go back to the caller. */
static int claimer_gone(int dest) {
  struct chan_tx *t = &chan.tx[dest];
  const char *gone = chan_ue_gone(dest, ++claim_polls % CLAIM_PROCESS_CHECK == 0);
  if (!gone || status_published(t)) return 0; /* looked at after: a receiver that finished published first */
  fprintf(stderr,
          "openscc mpi channel: UE %d: UE %d %s after claiming this UE's single copy of a %llu-byte payload, before "
          "reporting it: the packet is not delivered and its buffers go back to the caller\n",
          chan.me, dest, gone, (unsigned long long)t->head->payload_bytes);
  __atomic_store_n(claim_word(t->ews), CLAIM_WITHDRAWN, __ATOMIC_RELEASE);
  return 1;
}

int chan_copy_withdraw(int dest) {
  int32_t seen = my_pid;
  if (__atomic_compare_exchange_n(claim_word(chan.tx[dest].ews), &seen, CLAIM_WITHDRAWN, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return 1;
  return seen != CLAIM_TAKEN || claimer_gone(dest); /* withdrawn before; or claimed: copying until its status */
}

void chan_copy_close(void) {
  for (int d = 0; d < chan.nue; d++) {
    struct chan_tx *t = &chan.tx[d];
    /* Claimed: the receiver copies now, then publishes its receive sequence
     * in this same call of its progress, and rings.  The naps are bounded,
     * so a receiver gone meanwhile (no ring) is seen by chan_copy_withdraw. */
    const struct hw_wait_desc why = {.kind = HW_WAIT_MPI, .peer = d};
    while (t->copy && !chan_copy_withdraw(d) && !status_published(t))
      hw_poll_idle_blocked(chan.job, chan.me, status_published, t, &why);
  }
  if (!owners) return;
  for (int u = 0; u < chan.nue; u++)
    if (owners[u].fd >= 0) close(owners[u].fd);
  free(owners);
  owners = NULL;
}

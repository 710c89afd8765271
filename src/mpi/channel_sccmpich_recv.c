/* The sccmpich channel's receiver (channel_sccmpich.h; docs/mpi-channel.md
 * "sccmpich").  Polls the probe flags in its own MPB round-robin over the
 * senders (local get: [SCC-2BOARD] sec. V, "a receiver can just poll on its
 * own local MPB"), reads the round from the flag, the sender's eager slot or
 * a half of the rendezvous buffer, and acknowledges it in the sender's MPB;
 * the acknowledgement of a request-to-send carries the clear-to-send when
 * the rendezvous buffer is free, else the sender waits in a FIFO for it.
 * An owner of the buffer that has finished or died while senders wait loses
 * it (check_owner). */
#include <stdio.h>
#include <string.h>

#include "../hw/hosts.h"
#include "../hw/wait.h"
#include "../timing/timing.h"
#include "channel_sccmpich.h"

static uint32_t *sync_word(int src) { return (uint32_t *)sccm_probe(chan.me, src); }

static int sccm_round_there(int src) {
  return (uint8_t)__atomic_load_n(sync_word(src), __ATOMIC_ACQUIRE) != sccm.rx[src].seq;
}

/* n bytes of src's packet at `from`: the header first (once complete, the
 * provider names the payload's target), then the payload.  No charge. */
static void take(int src, const unsigned char *from, uint64_t n) {
  struct sccm_rx *r = &sccm.rx[src];
  while (n > 0) {
    uint64_t k;
    if (r->got < MPI_PACKET_HEADER) {
      k = min_u64(n, MPI_PACKET_HEADER - r->got);
      memcpy(r->header + r->got, from, k);
      if (r->got + k == MPI_PACKET_HEADER) {
        memset(&r->t, 0, sizeof r->t);
        r->iov_index = r->iov_offset = 0;
        chan.sink.arrived(chan.sink.arg, src, r->header, r->packet_bytes - MPI_PACKET_HEADER, &r->t);
      }
    } else {
      k = chan_into_target(&r->t, &r->iov_index, &r->iov_offset, from, n);
    }
    r->got += k;
    from += k;
    n -= k;
  }
}

/* From my own MPB (an eager slot, a rendezvous half): the lines read. */
static void get(int src, const unsigned char *from, uint64_t n) {
  if (timing_enabled) timing_mpb_copy(from, n, 0);
  take(src, from, n);
}

/* The bytes after the sync word of src's probe flag, from offset `off`:
 * the first line came with the sync word (timing_flag_seen); a second line
 * is one more line read. */
static void get_probe(int src, uint32_t off, uint64_t n) {
  const unsigned char *probe = sccm_probe(chan.me, src);
  if (timing_enabled && SCCM_SYNC_BYTES + off + n > sccm.g.line) timing_mpb_copy(probe + sccm.g.line, 1, 0);
  take(src, probe + SCCM_SYNC_BYTES + off, n);
}

/* My acknowledgement in src's MPB (release; a remote line write, stamped),
 * then src's doorbell: the round consumed and the clear-to-sends granted. */
static void acknowledge(int src) {
  struct sccm_rx *r = &sccm.rx[src];
  uint32_t *w = (uint32_t *)sccm_ack_flag(src, chan.me);
  uint32_t ack = sccm_ack(++r->ack_writes, r->seq, r->grants);
  if (timing_enabled) timing_flag_write(w, 0, ack);
  hw_mpb_store32(chan.job, w, ack);
  hw_ring(chan.job, src);
}

static void corrupt(int src, uint32_t sync, const char *why) {
  char what[200];
  snprintf(what, sizeof what, "corrupt probe flag from UE %d (sync word 0x%08x: %s)", src, sync, why);
  chan_fatal(what);
}

/* My rendezvous buffer goes to src: the clear-to-send travels with src's next acknowledgement. */
static void grant(int src) {
  sccm.owner = src;
  sccm.owner_idle = 0;
  sccm.rx[src].grants++;
  sccm.rx[src].data_rounds = 0;
}

/* A request-to-send: the packet size, then (tagged flags) its first bytes;
 * src gets the buffer now or queues for it. */
static void request_to_send(int src, uint32_t sync, uint32_t bytes) {
  struct sccm_rx *r = &sccm.rx[src];
  uint64_t size;
  memcpy(&size, sccm_probe(chan.me, src) + SCCM_SYNC_BYTES, sizeof size);
  uint32_t in_flag = sccm.g.inline_bytes ? sccm.g.inline_bytes - SCCM_SIZE_BYTES : 0;
  if (sccm_protocol_of(&sccm.g, size) != SCCM_RTS || bytes != in_flag || sccm.owner == src)
    corrupt(src, sync, "bad request-to-send");
  r->packet_bytes = size;
  get_probe(src, SCCM_SIZE_BYTES, bytes);
  if (sccm.owner < 0) grant(src);
  else sccm.waiting[(sccm.wait_head + sccm.wait_count++) % chan.nue] = src;
}

/* The rendezvous ended: the buffer goes to the next sender waiting. */
static void release_buffer(void) {
  sccm.owner = -1;
  if (sccm.wait_count == 0) return;
  int next = sccm.waiting[sccm.wait_head];
  sccm.wait_head = (sccm.wait_head + 1) % chan.nue;
  sccm.wait_count--;
  grant(next);
  acknowledge(next);
}

static void packet_received(int src) {
  struct sccm_rx *r = &sccm.rx[src];
  uint64_t bytes = r->packet_bytes;
  r->packet_bytes = r->got = 0;
  chan_packet_complete(src, bytes, &r->t);
}

/* Consume the round announced in src's probe flag. */
static void receive_round(int src) {
  struct sccm_rx *r = &sccm.rx[src];
  uint32_t sync = __atomic_load_n(sync_word(src), __ATOMIC_ACQUIRE);
  if (timing_enabled) timing_flag_seen(sync_word(src), 0, sync);
  uint32_t kind = sync >> 8 & 0xf, half = sync >> 12 & 1, bytes = sync >> 16;
  int between = r->packet_bytes == 0;
  if (kind == SCCM_SHORT || kind == SCCM_EAGER) {
    if (!between || sccm_protocol_of(&sccm.g, bytes) != kind || bytes < MPI_PACKET_HEADER)
      corrupt(src, sync, "bad short or eager round");
    uint32_t in_flag = (uint32_t)min_u64(bytes, sccm.g.inline_bytes);
    r->packet_bytes = bytes;
    get_probe(src, 0, in_flag);
    if (bytes > in_flag) get(src, sccm_slot(chan.me, src), bytes - in_flag);
  } else if (kind == SCCM_RTS) {
    if (!between) corrupt(src, sync, "request-to-send inside a packet");
    request_to_send(src, sync, bytes);
  } else if (kind == SCCM_DATA) {
    if (between || sccm.owner != src || half != r->data_rounds % 2 || bytes == 0 || bytes > sccm.g.half_bytes ||
        bytes > r->packet_bytes - r->got)
      corrupt(src, sync, "bad rendezvous chunk");
    get(src, sccm_half(chan.me, half), bytes);
    r->data_rounds++;
    sccm.owner_idle = 0;
  } else {
    corrupt(src, sync, "unknown kind");
  }
  r->seq = (uint8_t)sync;
  acknowledge(src);
  chan.stats->rounds_recv++;
  if (r->got < r->packet_bytes) return;
  packet_received(src);
  if (kind == SCCM_DATA) release_buffer();
}

/* How many passes an owner may send nothing, with senders waiting, before
 * its process is looked for (a system call; its state is read every pass). */
#define OWNER_PROCESS_CHECK 64

/* Senders wait for my rendezvous buffer: if its owner is gone, with no round
 * of it left to read, it will never send the chunks its clear-to-send asked
 * for, and the waiters would wait forever.  Take the buffer back: the
 * owner's packet is dropped unfinished (the provider never sees it complete,
 * as the owner's own provider dropped it), and the next sender gets the
 * buffer. */
static void check_owner(void) {
  int owner = sccm.owner;
  if (owner < 0 || sccm.wait_count == 0) return;
  const char *gone = chan_ue_gone(owner, ++sccm.owner_idle % OWNER_PROCESS_CHECK == 0);
  if (!gone || sccm_round_there(owner)) return;
  struct sccm_rx *r = &sccm.rx[owner];
  fprintf(stderr,
          "openscc mpi channel: UE %d: UE %d %s while holding this UE's rendezvous buffer (%llu of its %llu-byte "
          "packet received): the packet is dropped and the buffer goes to UE %d, the next sender waiting\n",
          chan.me, owner, gone, (unsigned long long)r->got, (unsigned long long)r->packet_bytes,
          sccm.waiting[sccm.wait_head]);
  r->packet_bytes = r->got = 0;
  release_buffer();
}

int sccm_receive_rounds(void) {
  int moved = chan_poll_senders(sccm_round_there, receive_round, NULL);
  check_owner();
  return moved;
}

int sccm_round_waiting(void) {
  for (int src = 0; src < chan.nue; src++)
    if (sccm_round_there(src)) return 1;
  return 0;
}

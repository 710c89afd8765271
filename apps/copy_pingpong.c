/*
 * copy_pingpong.c - [SVP-SCC]'s ping-pong (sec. IV.A.1, Fig. 4): UEs 0 and 1
 * bounce a buffer of 4 B .. 16 MB three ways, and UE 0 prints the best half
 * round trip of each size and way:
 *
 *   direct  RCCE_send / RCCE_recv: the data through the 8 KB MPBs;
 *   remap   the sender flushes its level 2 and sends only the offset of the
 *           data in its private memory (the paper's core-physical address);
 *           the receiver maps that range and its own destination through its
 *           lookup table as MPBT (scc_lut.h), CL1INVMB, copies once
 *           (scc_copy_local), empties the write-combine buffer, unmaps;
 *   copy    the same, but the copy cores of the job copy (scc_copy.h:
 *           rccerun --copy-cores K; the paper used 4 and 16).
 *
 * Every received buffer is checked byte for byte (outside the timed part).
 * Both buffers live in the UEs' private memory (rccerun --private-size, at
 * least 2 x max_bytes): the source at offset 0, the destination after it.
 *
 * usage: copy_pingpong [max_bytes=16777216] [rounds=10] [ways=direct,remap,copy]
 * Prints "copy_pingpong: bytes way half_round_trip_us MB/s" lines.
 */
#define APP_NAME "copy_pingpong"
#include <string.h>

#include "app_common.h"
#include "scc_copy.h"
#include "scc_lut.h"

enum way { DIRECT, REMAP, COPY };
static const char *const way_names[] = {"direct", "remap", "copy"};

static unsigned char *source_of(void) { return scc_private_base(); }

/* The receiver's side of one transfer of `bytes` from peer. */
static void receive(enum way way, unsigned char *dst, size_t dst_offset, size_t bytes, int peer) {
  if (way == DIRECT) {
    app_rc(RCCE_recv((char *)dst, bytes, peer), "RCCE_recv");
    return;
  }
  uint64_t offset;
  app_rc(RCCE_recv((char *)&offset, sizeof offset, peer), "RCCE_recv");
  void *src, *to;
  app_rc(scc_map_private(peer, (size_t)offset, bytes, SCC_LUT_MPBT, &src), "scc_map_private (source)");
  if (way == COPY) {
    app_rc(scc_copy(dst, src, bytes), "scc_copy");
  } else {
    app_rc(scc_map_private(RCCE_ue(), dst_offset, bytes, SCC_LUT_MPBT, &to), "scc_map_private (destination)");
    scc_cl1invmb();
    scc_copy_local(to, src, bytes);
    scc_wcb_flush();
    scc_unmap(to, bytes);
  }
  scc_unmap(src, bytes);
}

/* The sender's side: the data itself, or its offset after a level-2 flush. */
static void send(enum way way, size_t bytes, int peer) {
  if (way == DIRECT) {
    app_rc(RCCE_send((char *)source_of(), bytes, peer), "RCCE_send");
    return;
  }
  scc_l2_flush(); /* the receiver reads memory, not this core's caches ([SVP-SCC] sec. III.B) */
  uint64_t offset = 0;
  app_rc(RCCE_send((char *)&offset, sizeof offset, peer), "RCCE_send");
}

/* Best half round trip over `rounds` round trips (UE 0 starts each). */
static double bounce(enum way way, size_t bytes, int rounds, size_t dst_offset) {
  int me = RCCE_ue(), peer = 1 - me;
  unsigned char *dst = source_of() + dst_offset;
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    memset(dst, 0, bytes);
    RCCE_barrier(&RCCE_COMM_WORLD);
    double t0 = RCCE_wtime();
    if (me == 0) {
      send(way, bytes, peer);
      receive(way, dst, dst_offset, bytes, peer);
    } else {
      receive(way, dst, dst_offset, bytes, peer);
      send(way, bytes, peer);
    }
    double half = (RCCE_wtime() - t0) / 2;
    if (half < best) best = half;
    long bad = app_check((char *)dst, bytes, 1000003u * (unsigned)bytes + (unsigned)peer);
    if (bad >= 0) app_error("%s, %zu bytes: byte %ld from UE %d is wrong", way_names[way], bytes, bad, peer);
  }
  /* Remapped sources are read after their offset's RCCE_send returned: the
   * sender may change its buffer only once the receiver has copied it. */
  RCCE_barrier(&RCCE_COMM_WORLD);
  return best;
}

static int parse_ways(const char *text, int *want) {
  for (int w = 0; w < 3; w++) want[w] = strstr(text, way_names[w]) != NULL;
  return want[DIRECT] || want[REMAP] || want[COPY];
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  app_arg args[] = {{"max_bytes", 16777216, 4, 1L << 30}, {"rounds", 10, 1, 1000000}};
  int rc = app_args(argc > 3 ? 3 : argc, argv, args, 2, NULL);
  if (rc >= 0) return rc;
  size_t max_bytes = (size_t)args[0].value, dst_offset = max_bytes;
  int rounds = (int)args[1].value, want[3];
  if (!parse_ways(argc > 3 ? argv[3] : "direct,remap,copy", want)) app_die("ways: a list of direct, remap, copy");
  if (RCCE_num_ues() != 2) app_die("needs exactly 2 UEs (-nue 2)");
  if (scc_private_size() < 2 * max_bytes) app_die("private memory smaller than 2 x max_bytes (rccerun --private-size)");
  if (want[COPY] && scc_copy_cores() == 0) want[COPY] = 0; /* no copy cores in this job */
  if (RCCE_ue() == 0) printf("%s: copy cores %d, rounds %d\n", APP_NAME, scc_copy_cores(), rounds);
  for (size_t bytes = 4; bytes <= max_bytes; bytes *= 4) {
    app_fill((char *)source_of(), bytes, 1000003u * (unsigned)bytes + (unsigned)RCCE_ue());
    for (int w = 0; w < 3; w++) {
      if (!want[w]) continue;
      double half = bounce((enum way)w, bytes, rounds, dst_offset);
      if (RCCE_ue() == 0)
        printf("%s: %zu %s %.3f %.3f\n", APP_NAME, bytes, way_names[w], half * 1e6, (double)bytes / half / 1e6);
    }
  }
  rc = app_finish();
  RCCE_finalize();
  return rc;
}

/*
 * gather.c - one receiver polling many senders with RCCE_recv_test.
 *
 * usage: gather [messages=20] [max_bytes=20000]
 *
 * Every UE but 0 sends `messages` messages to UE 0 (sizes from a per-sender
 * sequence, 0..max_bytes, some above one chunk).  UE 0 keeps one pending
 * receive per sender and polls them round-robin with RCCE_recv_test, taking
 * whichever is ready, so senders complete in any order.  Every message
 * carries (sender, index) and a pattern; UE 0 checks each one and that each
 * sender's messages arrive in order.  Then the roles turn: UE 0 sends to
 * everyone in turn and the others poll.  UE 0 prints "gather: OK".
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"

static size_t size_of(int sender, int index, size_t max_bytes) {
  uint32_t h = 2166136261u;
  h = (h ^ (uint32_t)sender) * 16777619u;
  h = (h ^ (uint32_t)index) * 16777619u;
  h ^= h >> 13;
  if (index % 5 == 4) return 0;
  return max_bytes ? (h % (max_bytes + 1)) : 0;
}

static unsigned char pattern(int sender, int index, size_t i) {
  return (unsigned char)(i * 7 + (size_t)sender * 31 + (size_t)index * 101 + (i >> 9));
}

static void fill(unsigned char *b, size_t n, int sender, int index) {
  for (size_t i = 0; i < n; i++) b[i] = pattern(sender, index, i);
  if (n >= 2 * sizeof(int)) {
    memcpy(b, &sender, sizeof(int));
    memcpy(b + sizeof(int), &index, sizeof(int));
  }
}

static int check(const unsigned char *b, size_t n, int sender, int index) {
  size_t from = 0;
  if (n >= 2 * sizeof(int)) {
    int s, k;
    memcpy(&s, b, sizeof(int));
    memcpy(&k, b + sizeof(int), sizeof(int));
    if (s != sender || k != index) {
      fprintf(stderr, "gather: UE %d: message %d from UE %d says it is message %d from UE %d\n", RCCE_ue(), index,
              sender, k, s);
      return 1;
    }
    from = 2 * sizeof(int);
  }
  for (size_t i = from; i < n; i++)
    if (b[i] != pattern(sender, index, i)) {
      fprintf(stderr, "gather: UE %d: message %d from UE %d (%zu bytes): byte %zu wrong\n", RCCE_ue(), index, sender, n,
              i);
      return 1;
    }
  return 0;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int messages = argc > 1 ? atoi(argv[1]) : 20;
  size_t max_bytes = argc > 2 ? (size_t)atol(argv[2]) : 20000;
  int me = RCCE_ue(), np = RCCE_num_ues(), bad = 0;
  unsigned char **bufs = calloc((size_t)np, sizeof *bufs);
  int *next = calloc((size_t)np, sizeof *next);
  if (!bufs || !next) return 1;
  for (int u = 0; u < np; u++) {
    bufs[u] = malloc(max_bytes + 1);
    if (!bufs[u]) return 1;
  }

  for (int phase = 0; phase < 2 && np > 1; phase++) {
    int hub = me == 0;
    int polling = phase == 0 ? hub : !hub; /* phase 0: UE 0 gathers; phase 1: the others poll UE 0 */
    if (!polling) {
      /* phase 0: a leaf sends to UE 0; phase 1: UE 0 sends to every leaf, messages interleaved */
      for (int k = 0; k < messages; k++)
        for (int u = phase == 0 ? 0 : 1; u < (phase == 0 ? 1 : np); u++) {
          size_t n = size_of(me, k, max_bytes);
          fill(bufs[u], n, me, k);
          if (RCCE_send((char *)bufs[u], n, u) != RCCE_SUCCESS) bad = 1;
        }
    } else {
      int first = phase == 0 ? 1 : 0, last = phase == 0 ? np - 1 : 0, left = (last - first + 1) * messages;
      for (int u = first; u <= last; u++) next[u] = 0;
      long idle = 0;
      while (left > 0) {
        int progress = 0;
        for (int u = first; u <= last; u++) {
          if (next[u] == messages) continue;
          size_t n = size_of(u, next[u], max_bytes);
          int test = 0;
          if (RCCE_recv_test((char *)bufs[u], n, u, &test) != RCCE_SUCCESS) bad = 1;
          if (test) {
            bad |= check(bufs[u], n, u, next[u]);
            next[u]++;
            left--;
            progress = 1;
          }
        }
        if (!progress && ++idle % 16 == 0) sched_yield();
      }
    }
    RCCE_barrier(&RCCE_COMM_WORLD);
  }
  int total = 0;
  RCCE_allreduce((char *)&bad, (char *)&total, 1, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD);
  if (me == 0 && total == 0) printf("gather: OK (%d UEs, %d messages each way per UE)\n", np, messages);
  fflush(stdout);
  for (int u = 0; u < np; u++) free(bufs[u]);
  free(bufs);
  free(next);
  RCCE_finalize();
  return total != 0;
}

/* The link between host agents (host_link.h): batches of this host's log,
 * broadcast to every other agent over MPI and applied there in causal order;
 * the end of each host's part of the job. */
#define _GNU_SOURCE
#include "host_link.h"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* Records in one batch: 16 KB, below Open MPI's TCP eager limit (64 KB), so a
 * send never waits for the receiver to post its receive; a whole span fits. */
#define BATCH_RECORDS HW_HOSTS_MAX_SPAN
/* For BUSY_NS after anything happened the link polls, yielding the CPU to
 * the host's UEs between polls; then it naps (first NAP_MIN_NS, doubling up to
 * NAP_MAX_NS), woken early when a UE logs a write, not when a batch arrives. */
#define BUSY_NS 2000000L
#define NAP_MIN_NS 10000L
#define NAP_MAX_NS 1000000L
/* After a failure, how long an agent waits for the others' end before it leaves. */
#define FAILED_END_WAIT_NS 3000000000L

/* A batch: causal broadcast (Birman, Schiper, Stephenson, "Lightweight causal
 * and atomic group multicast", ACM TOCS 9(3), 1991): vec[from] numbers the
 * sender's batches, vec[h] counts the batches of host h the sender had applied
 * when it sent this one; a receiver applies it once it has applied all of those. */
struct batch {
  int32_t from, nrec;
  uint64_t vec[HW_MAX_HOSTS];
  struct hw_host_record rec[BATCH_RECORDS];
};

struct pending {
  struct pending *next;
  struct batch b;
};

static struct {
  struct hw_job *job;
  int me, hosts;
  uint64_t applied[HW_MAX_HOSTS]; /* batches applied, per sending host (mine: sent) */
  struct pending *held;           /* received, not yet applicable */
  pthread_t thread;
  int running;
  _Atomic int local_end;   /* this host's part ended: its exit code + 1 */
  _Atomic int remote_end;  /* another host ended with a failure: its code (0 none) */
  int ended[HW_MAX_HOSTS]; /* a host's END was heard (read by the main thread too) */
  int first_failure;
  int stuck[HW_MAX_HOSTS]; /* every UE of host h is stuck, as h last said (read by the main thread) */
  _Atomic int stuck_here;  /* what this host's supervision says */
  int stuck_told;          /* what the link last told the others */
} L;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void send_all(const void *buf, int bytes, int tag) {
  for (int h = 0; h < L.hosts; h++)
    if (h != L.me) MPI_Send(buf, bytes, MPI_BYTE, h, tag, MPI_COMM_WORLD);
}

/* Send what this host logged; 1 if there was anything. */
static int send_log(void) {
  static struct batch b;
  b.nrec = (int32_t)hw_hosts_log_take(L.job, b.rec, BATCH_RECORDS);
  if (!b.nrec) return 0;
  b.from = L.me;
  memcpy(b.vec, L.applied, sizeof b.vec);
  b.vec[L.me] = ++L.applied[L.me];
  send_all(&b, (int)(offsetof(struct batch, rec) + sizeof b.rec[0] * (size_t)b.nrec), HOST_TAG_BATCH);
  return 1;
}

static int applicable(const struct batch *b) {
  if (b->vec[b->from] != L.applied[b->from] + 1) return 0;
  for (int h = 0; h < L.hosts; h++)
    if (h != b->from && b->vec[h] > L.applied[h]) return 0;
  return 1;
}

static void apply(const struct batch *b) {
  for (int i = 0; i < b->nrec;) i += (int)hw_hosts_apply(L.job, &b->rec[i]);
  L.applied[b->from]++;
}

/* Whether the log has room for the answers of one more batch (hw/hosts.h):
 * applying a batch without it could make the agent wait on its own log. */
static int room_for_batch(void) { return hw_hosts_log_room(L.job) >= BATCH_RECORDS; }

/* Apply held batches that have become applicable, until none has or the
 * log has no room for another batch's answers. */
static void apply_held(void) {
  for (int again = 1; again;) {
    again = 0;
    for (struct pending **p = &L.held; *p && room_for_batch();)
      if (applicable(&(*p)->b)) {
        struct pending *done = *p;
        apply(&done->b);
        *p = done->next;
        free(done);
        again = 1;
      } else p = &(*p)->next;
  }
}

static void on_end(int from, int code) {
  __atomic_store_n(&L.ended[from], 1, __ATOMIC_RELEASE);
  if (code && !L.first_failure) {
    L.first_failure = code;
    __atomic_store_n(&L.remote_end, code, __ATOMIC_RELEASE);
  }
}

/* Take one message another agent sent (a batch is held until apply_held
 * applies it); 1 if there was one. */
static int receive(void) {
  int flag;
  MPI_Status st;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag) return 0;
  if (st.MPI_TAG == HOST_TAG_END || st.MPI_TAG == HOST_TAG_STUCK) {
    int value = 0; /* an exit code or a stuck state: one int, sent as its bytes (send_all) */
    MPI_Recv(&value, sizeof value, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == HOST_TAG_END) on_end(st.MPI_SOURCE, value);
    else __atomic_store_n(&L.stuck[st.MPI_SOURCE], value, __ATOMIC_RELEASE);
    return 1;
  }
  struct pending *p = malloc(sizeof *p);
  if (!p) {
    fprintf(stderr, "rccerun: host %d: out of memory for a batch from host %d\n", L.me, st.MPI_SOURCE);
    abort();
  }
  int bytes;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  MPI_Recv(&p->b, bytes, MPI_BYTE, st.MPI_SOURCE, HOST_TAG_BATCH, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  p->next = L.held;
  L.held = p;
  return 1;
}

static int all_ended(void) {
  for (int h = 0; h < L.hosts; h++)
    if (!__atomic_load_n(&L.ended[h], __ATOMIC_ACQUIRE)) return 0;
  return 1;
}

static void *run(void *unused) {
  (void)unused;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* naps of microseconds, not the default 50 us slack */
  uint64_t last = now_ns(), failed_at = 0;
  long nap = NAP_MIN_NS;
  for (;;) {
    int did = 0;
    while (send_log()) did = 1; /* empty the log before taking a batch whose answers go into it */
    did |= receive();
    apply_held();
    int stuck = __atomic_load_n(&L.stuck_here, __ATOMIC_ACQUIRE);
    if (stuck != L.stuck_told) { /* after this host's writes, which may unstick another host */
      send_all(&stuck, sizeof stuck, HOST_TAG_STUCK);
      L.stuck_told = stuck;
    }
    int end = __atomic_load_n(&L.local_end, __ATOMIC_ACQUIRE);
    if (end && !L.ended[L.me]) {
      while (send_log()) continue; /* everything this host wrote goes before its end */
      int code = end - 1;
      send_all(&code, sizeof code, HOST_TAG_END);
      on_end(L.me, code);
    }
    if (L.ended[L.me] && all_ended()) break;
    if (L.ended[L.me] && L.first_failure) { /* a failed job: the others may be gone already */
      if (!failed_at) failed_at = now_ns();
      else if (now_ns() - failed_at > FAILED_END_WAIT_NS) break;
    }
    uint64_t t = now_ns();
    if (did) last = t, nap = NAP_MIN_NS;
    else if (t - last < BUSY_NS) sched_yield();
    else {
      hw_hosts_log_nap(L.job, nap);
      nap = nap * 2 > NAP_MAX_NS ? NAP_MAX_NS : nap * 2;
    }
  }
  return NULL;
}

int host_link_start(struct hw_job *job, int me, int hosts) {
  L.job = job;
  L.me = me;
  L.hosts = hosts;
  if (pthread_create(&L.thread, NULL, run, NULL) != 0) return -1;
  L.running = 1;
  return 0;
}

int host_link_remote_failure(void) { return __atomic_load_n(&L.remote_end, __ATOMIC_ACQUIRE); }

int host_link_finish(int rc) {
  if (!L.running) return rc;
  __atomic_store_n(&L.local_end, rc + 1, __ATOMIC_RELEASE);
  pthread_join(L.thread, NULL);
  L.running = 0;
  return rc ? rc : L.first_failure;
}

int host_link_all_ended(void) { return all_ended(); }

int host_link_stuck(int here) {
  __atomic_store_n(&L.stuck_here, here, __ATOMIC_RELEASE);
  for (int h = 0; h < L.hosts; h++) {
    int stuck = h == L.me ? here : __atomic_load_n(&L.stuck[h], __ATOMIC_ACQUIRE);
    if (!stuck && !__atomic_load_n(&L.ended[h], __ATOMIC_ACQUIRE)) return 0;
  }
  return 1;
}

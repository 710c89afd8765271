/* Communicators and the barrier.
 *
 * RCCE_comm_split needs no messages: every UE evaluates the colour function
 * for every UE (as RCCE does), so all members compute the same member list.
 * The barrier is a sense-reversing counter in one MPB line of the
 * communicator's first member: arrivals count up, the last one resets the
 * count and bumps the generation, and sleepers wait on the generation word
 * (one futex wake releases everybody).  The third word counts the waiters
 * that may sleep (hw_wake_word_asleep): when every waiter is still spinning,
 * the last arrival makes no system call.  The fourth counts the members
 * polling in RCCE_nb_barrier, which the last arrival rings. */
#include <string.h>

#include "rcce_internal.h"

int rcce_comm_build(const int *members, int n, RCCE_COMM *comm) {
  int64_t line = rcce_flag_line_alloc();
  if (line < 0) return RCCE_ERROR_COMM_INITIALIZED;
  memset(comm, 0, sizeof *comm);
  comm->size = n;
  comm->my_rank = -1;
  for (int i = 0; i < n; i++) {
    comm->member[i] = members[i];
    if (members[i] == rcce_g.ue) comm->my_rank = i;
  }
  comm->barrier_line = (int)line;
  comm->label = rcce_g.comm_count++;
  comm->initialized = 1;
  return RCCE_SUCCESS;
}

static volatile uint32_t *barrier_words(const RCCE_COMM *comm) {
  return (volatile uint32_t *)(rcce_mpb_of(comm->member[0]) + (size_t)comm->barrier_line * rcce_g.line);
}

int rcce_comm_setup_world(void) {
  static int members[RCCE_MAXNP];
  const struct chip_desc *chip = &rcce_g.job.hdr->chip;
  for (int u = 0; u < rcce_g.nue; u++) members[u] = u;
  int rc = rcce_comm_build(members, rcce_g.nue, &RCCE_COMM_WORLD);
  if (rc != RCCE_SUCCESS) return rc;
  /* RCCE_P_COMM: the UEs of my voltage (power) domain. */
  int mine = chip_voltage_domain(chip, rcce_g.core), n = 0;
  for (int u = 0; u < rcce_g.nue; u++)
    if (chip_voltage_domain(chip, hw_ue(&rcce_g.job, u)->core) == mine) members[n++] = u;
  return rcce_comm_build(members, n, &RCCE_P_COMM);
}

static int check_comm(const RCCE_COMM *comm, const char *where) {
  if (!comm || !comm->initialized)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, where, "communicator not initialised");
  if (comm->my_rank < 0)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, where, "UE %d is not a member", rcce_g.ue);
  return RCCE_SUCCESS;
}

/* Count me in at generation g; the last one in resets the count, bumps the
 * generation and wakes the sleepers (and rings the members when some poll
 * in RCCE_nb_barrier: they nap on their doorbells).  1 when I was last. */
static int arrive(const RCCE_COMM *comm, volatile uint32_t *count, uint32_t g) {
  volatile uint32_t *gen = count + 1, *asleep = count + 2, *polling = count + 3;
  timing_barrier_arrive(count, g); /* before counting in: the last one sees every arrival */
  if (hw_mpb_rmw32(&rcce_g.job, count, HW_RMW_ADD, 1) != (uint32_t)comm->size - 1) return 0;
  hw_mpb_store32(&rcce_g.job, count, 0);
  hw_mpb_store32(&rcce_g.job, gen, g + 1);
  timing_barrier_release(count, g, comm->member, comm->size);
  hw_wake_word_asleep(gen, asleep);
  if (__atomic_load_n(polling, __ATOMIC_ACQUIRE))
    for (int i = 0; i < comm->size; i++)
      if (comm->member[i] != rcce_g.ue) hw_ring(&rcce_g.job, comm->member[i]);
  timing_barrier_leave(count, g);
  return 1;
}

int RCCE_barrier(RCCE_COMM *comm) {
  TIMING_SCOPE();
  int rc = check_comm(comm, "RCCE_barrier");
  if (rc != RCCE_SUCCESS) return rc;
  rcce_counters()->barriers++;
  if (comm->size == 1) return RCCE_SUCCESS;
  volatile uint32_t *count = barrier_words(comm), *gen = count + 1, *asleep = count + 2;
  uint32_t g = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
  if (arrive(comm, count, g)) return RCCE_SUCCESS;
  struct hw_wait_desc why = {.kind = HW_WAIT_BARRIER, .peer = -1, .comm_size = comm->size, .comm_label = comm->label};
  for (int i = 0; i < 4; i++) why.comm_members[i] = i < comm->size ? comm->member[i] : -1;
  hw_wait_change_asleep(&rcce_g.job, rcce_g.ue, gen, g, asleep, &why);
  timing_barrier_leave(count, g);
  return RCCE_SUCCESS;
}

/* RCCE 2.0's non-blocking barrier: the first call counts me in (as a
 * poller, so that the release rings me), each call after that looks whether
 * the generation moved on.  A polling call: a loop of them yields and naps. */
int rcce_nb_barrier(RCCE_COMM *comm, const char *where) {
  TIMING_SCOPE();
  int rc = check_comm(comm, where);
  if (rc != RCCE_SUCCESS) return rc;
  if (!comm->nb_arrived) rcce_counters()->barriers++;
  if (comm->size == 1) return RCCE_SUCCESS;
  volatile uint32_t *count = barrier_words(comm), *gen = count + 1, *polling = count + 3;
  if (!comm->nb_arrived) {
    uint32_t g = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
    __atomic_fetch_add(polling, 1, __ATOMIC_ACQ_REL);
    if (arrive(comm, count, g)) {
      __atomic_fetch_sub(polling, 1, __ATOMIC_ACQ_REL);
      return RCCE_SUCCESS;
    }
    comm->nb_arrived = 1;
    comm->nb_generation = g;
  }
  unsigned long p = rcce_xfer_poll_start();
  int released = __atomic_load_n(gen, __ATOMIC_ACQUIRE) != comm->nb_generation;
  rcce_xfer_poll_end(p, released, NULL);
  if (!released) return RCCE_PENDING;
  comm->nb_arrived = 0;
  __atomic_fetch_sub(polling, 1, __ATOMIC_ACQ_REL);
  timing_barrier_leave(count, comm->nb_generation);
  return RCCE_SUCCESS;
}

int RCCE_global_color(int rank, void *nothing) {
  (void)rank;
  (void)nothing;
  return 0;
}

int RCCE_comm_split(int (*color)(int, void *), void *aux, RCCE_COMM *comm) {
  TIMING_SCOPE();
  static int members[RCCE_MAXNP];
  if (!color || !comm)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_split", "NULL argument");
  int mine = color(rcce_g.ue, aux), n = 0;
  for (int u = 0; u < rcce_g.nue; u++)
    if (color(u, aux) == mine) members[n++] = u;
  int rc = rcce_comm_build(members, n, comm);
  if (rc != RCCE_SUCCESS) return rcce_error(RCCE_DEBUG_COMM, rc, "RCCE_comm_split", "no MPB line left");
  /* The first member clears the arrival count (the line may hold old data);
   * the world barrier orders that before any use of the new communicator.
   * The generation word is left alone: it only ever increases, because a UE
   * released from the last barrier of a freed communicator that reused this
   * line may not have re-read it yet, and must see it differ. */
  if (comm->my_rank == 0) {
    hw_mpb_store32(&rcce_g.job, barrier_words(comm), 0);
    hw_mpb_store32(&rcce_g.job, barrier_words(comm) + 3, 0); /* no RCCE_nb_barrier pollers */
  }
  return RCCE_barrier(&RCCE_COMM_WORLD);
}

int RCCE_comm_free(RCCE_COMM *comm) {
  if (!comm || !comm->initialized)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_free", "communicator not initialised");
  rcce_g.flag_line[comm->barrier_line] = 0;
  rcce_range_free(&rcce_g.mpb_alloc, (uint64_t)comm->barrier_line);
  comm->initialized = 0;
  return RCCE_SUCCESS;
}

int RCCE_comm_size(RCCE_COMM comm, int *size) {
  if (!comm.initialized || !size)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_size", "communicator not initialised");
  *size = comm.size;
  return RCCE_SUCCESS;
}

int RCCE_comm_rank(RCCE_COMM comm, int *rank) {
  if (!comm.initialized || !rank)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_rank", "communicator not initialised");
  *rank = comm.my_rank;
  return RCCE_SUCCESS;
}

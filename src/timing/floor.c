/* Virtual-time order for the shared resources (docs/model.md "Contention").
 *
 * An access's queueing depends on the other UEs' busy time in an earlier
 * window (contention.c), which must be final when it is read, however the
 * host interleaves the UEs.  So every UE publishes its floor: the first
 * window it may still add busy time to.  A running UE's floor is its
 * clock's window (raised as the clock crosses windows); a UE blocked in a
 * wait has none (its clock stands still, and it will go on from the stamp
 * of the write that wakes it); a UE that has not started or has finished
 * never adds any.  A UE that wants window k's data waits until every other
 * floor is past k (timing_floor_wait): conservative synchronisation of a
 * parallel discrete-event simulation, the lag as lookahead
 * ([CHANDY-MISRA-1979], docs/references.md).
 *
 * The in-flight wake.  A writer may wake a blocked UE with a stamp s from
 * before its own floor's later rises; the woken UE goes on from s.  So the
 * writer gives the blocked UE a floor, s's window (woken), before its
 * doorbell rings (hw_ring -> woken), and counts it: a reader takes its
 * snapshot of the floors between two equal counts.  A UE announces itself
 * blocked with a compare-and-swap from the word it read before its last
 * check of the condition; every write that may wake it changes the word's
 * count of changes, so a write in between fails the swap and the condition
 * is checked again.  A floor given for a write the UE did not wait for is
 * taken back when it sleeps again (it is rung, or woken by a UE waiting
 * for it: timing_floor_wait).  A running UE's floor is its clock's window
 * whatever it is sent.
 *
 * A floor word (timing_shared.h): state, window, count of changes. */
#include "../hw/wait.h"
#include "timing_internal.h"

#define KICK_AGAIN_NS 1000000L /* a waiter for a floor wakes its asleep holder again after this */

int timing_floor_blocked;
static uint64_t pending_wake_ps = UINT64_MAX; /* the earliest stamp written since the last ring */

static struct timing_floor *floor_of(int ue) { return &timing_g.floors[ue]; }
static _Atomic uint64_t *lowerings(void) { return &timing_g.floors[timing_g.job->hdr->nue].word; }

static uint64_t window_of(uint64_t ps) { return ps / timing_g.window_ps; }

/* Whether a floor word is past `window` for the others (floor_wait). */
static int word_past(uint64_t v, uint64_t window) {
  enum timing_floor_state state = timing_floor_state_of(v);
  return (state != FLOOR_AT && state != FLOOR_WOKEN) || timing_floor_window_of(v) >= window;
}

/* My floor rose to v: wake the UEs asleep until it got where they wanted
 * (only then: a floor rises every window, and 47 UEs woken each time cost
 * more than the model).  Those that want more want it again. */
static void risen(struct timing_floor *f, uint64_t v) {
  if (!word_past(v, __atomic_load_n(&f->wanted, __ATOMIC_SEQ_CST))) return;
  /* Every wish made before the exchange is woken below (a smaller one made
   * since the load included: v is past it too). */
  __atomic_exchange_n(&f->wanted, UINT64_MAX, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&f->seq, 1, __ATOMIC_SEQ_CST);
  hw_wake_word_asleep((volatile uint32_t *)&f->seq, (volatile uint32_t *)&f->waiters);
}

/* My floor becomes `state` at `window` (a count of changes kept across). */
static void set_mine(enum timing_floor_state state, uint64_t window) {
  struct timing_floor *f = floor_of(timing_g.ue);
  uint64_t v = __atomic_load_n(&f->word, __ATOMIC_RELAXED), n;
  do n = timing_floor_word(state, window, timing_floor_changes_of(v) + 1);
  while (!__atomic_compare_exchange_n(&f->word, &v, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  risen(f, n);
}

void timing_floor_at(uint64_t window) {
  timing_floor_blocked = 0;
  set_mine(FLOOR_AT, window);
}

/* A write that may wake ue came from `window` on: a blocked ue gets that
 * floor (woken); counted when a floor fell. */
static void lower(int ue, uint64_t window) {
  struct timing_floor *f = floor_of(ue);
  uint64_t v = __atomic_load_n(&f->word, __ATOMIC_SEQ_CST), n;
  int fell;
  do {
    enum timing_floor_state state = timing_floor_state_of(v);
    if (state == FLOOR_ABSENT || state == FLOOR_DONE) return;
    fell = state == FLOOR_BLOCKED || (state == FLOOR_WOKEN && timing_floor_window_of(v) > window);
    /* Always a new word, even when the floor stays: a UE announcing itself
     * blocked must see that a write came after its check. */
    n = timing_floor_word(state == FLOOR_AT ? FLOOR_AT : FLOOR_WOKEN, fell ? window : timing_floor_window_of(v),
                          timing_floor_changes_of(v) + 1);
  } while (!__atomic_compare_exchange_n(&f->word, &v, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  if (fell) __atomic_fetch_add(lowerings(), 1, __ATOMIC_SEQ_CST);
}

void timing_floor_stamped(uint64_t ps) {
  if (ps < pending_wake_ps) pending_wake_ps = ps;
}

/* hw_ring's hook: the write just stored may wake ue, from its stamp on. */
static void woken(int ue) {
  if (!timing_enabled || ue == timing_g.ue) return;
  uint64_t t = pending_wake_ps < timing_g.clock->now_ps ? pending_wake_ps : timing_g.clock->now_ps;
  pending_wake_ps = UINT64_MAX;
  lower(ue, window_of(t));
}

void timing_floor_release(const int *ues, int n, uint64_t t_ps) {
  for (int i = 0; i < n; i++)
    if (ues[i] != timing_g.ue) lower(ues[i], window_of(t_ps));
}

/* hw's hook: announce me blocked unless cond holds (the protocol above). */
static int block_unless(hw_cond_fn cond, void *arg) {
  if (!timing_enabled) return cond ? cond(arg) : 0;
  struct timing_floor *f = floor_of(timing_g.ue);
  for (;;) {
    uint64_t v = __atomic_load_n(&f->word, __ATOMIC_SEQ_CST);
    if (cond && cond(arg)) return 1;
    if (timing_floor_state_of(v) == FLOOR_BLOCKED) {
      timing_floor_blocked = 1;
      return 0;
    }
    /* Blocked, I am past my window for the others: they may read it. */
    timing_contention_publish();
    uint64_t n = timing_floor_word(FLOOR_BLOCKED, 0, timing_floor_changes_of(v) + 1);
    if (__atomic_compare_exchange_n(&f->word, &v, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
      timing_floor_blocked = 1;
      risen(f, n);
      return 0;
    }
    if (!cond) return 0; /* a wake came: not blocked after all */
  }
}

static const struct hw_vt_hooks hooks = {block_unless, woken};

void timing_floor_init(uint64_t window) {
  pending_wake_ps = UINT64_MAX;
  timing_floor_at(window);
  hw_vt_hooks = &hooks;
}

void timing_floor_finalize(void) {
  hw_vt_hooks = NULL;
  timing_floor_blocked = 0;
  set_mine(FLOOR_DONE, 0);
}

/* Whether ue adds no more busy time to windows before `window`. */
static int past(int ue, uint64_t window) {
  return word_past(__atomic_load_n(&floor_of(ue)->word, __ATOMIC_SEQ_CST), window);
}

/* Ask u to wake me when its floor is past `window` (risen). */
static void want(struct timing_floor *f, uint64_t window) {
  uint64_t w = __atomic_load_n(&f->wanted, __ATOMIC_SEQ_CST);
  while (window < w && !__atomic_compare_exchange_n(&f->wanted, &w, window, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
}

/* The first of UEs 0..n-1 (not me) whose floor is before `window`, or -1. */
static int holder(uint64_t window, int n) {
  for (int u = 0; u < n; u++)
    if (u != timing_g.ue && !past(u, window)) return u;
  return -1;
}

/* Sleep until u's floor may have passed `window` (bounded). */
static void sleep_on(int u, uint64_t window) {
  struct timing_floor *f = floor_of(u);
  want(f, window);
  uint32_t seq = __atomic_load_n(&f->seq, __ATOMIC_SEQ_CST);
  if (past(u, window)) return;
  /* Asleep with a floor: given one by a write it does not wait for that
   * did not ring it (it sleeps on another word, e.g. a barrier's).  Woken,
   * it announces itself blocked again; the kick may come just before it
   * sleeps, so this wait is bounded and kicks again. */
  hw_wake_sleeper(timing_g.job, u);
  struct hw_wait_desc why = {.kind = HW_WAIT_VTIME, .peer = u};
  hw_wait_change_for(timing_g.job, timing_g.ue, (volatile uint32_t *)&f->seq, seq, (volatile uint32_t *)&f->waiters,
                     KICK_AGAIN_NS, &why);
}

/* Until UEs 0..n-1 but me are past `window`; before each look, `before`
 * (may be NULL) runs. */
static void wait_past(uint64_t window, int n, void (*before)(uint64_t window, int n)) {
  for (;;) {
    uint64_t count = __atomic_load_n(lowerings(), __ATOMIC_SEQ_CST);
    if (before) before(window, n);
    int u = holder(window, n);
    if (u < 0) {
      /* No floor was lowered while they were read: the snapshot holds. */
      if (__atomic_load_n(lowerings(), __ATOMIC_SEQ_CST) == count) return;
      continue;
    }
    sleep_on(u, window);
  }
}

void timing_floor_wait(uint64_t window) { wait_past(window, (int)timing_g.job->hdr->nue, NULL); }

/* A server's floor while it waits for the order of its requests: it will
 * act no earlier than the window before `window` nor than the lowest floor
 * of the UEs that send it work (what they send comes from their floors on),
 * so its floor rises to that -- without its clock -- and the UEs that wait
 * for its floor go on (timing_order_wait). */
static void raise_to_lower_bound(uint64_t window, int n) {
  uint64_t bound = window - 1;
  for (int u = 0; u < n; u++) {
    uint64_t v = __atomic_load_n(&floor_of(u)->word, __ATOMIC_SEQ_CST);
    enum timing_floor_state state = timing_floor_state_of(v);
    if (u != timing_g.ue && (state == FLOOR_AT || state == FLOOR_WOKEN) && timing_floor_window_of(v) < bound)
      bound = timing_floor_window_of(v);
  }
  uint64_t mine = __atomic_load_n(&floor_of(timing_g.ue)->word, __ATOMIC_SEQ_CST);
  enum timing_floor_state state = timing_floor_state_of(mine);
  if ((state == FLOOR_AT || state == FLOOR_WOKEN) && timing_floor_window_of(mine) < bound) set_mine(FLOOR_AT, bound);
}

void timing_order_wait(uint64_t t_ps, int n) {
  if (timing_enabled) wait_past(t_ps / timing_g.window_ps + 1, n, raise_to_lower_bound);
}

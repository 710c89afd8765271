/* Runtime work of the layers above rcce, and asynchronous handlers, on the
 * virtual clock (timing.h). */
#include "timing_internal.h"

void timing_cycles(double cycles) {
  if (timing_enabled) timing_charge(cycles);
}

uint64_t timing_now(void) { return timing_enabled ? timing_g.clock->now_ps : 0; }

void timing_wait_for(uint64_t t_ps) {
  if (timing_enabled) timing_wait_until(t_ps);
}

static struct timing_interrupt *current; /* innermost handler */

void timing_interrupt_enter(struct timing_interrupt *s) {
  s->on = timing_enabled;
  if (!s->on) return;
  timing_enter();
  struct timing_vclock *c = timing_g.clock;
  s->started = 0;
  s->now_ps = c->now_ps;
  s->comm_ps = c->comm_ps;
  s->compute_ps = c->compute_ps;
  s->wait_ps = c->wait_ps;
  s->outer = current;
  current = s;
}

void timing_interrupt_at(uint64_t t_ps) {
  if (!timing_enabled || !current) return;
  struct timing_vclock *c = timing_g.clock;
  if (!current->started || t_ps > c->now_ps) c->now_ps = t_ps;
  current->started = 1;
}

void timing_interrupt_leave(struct timing_interrupt *s) {
  if (!s->on) return;
  struct timing_vclock *c = timing_g.clock;
  uint64_t work = (c->comm_ps - s->comm_ps) + (c->compute_ps - s->compute_ps);
  c->now_ps = s->now_ps + work;
  c->wait_ps = s->wait_ps;
  current = s->outer;
  timing_leave();
}

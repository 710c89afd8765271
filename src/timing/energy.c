/* Chip power and energy of a model-mode job (docs/model.md "Power model"):
 * the cores' dynamic energy kept by each UE's clock, idle cores, each voltage
 * domain's static power over its voltage history, and the uncore. */
#include "energy.h"
#include "timing_shared.h"

#include <sched.h>
#include <string.h>

static double level_volts(const struct chip_desc *c, int vl) { return c->vlevel[vl].volts; }

/* Core's voltage and tile clock at virtual time t: its domain's log (in
 * time order: only the domain's master changes it), or the configuration
 * registers once the log is full. */
static void core_state_at(const struct hw_job *j, int core, uint64_t t, double *volts, int *mhz) {
  const struct chip_desc *c = &j->hdr->chip;
  int d = chip_voltage_domain(c, core), vl, div;
  if (!timing_domain_state(j, d, t, &vl, &div)) {
    vl = __atomic_load_n(&hw_config(j)->domain_vlevel[d], __ATOMIC_RELAXED);
    div = __atomic_load_n(&hw_config(j)->tile_divider[chip_tile_of_core(c, core)], __ATOMIC_RELAXED);
  }
  *volts = level_volts(c, vl);
  *mhz = chip_tile_mhz(c, div);
}

/* Domain d's static power at t. */
static double domain_static_w(const struct hw_job *j, int d, uint64_t t) {
  int vl, div;
  if (!timing_domain_state(j, d, t, &vl, &div)) vl = __atomic_load_n(&hw_config(j)->domain_vlevel[d], __ATOMIC_RELAXED);
  return chip_domain_static_power(&j->hdr->chip, level_volts(&j->hdr->chip, vl));
}

/* Static energy of domain d over [0, t). */
static double domain_static_j(const struct hw_job *j, int d, uint64_t t) {
  const struct chip_desc *c = &j->hdr->chip;
  const struct timing_vlog *log = timing_vlog_of(j, d);
  int n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE), vl = j->hdr->initial_vlevel;
  uint64_t from = 0;
  double e = 0;
  for (int i = 0; i < n && i < TIMING_VLOG_ENTRIES && log->e[i].t_ps < t; i++) {
    e += chip_domain_static_power(c, level_volts(c, vl)) * (double)(log->e[i].t_ps - from) * 1e-12;
    from = log->e[i].t_ps;
    vl = log->e[i].vlevel;
  }
  return e + chip_domain_static_power(c, level_volts(c, vl)) * (double)(t - from) * 1e-12;
}

/* Power of core `core` at t at the given activity. */
static double core_w(const struct hw_job *j, int core, uint64_t t, double activity) {
  double volts;
  int mhz;
  core_state_at(j, core, t, &volts, &mhz);
  return chip_core_power(&j->hdr->chip, volts, mhz, activity);
}

double timing_core_joules(const struct hw_job *j, int core, uint64_t t0, uint64_t t1, double activity) {
  const struct timing_vlog *log = timing_vlog_of(j, chip_voltage_domain(&j->hdr->chip, core));
  int n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);
  double joules = 0;
  for (uint64_t t = t0; t < t1;) {
    uint64_t next = t1; /* the domain's next change (the log is in time order), or the end */
    for (int i = 0; i < n && i < TIMING_VLOG_ENTRIES; i++)
      if (log->e[i].t_ps > t) {
        if (log->e[i].t_ps < next) next = log->e[i].t_ps;
        break;
      }
    joules += core_w(j, core, t, activity) * (double)(next - t) * 1e-12;
    t = next;
  }
  return joules;
}

/* Power of core `core` while idle, at its state at t. */
static double idle_core_w(const struct hw_job *j, int core, uint64_t t) {
  return core_w(j, core, t, j->hdr->chip.power.idle_activity);
}

/* Dynamic energy UE clock k spent in [t0, t1), from its power trace: a
 * bucket partly inside counts in proportion to the part of its span (up to
 * the UE's clock) inside, so the edges are as fine as the trace's buckets. */
static double traced_dynamic_j(const struct timing_vclock *k, uint64_t t0, uint64_t t1) {
  uint64_t width = TIMING_POWER_BUCKET_PS << k->bucket_shift;
  double e = 0;
  for (uint64_t b = t0 / width; b < TIMING_POWER_BUCKETS && b * width < t1 && b * width < k->now_ps; b++) {
    uint64_t lo = b * width, hi = (b + 1) * width < k->now_ps ? (b + 1) * width : k->now_ps;
    uint64_t in_lo = lo > t0 ? lo : t0, in_hi = hi < t1 ? hi : t1;
    if (in_hi > in_lo) e += k->bucket_j[b] * (double)(in_hi - in_lo) / (double)(hi - lo);
  }
  return e;
}

/* Chip energy over [t0, t1) of virtual time: a UE's core is idle once its
 * clock has stopped, a core without a UE all along. */
static void interval_energy(const struct hw_job *j, uint64_t t0, uint64_t t1, struct timing_energy *out) {
  const struct chip_desc *c = &j->hdr->chip;
  memset(out, 0, sizeof *out);
  out->start_s = (double)t0 * 1e-12;
  out->seconds = (double)(t1 - t0) * 1e-12;
  int ncores = chip_num_cores(c), nd = chip_num_voltage_domains(c);
  unsigned char used[CHIP_MAX_CORES] = {0};
  for (uint32_t u = 0; u < j->hdr->nue; u++) {
    const struct timing_vclock *k = timing_clock_of(j, (int)u);
    int core = hw_ue(j, u)->core;
    used[core] = 1;
    out->dynamic_j += t0 == 0 && t1 >= k->now_ps ? k->dynamic_j : traced_dynamic_j(k, t0, t1);
    uint64_t idle_from = k->now_ps > t0 ? k->now_ps : t0;
    if (t1 > idle_from) out->dynamic_j += idle_core_w(j, core, t1) * (double)(t1 - idle_from) * 1e-12;
  }
  for (int core = 0; core < ncores; core++)
    if (!used[core]) out->dynamic_j += idle_core_w(j, core, t1) * out->seconds;
  for (int d = 0; d < nd; d++) out->static_j += domain_static_j(j, d, t1) - domain_static_j(j, d, t0);
  out->uncore_j = chip_uncore_power(c) * out->seconds;
  out->energy_j = out->dynamic_j + out->static_j + out->uncore_j;
  out->average_w = out->seconds > 0 ? out->energy_j / out->seconds : 0;
  out->edp_js = out->energy_j * out->seconds;
}

void timing_job_energy(const struct hw_job *j, struct timing_energy *out) {
  uint64_t t = 0;
  for (uint32_t u = 0; u < j->hdr->nue; u++)
    if (timing_clock_of(j, (int)u)->now_ps > t) t = timing_clock_of(j, (int)u)->now_ps;
  interval_energy(j, 0, t, out);
}

int timing_region_energy(const struct hw_job *j, struct timing_energy *out) {
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (uint32_t u = 0; u < j->hdr->nue; u++) {
    const struct timing_vclock *k = timing_clock_of(j, (int)u);
    if (k->clock_reads == 0) continue;
    if (k->first_read_ps < t0) t0 = k->first_read_ps;
    if (k->last_read_ps > t1) t1 = k->last_read_ps;
  }
  if (t0 >= t1) return 0;
  interval_energy(j, t0, t1, out);
  return 1;
}

int timing_power_trace(const struct hw_job *j, double *watts, int max, double *bucket_s) {
  const struct chip_desc *c = &j->hdr->chip;
  int shift = 0;
  uint64_t t = 0;
  for (uint32_t u = 0; u < j->hdr->nue; u++) {
    const struct timing_vclock *k = timing_clock_of(j, (int)u);
    if (k->bucket_shift > shift) shift = k->bucket_shift;
    if (k->now_ps > t) t = k->now_ps;
  }
  uint64_t width = TIMING_POWER_BUCKET_PS << shift;
  int n = (int)((t + width - 1) / width);
  if (n > max) n = max;
  *bucket_s = (double)width * 1e-12;
  for (int b = 0; b < n; b++) {
    uint64_t mid = (uint64_t)b * width + width / 2;
    double w = chip_uncore_power(c);
    for (int d = 0; d < chip_num_voltage_domains(c); d++) w += domain_static_w(j, d, mid);
    unsigned char busy[CHIP_MAX_CORES] = {0};
    for (uint32_t u = 0; u < j->hdr->nue; u++) {
      const struct timing_vclock *k = timing_clock_of(j, (int)u);
      /* This UE's buckets are narrower by 2^(shift - its shift). */
      int per = 1 << (shift - k->bucket_shift);
      for (int i = 0; i < per && b * per + i < TIMING_POWER_BUCKETS; i++) w += k->bucket_j[b * per + i] / *bucket_s;
      if (k->now_ps > mid) busy[hw_ue(j, u)->core] = 1;
    }
    for (int core = 0; core < chip_num_cores(c); core++)
      if (!busy[core]) w += idle_core_w(j, core, mid);
    watts[b] = w;
  }
  return n;
}

/* UE u's dynamic energy in [a, b), window k of its energy ring: what its
 * clock recorded there, and, from where its clock stands (a UE blocked
 * since, or finished) to b, what it will record: a blocked UE waits
 * (polling, as its clock charges a wait: timing_core_joules), a finished
 * one's core is idle.  The clock and its record are read together (the
 * UE's step counter: a seqlock). */
static double ue_window_j(const struct hw_job *j, int u, uint64_t k, uint64_t a, uint64_t b) {
  const struct timing_vclock *clock = timing_clock_of(j, u);
  const struct timing_window_energy *e = &timing_energy_of(j, u)[k % TIMING_ENERGY_WINDOWS];
  uint64_t now, end;
  double joules;
  for (;;) {
    uint32_t s = __atomic_load_n(&clock->steps, __ATOMIC_ACQUIRE);
    now = __atomic_load_n(&clock->now_ps, __ATOMIC_RELAXED);
    end = __atomic_load_n(&clock->end_ps, __ATOMIC_RELAXED);
    joules = __atomic_load_n(&e->tag, __ATOMIC_RELAXED) == k + 1 ? e->joules : 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(s & 1) && __atomic_load_n(&clock->steps, __ATOMIC_RELAXED) == s) break;
    sched_yield(); /* the UE is in a step (maybe preempted on the host) */
  }
  if (now >= b) return joules;
  const struct chip_desc *c = &j->hdr->chip;
  double activity = end ? c->power.idle_activity : c->power.poll_activity;
  return joules + timing_core_joules(j, hw_ue(j, u)->core, now > a ? now : a, b, activity);
}

double timing_window_power(const struct hw_job *j, uint64_t k, uint64_t window_ps) {
  const struct chip_desc *c = &j->hdr->chip;
  uint64_t a = k * window_ps, b = a + window_ps, mid = a + window_ps / 2;
  double joules = chip_uncore_power(c) * (double)window_ps * 1e-12;
  for (int d = 0; d < chip_num_voltage_domains(c); d++) joules += domain_static_j(j, d, b) - domain_static_j(j, d, a);
  unsigned char used[CHIP_MAX_CORES] = {0};
  for (uint32_t u = 0; u < j->hdr->nue; u++) {
    used[hw_ue(j, u)->core] = 1;
    joules += ue_window_j(j, (int)u, k, a, b);
  }
  for (int core = 0; core < chip_num_cores(c); core++)
    if (!used[core]) joules += idle_core_w(j, core, mid) * (double)window_ps * 1e-12;
  return joules / ((double)window_ps * 1e-12);
}

double timing_rest_power(const struct hw_job *j) {
  const struct chip_desc *c = &j->hdr->chip;
  double w = chip_uncore_power(c);
  for (int d = 0; d < chip_num_voltage_domains(c); d++) w += domain_static_w(j, d, 0);
  for (int core = 0; core < chip_num_cores(c); core++) w += idle_core_w(j, core, 0);
  return w;
}

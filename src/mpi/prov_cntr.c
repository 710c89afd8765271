/* Counters: completions (and errors) of the operations of the endpoints
 * they are bound to (FI_SEND, FI_RECV).  MPICH opens one even without RMA.
 * Reads and waits drive the manual progress, as CQ reads do. */
#include <stdlib.h>
#include <time.h>

#include "prov_stubs.h"
#include "provider.h"

static uint64_t cntr_read(struct fid_cntr *f) {
  PROV_TIMING_SCOPE();
  struct prov_cntr *c = (struct prov_cntr *)f;
  uint64_t before = c->value + c->errors;
  if (prov_progress() == 0 && c->value + c->errors == before) prov_idle();
  return c->value;
}

static uint64_t cntr_readerr(struct fid_cntr *f) {
  PROV_LOCK_SCOPE();
  return ((struct prov_cntr *)f)->errors;
}

static int cntr_add(struct fid_cntr *f, uint64_t v) {
  PROV_LOCK_SCOPE();
  ((struct prov_cntr *)f)->value += v;
  return 0;
}
static int cntr_set(struct fid_cntr *f, uint64_t v) {
  PROV_LOCK_SCOPE();
  ((struct prov_cntr *)f)->value = v;
  return 0;
}
static int cntr_adderr(struct fid_cntr *f, uint64_t v) {
  PROV_LOCK_SCOPE();
  ((struct prov_cntr *)f)->errors += v;
  return 0;
}
static int cntr_seterr(struct fid_cntr *f, uint64_t v) {
  PROV_LOCK_SCOPE();
  ((struct prov_cntr *)f)->errors = v;
  return 0;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Progress until the count reaches threshold, an error is counted, or
 * timeout milliseconds pass (negative: no limit) (fi_cntr(3)). */
static int cntr_wait(struct fid_cntr *f, uint64_t threshold, int timeout) {
  /* Locked call by call (cntr_read, cntr_readerr): other threads' calls run between. */
  uint64_t errors = cntr_readerr(f);
  int64_t end = now_ms() + timeout;
  while (cntr_read(f) < threshold) {
    if (cntr_readerr(f) != errors) return -FI_EAVAIL;
    if (timeout >= 0 && now_ms() >= end) return -FI_ETIMEDOUT;
  }
  return 0;
}

static int cntr_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  free(f);
  return 0;
}

static struct fi_ops cntr_fid_ops = PROV_FID_OPS(cntr_close);
static struct fi_ops_cntr cntr_ops = {.size = sizeof(struct fi_ops_cntr),
                                      .read = cntr_read,
                                      .readerr = cntr_readerr,
                                      .add = cntr_add,
                                      .set = cntr_set,
                                      .wait = cntr_wait,
                                      .adderr = cntr_adderr,
                                      .seterr = cntr_seterr};

int prov_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr, struct fid_cntr **out, void *ctx) {
  PROV_LOCK_SCOPE();
  if (attr && attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC) return -FI_ENOSYS;
  struct prov_cntr *c = calloc(1, sizeof *c);
  if (!c) return -FI_ENOMEM;
  c->cntr.fid.fclass = FI_CLASS_CNTR;
  c->cntr.fid.context = ctx;
  c->cntr.fid.ops = &cntr_fid_ops;
  c->cntr.ops = &cntr_ops;
  *out = &c->cntr;
  return 0;
}

/* Completion queues: one FIFO of successes and errors in completion order.
 * fi_cq_read returns entries up to the first error, then -FI_EAVAIL until
 * fi_cq_readerr takes it (fi_cq(3)).  Reads drive the manual progress
 * (FI_PROGRESS_MANUAL) and idle when nothing happened. */
#include <stdlib.h>
#include <string.h>

#include "prov_stubs.h"
#include "../hw/wait.h"
#include "provider.h"

#define CQ_INITIAL 256

static size_t format_bytes(enum fi_cq_format f) {
  switch (f) {
    case FI_CQ_FORMAT_MSG: return sizeof(struct fi_cq_msg_entry);
    case FI_CQ_FORMAT_DATA: return sizeof(struct fi_cq_data_entry);
    case FI_CQ_FORMAT_TAGGED: return sizeof(struct fi_cq_tagged_entry);
    default: return sizeof(struct fi_cq_entry);
  }
}

int prov_cq_push(struct prov_cq *cq, const struct fi_cq_err_entry *e, fi_addr_t src) {
  if (cq->tail - cq->head == cq->cap) {
    size_t ncap = cq->cap * 2;
    struct prov_cq_slot *n = malloc(ncap * sizeof *n);
    if (!n) return -FI_ENOMEM;
    for (size_t i = 0; i < cq->cap; i++) n[i] = cq->q[(cq->head + i) % cq->cap];
    free(cq->q);
    cq->q = n;
    cq->head = 0;
    cq->tail = cq->cap;
    cq->cap = ncap;
  }
  struct prov_cq_slot *s = &cq->q[cq->tail++ % cq->cap];
  s->e = *e;
  s->src = src;
  return 0;
}

/* One successful completion in the CQ's format (the tagged entry's fields
 * are a prefix-compatible superset of the others). */
static void write_entry(const struct prov_cq *cq, const struct fi_cq_err_entry *e, void *out) {
  struct fi_cq_tagged_entry t = {
      .op_context = e->op_context, .flags = e->flags, .len = e->len, .buf = e->buf, .data = e->data, .tag = e->tag};
  memcpy(out, &t, cq->entry_bytes);
}

/* Take up to count successes from the head; stops at an error. */
static ssize_t take(struct prov_cq *cq, void *buf, size_t count, fi_addr_t *src) {
  size_t n = 0;
  while (n < count && cq->head != cq->tail) {
    struct prov_cq_slot *s = &cq->q[cq->head % cq->cap];
    if (s->e.err) break;
    write_entry(cq, &s->e, (char *)buf + n * cq->entry_bytes);
    if (src) src[n] = s->src;
    cq->head++;
    n++;
  }
  if (n) {
    hw_poll_fruitful(); /* per thread: this one has work (another may have written the entries) */
    return (ssize_t)n;
  }
  return cq->head != cq->tail ? -FI_EAVAIL : -FI_EAGAIN;
}

static ssize_t cq_readfrom(struct fid_cq *f, void *buf, size_t count, fi_addr_t *src) {
  PROV_TIMING_SCOPE();
  struct prov_cq *cq = (struct prov_cq *)f;
  int moved = prov_progress();
  ssize_t r = take(cq, buf, count, src);
  if (r == -FI_EAGAIN && moved == 0) prov_idle();
  return r;
}

static ssize_t cq_read(struct fid_cq *f, void *buf, size_t count) { return cq_readfrom(f, buf, count, NULL); }

static ssize_t cq_readerr(struct fid_cq *f, struct fi_cq_err_entry *out, uint64_t flags) {
  PROV_LOCK_SCOPE();
  struct prov_cq *cq = (struct prov_cq *)f;
  if (cq->head == cq->tail || !cq->q[cq->head % cq->cap].e.err) return -FI_EAGAIN;
  const struct fi_cq_err_entry *e = &cq->q[cq->head++ % cq->cap].e;
  /* Field by field: the caller's err_data buffer (API >= 1.5) stays its own. */
  out->op_context = e->op_context;
  out->flags = e->flags;
  out->len = e->len;
  out->buf = e->buf;
  out->data = e->data;
  out->tag = e->tag;
  out->olen = e->olen;
  out->err = e->err;
  out->prov_errno = e->prov_errno;
  out->err_data_size = 0;
  return 1;
}

static const char *cq_strerror(struct fid_cq *f, int prov_errno, const void *err_data, char *buf, size_t len) {
  const char *s = fi_strerror(prov_errno);
  if (buf && len) {
    strncpy(buf, s, len - 1);
    buf[len - 1] = '\0';
    return buf;
  }
  return s;
}

static int cq_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  struct prov_cq *cq = (struct prov_cq *)f;
  free(cq->q);
  free(cq);
  return 0;
}

static struct fi_ops cq_fid_ops = PROV_FID_OPS(cq_close);
static struct fi_ops_cq cq_ops = {.size = sizeof(struct fi_ops_cq),
                                  .read = cq_read,
                                  .readfrom = cq_readfrom,
                                  .readerr = cq_readerr,
                                  .sread = prov_no_cq_sread,
                                  .sreadfrom = prov_no_cq_sreadfrom,
                                  .signal = prov_no_cq_signal,
                                  .strerror = cq_strerror};

int prov_cq_open(struct fid_domain *d, struct fi_cq_attr *attr, struct fid_cq **out, void *ctx) {
  PROV_LOCK_SCOPE();
  /* Waiting is inside reads (manual progress idles on the UE's doorbell):
   * no wait objects for fi_cq_sread or fi_wait. */
  if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC) return -FI_ENOSYS;
  struct prov_cq *cq = calloc(1, sizeof *cq);
  if (!cq) return -FI_ENOMEM;
  cq->cap = CQ_INITIAL;
  cq->q = malloc(cq->cap * sizeof *cq->q);
  if (!cq->q) {
    free(cq);
    return -FI_ENOMEM;
  }
  cq->cq.fid.fclass = FI_CLASS_CQ;
  cq->cq.fid.context = ctx;
  cq->cq.fid.ops = &cq_fid_ops;
  cq->cq.ops = &cq_ops;
  cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ? FI_CQ_FORMAT_CONTEXT : attr->format;
  cq->entry_bytes = format_bytes(cq->format);
  *out = &cq->cq;
  return 0;
}

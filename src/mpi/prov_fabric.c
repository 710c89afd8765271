/* Fabric, domain and memory registration.  The fabric stands for the job's
 * mesh, the domain for the UE's MPB; opening the fabric attaches the process
 * to its job (prov_job.c).  Registration hands out keys and pins nothing:
 * without FI_RMA no peer ever addresses a registered region. */
#include <stdlib.h>

#include "prov_stubs.h"
#include "provider.h"

/* A bare fid object of class fclass with the given operations. */
static void *object_new(size_t bytes, size_t fclass, void *ctx, struct fi_ops *ops) {
  struct fid *f = calloc(1, bytes);
  if (!f) return NULL;
  f->fclass = fclass;
  f->context = ctx;
  f->ops = ops;
  return f;
}

static int object_close(struct fid *f) {
  free(f);
  return 0;
}

/* ---- memory registration ---- */
static struct fi_ops mr_fid_ops = PROV_FID_OPS(object_close);

static int mr_regattr(struct fid *f, const struct fi_mr_attr *attr, uint64_t flags, struct fid_mr **out) {
  static uint64_t next_key = 1;
  struct fid_mr *mr = object_new(sizeof *mr, FI_CLASS_MR, attr->context, &mr_fid_ops);
  if (!mr) return -FI_ENOMEM;
  mr->mem_desc = NULL;
  mr->key = attr->requested_key ? attr->requested_key : next_key++;
  *out = mr;
  return 0;
}

static int mr_regv(struct fid *f, const struct iovec *iov, size_t count, uint64_t access, uint64_t offset, uint64_t key,
                   uint64_t flags, struct fid_mr **out, void *ctx) {
  struct fi_mr_attr attr = {
      .mr_iov = iov, .iov_count = count, .access = access, .offset = offset, .requested_key = key, .context = ctx};
  return mr_regattr(f, &attr, flags, out);
}

static int mr_reg(struct fid *f, const void *buf, size_t len, uint64_t access, uint64_t offset, uint64_t key,
                  uint64_t flags, struct fid_mr **out, void *ctx) {
  struct iovec iov = {(void *)buf, len};
  return mr_regv(f, &iov, 1, access, offset, key, flags, out, ctx);
}

static struct fi_ops_mr domain_mr_ops = {
    .size = sizeof(struct fi_ops_mr), .reg = mr_reg, .regv = mr_regv, .regattr = mr_regattr};

/* ---- domain ---- */
static struct fi_ops domain_fid_ops = PROV_FID_OPS(object_close);
static struct fi_ops_domain domain_ops = {.size = sizeof(struct fi_ops_domain),
                                          .av_open = prov_av_open,
                                          .cq_open = prov_cq_open,
                                          .endpoint = prov_ep_open,
                                          .scalable_ep = prov_no_scalable_ep,
                                          .cntr_open = prov_cntr_open,
                                          .poll_open = prov_no_poll_open,
                                          .stx_ctx = prov_no_stx_ctx,
                                          .srx_ctx = prov_no_srx_ctx,
                                          .query_atomic = prov_no_query_atomic,
                                          .query_collective = prov_no_query_collective};

static int domain_open(struct fid_fabric *fab, struct fi_info *info, struct fid_domain **out, void *ctx) {
  PROV_LOCK_SCOPE();
  struct fid_domain *d = object_new(sizeof *d, FI_CLASS_DOMAIN, ctx, &domain_fid_ops);
  if (!d) return -FI_ENOMEM;
  d->ops = &domain_ops;
  d->mr = &domain_mr_ops;
  *out = d;
  return 0;
}

/* ---- fabric ---- */
static int fabric_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  prov_job_close();
  free(f);
  return 0;
}

static struct fi_ops fabric_fid_ops = PROV_FID_OPS(fabric_close);
static struct fi_ops_fabric fabric_ops = {.size = sizeof(struct fi_ops_fabric),
                                          .domain = domain_open,
                                          .passive_ep = prov_no_passive_ep,
                                          .eq_open = prov_no_eq_open,
                                          .wait_open = prov_no_wait_open,
                                          .trywait = prov_no_trywait};

int prov_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **out, void *ctx) {
  PROV_LOCK_SCOPE();
  struct fid_fabric *f = object_new(sizeof *f, FI_CLASS_FABRIC, ctx, &fabric_fid_ops);
  if (!f) return -FI_ENOMEM;
  int r = prov_job_open();
  if (r != 0) {
    free(f);
    return r;
  }
  f->ops = &fabric_ops;
  f->api_version = prov_provider.fi_version;
  *out = f;
  return 0;
}

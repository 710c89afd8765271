/* Fabric and domain.  The fabric stands for the job's mesh, the domain for
 * the UE's MPB; opening the fabric attaches the process to its job
 * (prov_job.c).  Memory registration: prov_mr.c. */
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

/* ---- domain ---- */
/* -FI_EBUSY while endpoints or registrations use it (fi_domain(3)). */
static int domain_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  if (((struct prov_domain *)f)->users) return -FI_EBUSY;
  free(f);
  return 0;
}

static struct fi_ops domain_fid_ops = PROV_FID_OPS(domain_close);
static struct fi_ops_domain domain_ops = {.size = sizeof(struct fi_ops_domain),
                                          .av_open = prov_av_open,
                                          .cq_open = prov_cq_open,
                                          .endpoint = prov_ep_open,
                                          .scalable_ep = prov_no_scalable_ep,
                                          .cntr_open = prov_cntr_open,
                                          .poll_open = prov_no_poll_open,
                                          .stx_ctx = prov_no_stx_ctx,
                                          .srx_ctx = prov_no_srx_ctx,
                                          .query_atomic = prov_atomic_query,
                                          .query_collective = prov_no_query_collective};

static int domain_open(struct fid_fabric *fab, struct fi_info *info, struct fid_domain **out, void *ctx) {
  PROV_LOCK_SCOPE();
  struct prov_domain *d = object_new(sizeof *d, FI_CLASS_DOMAIN, ctx, &domain_fid_ops);
  if (!d) return -FI_ENOMEM;
  d->domain.ops = &domain_ops;
  d->domain.mr = &prov_mr_ops;
  /* The registration mode fi_getinfo returned (prov_info.c): remote
   * addresses are virtual addresses or offsets, keys the provider's or the
   * caller's. */
  d->mr_mode = info && info->domain_attr ? info->domain_attr->mr_mode & (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY) : 0;
  *out = &d->domain;
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

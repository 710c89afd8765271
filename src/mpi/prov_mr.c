/* Memory registration (fi_mr(3)): a registered region is what a peer's
 * one-sided operation may name, by key and address, as its target
 * (prov_rma_target.c).  Nothing is pinned -- the target's own progress
 * copies the bytes, in its own address space (docs/mpi-provider.md,
 * "One-sided operations").  The mode is the domain's (fi_getinfo returns the
 * hints' FI_MR_VIRT_ADDR and FI_MR_PROV_KEY, prov_info.c): with
 * FI_MR_VIRT_ADDR a peer names the region's bytes by their virtual
 * addresses, else by their offset from its start (as libfabric's own
 * software registrations do); with FI_MR_PROV_KEY the provider picks the
 * key, else the caller's requested key, unique in the domain. */
#include <stdlib.h>

#include "prov_stubs.h"
#include "provider.h"

struct prov_mr {
  struct fid_mr mr; /* first: the fid */
  struct prov_mr *prev, *next;
  struct prov_domain *domain;
  unsigned char *base;
  uint64_t len, access;
  uint64_t remote_base; /* the address a peer gives for byte 0 */
};

/* Every registration of the process (few: one per window or buffer the
 * library exposes), searched by (domain, key). */
static struct prov_mr *registrations;

static struct prov_mr *find(const struct prov_domain *d, uint64_t key) {
  for (struct prov_mr *m = registrations; m; m = m->next)
    if (m->domain == d && m->mr.key == key) return m;
  return NULL;
}

int prov_mr_access(const struct prov_domain *d, uint64_t key, uint64_t addr, uint64_t len, uint64_t access,
                   unsigned char **where) {
  const struct prov_mr *m = find(d, key);
  if (!m) return FI_EINVAL;
  if ((m->access & access) != access) return FI_EACCES;
  /* Every byte inside the region (written to overflow in no case). */
  if (addr < m->remote_base || addr - m->remote_base > m->len || len > m->len - (addr - m->remote_base))
    return FI_EACCES;
  *where = m->base + (addr - m->remote_base);
  return 0;
}

static int mr_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  struct prov_mr *m = (struct prov_mr *)f;
  prov_rma_abandon_writes(m->base, m->len);
  m->domain->users--;
  if (m->prev) m->prev->next = m->next;
  else registrations = m->next;
  if (m->next) m->next->prev = m->prev;
  free(m);
  return 0;
}

static struct fi_ops mr_fid_ops = PROV_FID_OPS(mr_close);

/* One contiguous region per registration (domain attribute mr_iov_limit 1);
 * zero iovs register an empty region. */
static int mr_regattr(struct fid *f, const struct fi_mr_attr *attr, uint64_t flags, struct fid_mr **out) {
  PROV_LOCK_SCOPE();
  struct prov_domain *d = (struct prov_domain *)f;
  static uint64_t next_key = 1;
  if (attr->iov_count > 1) return -FI_EINVAL;
  uint64_t key = (d->mr_mode & FI_MR_PROV_KEY) ? next_key++ : attr->requested_key;
  if (find(d, key)) return -FI_ENOKEY;
  struct prov_mr *m = calloc(1, sizeof *m);
  if (!m) return -FI_ENOMEM;
  m->mr.fid.fclass = FI_CLASS_MR;
  m->mr.fid.context = attr->context;
  m->mr.fid.ops = &mr_fid_ops;
  m->mr.mem_desc = NULL; /* no FI_MR_LOCAL: local buffers need no descriptor */
  m->mr.key = key;
  m->domain = d;
  d->users++;
  if (attr->iov_count == 1) {
    m->base = attr->mr_iov[0].iov_base;
    m->len = attr->mr_iov[0].iov_len;
  }
  m->access = attr->access;
  m->remote_base = (d->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)m->base : 0;
  m->next = registrations;
  if (registrations) registrations->prev = m;
  registrations = m;
  *out = &m->mr;
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

struct fi_ops_mr prov_mr_ops = {
    .size = sizeof(struct fi_ops_mr), .reg = mr_reg, .regv = mr_regv, .regattr = mr_regattr};

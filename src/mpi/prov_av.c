/* Address vectors (FI_AV_MAP and FI_AV_TABLE alike: fi_addr is the entry's
 * index, which both types allow) and the address format FI_ADDR_STR
 * "fi_openscc://JOB:UE:EP" (fi_getname, fi_av_insert, fi_av_lookup,
 * fi_av_straddr).  A reverse map from (UE, endpoint) gives fi_cq_readfrom
 * the sender's fi_addr and lets directed receives compare sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prov_stubs.h"
#include "provider.h"

#define ADDR_PREFIX "fi_openscc://"

void prov_addr_format(char out[PROV_ADDR_LEN], int ue, int ep) {
  memset(out, 0, PROV_ADDR_LEN);
  snprintf(out, PROV_ADDR_LEN, ADDR_PREFIX "%d:%d:%d", prov_job_id(), ue, ep);
}

/* The UE and endpoint of an address of this job: 0, or -1. */
static int addr_parse(const char *addr, struct prov_peer *p) {
  char text[PROV_ADDR_LEN + 1];
  memcpy(text, addr, PROV_ADDR_LEN);
  text[PROV_ADDR_LEN] = '\0';
  int job, ue, ep, end = 0;
  if (sscanf(text, ADDR_PREFIX "%d:%d:%d%n", &job, &ue, &ep, &end) != 3 || text[end] != '\0') return -1;
  if (job != prov_job_id() || ue < 0 || ue >= (int)prov_g.job.hdr->nue || ep < 0 || ep >= PROV_MAX_EP) return -1;
  p->ue = ue;
  p->ep = ep;
  return 0;
}

const struct prov_peer *prov_av_peer(const struct prov_av *av, fi_addr_t a) {
  if (!av || a >= av->n || av->peers[a].ue < 0) return NULL;
  return &av->peers[a];
}

fi_addr_t prov_av_reverse(const struct prov_av *av, int ue, int ep) {
  size_t i = (size_t)ue * PROV_MAX_EP + (size_t)ep;
  return av && i < av->nreverse ? av->reverse[i] : FI_ADDR_NOTAVAIL;
}

static int grow(struct prov_av *av) {
  size_t ncap = av->cap ? av->cap * 2 : 64;
  struct prov_peer *n = realloc(av->peers, ncap * sizeof *n);
  if (!n) return -FI_ENOMEM;
  av->peers = n;
  av->cap = ncap;
  return 0;
}

/* Insert count addresses; an address that is not one of this job's is
 * refused (FI_ADDR_NOTAVAIL in fi_addr) and not counted (fi_av(3)). */
static int av_insert(struct fid_av *f, const void *addr, size_t count, fi_addr_t *fi_addr, uint64_t flags, void *ctx) {
  PROV_LOCK_SCOPE();
  struct prov_av *av = (struct prov_av *)f;
  int inserted = 0;
  for (size_t i = 0; i < count; i++) {
    struct prov_peer p;
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    if (addr_parse((const char *)addr + i * PROV_ADDR_LEN, &p) == 0 && (av->n < av->cap || grow(av) == 0)) {
      a = av->n++;
      av->peers[a] = p;
      size_t r = (size_t)p.ue * PROV_MAX_EP + (size_t)p.ep;
      if (av->reverse[r] == FI_ADDR_NOTAVAIL) av->reverse[r] = a; /* the first of duplicates */
      inserted++;
    }
    if (fi_addr) fi_addr[i] = a;
  }
  return inserted;
}

static int av_remove(struct fid_av *f, fi_addr_t *fi_addr, size_t count, uint64_t flags) {
  PROV_LOCK_SCOPE();
  struct prov_av *av = (struct prov_av *)f;
  for (size_t i = 0; i < count; i++) {
    const struct prov_peer *p = prov_av_peer(av, fi_addr[i]);
    if (!p) return -FI_EINVAL;
    size_t r = (size_t)p->ue * PROV_MAX_EP + (size_t)p->ep;
    if (av->reverse[r] == fi_addr[i]) av->reverse[r] = FI_ADDR_NOTAVAIL;
    av->peers[fi_addr[i]].ue = -1;
  }
  return 0;
}

static int av_lookup(struct fid_av *f, fi_addr_t a, void *addr, size_t *len) {
  PROV_LOCK_SCOPE();
  const struct prov_peer *p = prov_av_peer((struct prov_av *)f, a);
  if (!p) return -FI_EINVAL;
  char text[PROV_ADDR_LEN];
  prov_addr_format(text, p->ue, p->ep);
  memcpy(addr, text, *len < PROV_ADDR_LEN ? *len : PROV_ADDR_LEN);
  *len = PROV_ADDR_LEN;
  return 0;
}

static const char *av_straddr(struct fid_av *f, const void *addr, char *buf, size_t *len) {
  char text[PROV_ADDR_LEN + 1];
  memcpy(text, addr, PROV_ADDR_LEN);
  text[PROV_ADDR_LEN] = '\0';
  if (*len) snprintf(buf, *len, "%s", text);
  *len = strlen(text) + 1;
  return buf;
}

static int av_close(struct fid *f) {
  PROV_LOCK_SCOPE();
  struct prov_av *av = (struct prov_av *)f;
  free(av->peers);
  free(av->reverse);
  free(av);
  return 0;
}

static struct fi_ops av_fid_ops = PROV_FID_OPS(av_close);
static struct fi_ops_av av_ops = {
    .size = sizeof(struct fi_ops_av),
    .insert = av_insert,
    .insertsvc = prov_no_av_insertsvc,
    .insertsym = prov_no_av_insertsym,
    .remove = av_remove,
    .lookup = av_lookup,
    .straddr = av_straddr,
    .av_set = prov_no_av_set,
#if FI_MAJOR_VERSION >= 2
    .insert_auth_key = prov_no_av_insert_auth_key,
    .lookup_auth_key = prov_no_av_lookup_auth_key,
    .set_user_id = prov_no_av_set_user_id,
#endif
};

int prov_av_open(struct fid_domain *d, struct fi_av_attr *attr, struct fid_av **out, void *ctx) {
  PROV_LOCK_SCOPE();
  if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP && attr->type != FI_AV_TABLE) return -FI_EINVAL;
  if (attr->flags & FI_EVENT) return -FI_ENOSYS; /* no event queues */
  if (attr->name) return -FI_ENOSYS;             /* no named (shared between processes) AVs */
  struct prov_av *av = calloc(1, sizeof *av);
  if (!av) return -FI_ENOMEM;
  av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
  av->nreverse = (size_t)prov_g.job.hdr->nue * PROV_MAX_EP;
  av->reverse = malloc(av->nreverse * sizeof *av->reverse);
  if (!av->reverse) {
    free(av);
    return -FI_ENOMEM;
  }
  for (size_t i = 0; i < av->nreverse; i++) av->reverse[i] = FI_ADDR_NOTAVAIL;
  av->av.fid.fclass = FI_CLASS_AV;
  av->av.fid.context = ctx;
  av->av.fid.ops = &av_fid_ops;
  av->av.ops = &av_ops;
  *out = &av->av;
  return 0;
}

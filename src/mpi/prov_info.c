/* What the provider offers (fi_getinfo) and its entry point fi_prov_ini,
 * the only symbol the shared object exports (docs/mpi-provider.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/providers/fi_log.h>

#include "provider.h"

/* FI_MSG, FI_TAGGED with directed receives, FI_RMA and FI_ATOMIC
 * (one-sided operations as active messages, prov_rma*.c) (primary
 * capabilities: returned as the hints ask for them); multi-receive buffers,
 * FI_SOURCE (completions name the sender), local and remote peers
 * (secondary: always returned, fi_getinfo(3)).  No FI_RMA_EVENT (remote
 * completions and counters of one-sided operations). */
#define PROV_RMA_CAPS (FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define PROV_PRIMARY_CAPS (FI_MSG | FI_TAGGED | FI_DIRECTED_RECV | FI_SEND | FI_RECV | PROV_RMA_CAPS)
#define PROV_SECONDARY_CAPS (FI_MULTI_RECV | FI_SOURCE | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define PROV_CAPS (PROV_PRIMARY_CAPS | PROV_SECONDARY_CAPS)
/* The channel is FIFO between each pair of UEs, and the target handles
 * every packet -- message or one-sided -- in arrival order (prov_arrive.c,
 * prov_rma_target.c): sends, reads and writes (atomics included) keep their
 * order among each other, at any size. */
#define PROV_MSG_ORDER                                                                                      \
  (FI_ORDER_SAS | FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_WAR | FI_ORDER_WAW | FI_ORDER_SAR | FI_ORDER_SAW | \
   FI_ORDER_RAS | FI_ORDER_WAS)
#define PROV_DOMAIN_NAME "mpb"
/* Queue depths: advisory (FI_RM_ENABLED: the provider queues without limit). */
#define PROV_QUEUE_SIZE 1024

/* The API the provider declares: CMake sets 2.5 for the MPICH 5 flavour
 * (built against 2.1 headers, touching only 2.1 fields); else the headers'. */
#ifndef PROV_API_MAJOR
#define PROV_API_MAJOR FI_MAJOR_VERSION
#define PROV_API_MINOR FI_MINOR_VERSION
#endif

/* Whether the hints' transmit or receive attributes ask for more than the
 * provider gives: another message or completion order, more iovs, a larger
 * inject size. */
static int xfer_refused(const struct fi_tx_attr *tx, const struct fi_rx_attr *rx) {
  if (tx && ((tx->msg_order & ~(uint64_t)PROV_MSG_ORDER) || tx->comp_order || tx->iov_limit > PROV_IOV_LIMIT ||
             tx->inject_size > PROV_INJECT_SIZE))
    return 1;
  return rx && ((rx->msg_order & ~(uint64_t)PROV_MSG_ORDER) || rx->comp_order || rx->iov_limit > PROV_IOV_LIMIT);
}

/* Whether the hints' domain asks for more than the provider gives:
 * automatic progress, more than 8 bytes of CQ data, another domain or AV
 * type.  (mr_mode bits are the restrictions the application accepts; the
 * provider needs none, so every value is met: mr_mode_for.) */
static int domain_refused(const struct fi_domain_attr *d) {
  if (!d) return 0;
  if (d->name && strcmp(d->name, PROV_DOMAIN_NAME) != 0) return 1;
  if (d->data_progress == FI_PROGRESS_AUTO || d->control_progress == FI_PROGRESS_AUTO) return 1;
  if (d->cq_data_size > sizeof(uint64_t)) return 1;
  return d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_MAP && d->av_type != FI_AV_TABLE;
}

/* Whether hints ask for something the provider does not offer. */
static int hints_refused(const struct fi_info *h) {
  if (h->caps & ~(uint64_t)PROV_CAPS) return 1;
  if (xfer_refused(h->tx_attr, h->rx_attr) || domain_refused(h->domain_attr)) return 1;
  if (h->ep_attr && h->ep_attr->max_msg_size > PROV_MAX_MSG_SIZE) return 1;
  if (h->ep_attr && h->ep_attr->type != FI_EP_UNSPEC && h->ep_attr->type != FI_EP_RDM) return 1;
  if (h->addr_format != FI_FORMAT_UNSPEC && h->addr_format != FI_ADDR_STR) return 1;
  return h->fabric_attr && h->fabric_attr->name && strcmp(h->fabric_attr->name, PROV_NAME) != 0;
}

/* The capabilities returned: the primary ones the hints ask for (all when
 * they name none), and every secondary one. */
static uint64_t caps_for(const struct fi_info *h) {
  uint64_t primary = h ? h->caps & PROV_PRIMARY_CAPS : 0;
  return (primary ? primary : PROV_PRIMARY_CAPS) | PROV_SECONDARY_CAPS;
}

/* The registration mode: the provider needs none of the restrictions, and
 * takes up the hints' FI_MR_VIRT_ADDR (peers name registered bytes by
 * virtual address; else by offset), FI_MR_PROV_KEY (the provider picks
 * keys; else the caller) and FI_MR_ALLOCATED (harmless), which the caller
 * says it handles -- Open MPI's btl ofi asks for all three.  prov_mr.c. */
static uint64_t mr_mode_for(const struct fi_info *h) {
  if (!h || !h->domain_attr) return 0;
  return h->domain_attr->mr_mode & (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED);
}

static void fill_attrs(struct fi_info *fi, const struct fi_info *h) {
  fi->caps = caps_for(h);
  fi->mode = 0;
  fi->addr_format = FI_ADDR_STR;
  fi->tx_attr->caps = fi->rx_attr->caps = fi->caps;
  /* The channel is in order between each pair of UEs. */
  fi->tx_attr->msg_order = fi->rx_attr->msg_order = PROV_MSG_ORDER;
  fi->tx_attr->comp_order = fi->rx_attr->comp_order = 0; /* FI_ORDER_NONE (deprecated name in 2.x) */
  fi->tx_attr->inject_size = PROV_INJECT_SIZE;
  fi->tx_attr->size = fi->rx_attr->size = PROV_QUEUE_SIZE;
  fi->tx_attr->iov_limit = fi->rx_attr->iov_limit = PROV_IOV_LIMIT;
  fi->tx_attr->rma_iov_limit = PROV_IOV_LIMIT;
  /* The hints' operation flags come back: MPICH hangs otherwise. */
  if (h && h->tx_attr) fi->tx_attr->op_flags = h->tx_attr->op_flags;
  if (h && h->rx_attr) fi->rx_attr->op_flags = h->rx_attr->op_flags;
  fi->ep_attr->type = FI_EP_RDM;
  fi->ep_attr->protocol = FI_PROTO_UNSPEC;
  fi->ep_attr->max_msg_size = PROV_MAX_MSG_SIZE;
  fi->ep_attr->max_order_raw_size = fi->ep_attr->max_order_war_size = fi->ep_attr->max_order_waw_size =
      PROV_MAX_MSG_SIZE;
  /* Matching uses all 64 tag bits: the hints' layout, else one 64-bit field
   * (Open MPI's mtl ofi counts its free bits from the top). */
  fi->ep_attr->mem_tag_format = h && h->ep_attr && h->ep_attr->mem_tag_format ? h->ep_attr->mem_tag_format : UINT64_MAX;
  fi->ep_attr->tx_ctx_cnt = fi->ep_attr->rx_ctx_cnt = 1;
  struct fi_domain_attr *d = fi->domain_attr;
  d->name = strdup(PROV_DOMAIN_NAME);
  /* Every entry point is serialised (provider.h, PROV_LOCK_SCOPE), so any
   * threading level asked for is met: the hints' (FI_THREAD_SAFE for
   * MPI_THREAD_MULTIPLE), else FI_THREAD_DOMAIN. */
  d->threading = h && h->domain_attr && h->domain_attr->threading != FI_THREAD_UNSPEC ? h->domain_attr->threading
                                                                                      : FI_THREAD_DOMAIN;
  d->control_progress = d->data_progress = FI_PROGRESS_MANUAL;
  d->resource_mgmt = FI_RM_ENABLED;
  d->av_type = h && h->domain_attr && h->domain_attr->av_type != FI_AV_UNSPEC ? h->domain_attr->av_type : FI_AV_TABLE;
  d->mr_mode = mr_mode_for(h);
  d->mr_key_size = sizeof(uint64_t);
  d->cq_data_size = sizeof(uint64_t);
  d->cq_cnt = d->cntr_cnt = d->ep_cnt = PROV_MAX_EP;
  d->tx_ctx_cnt = d->rx_ctx_cnt = PROV_MAX_EP;
  d->max_ep_tx_ctx = d->max_ep_rx_ctx = 1;
  d->mr_iov_limit = 1; /* one contiguous region per registration (prov_mr.c) */
  d->mr_cnt = SIZE_MAX;
  fi->fabric_attr->name = strdup(PROV_NAME);
  fi->fabric_attr->prov_version = PROV_VERSION;
}

/* A process that rccerun's MPI launch started (FI_PROVIDER names this
 * provider: rccerun --mpi sets it for the whole launch) but not as a UE: an
 * MPI_Comm_spawn child with no spare UE to run on (MPICH's hydra starts it
 * itself).  Its MPI library's own error says only that no provider was
 * found, so the reason goes to stderr, once. */
static void not_a_ue_of_the_job(void) {
  static int said;
  const char *named = getenv("FI_PROVIDER");
  if (said || !named || strcmp(named, PROV_NAME) != 0) return;
  said = 1;
  fprintf(stderr,
          "openscc provider: process %d runs inside an rccerun --mpi job but is none of its UEs: a process "
          "MPI_Comm_spawn starts needs a spare UE (rccerun --mpi-spawn-ues N)\n",
          (int)getpid());
}

static int prov_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                        const struct fi_info *hints, struct fi_info **info) {
  /* Only a UE of a job started by rccerun --mpi can use the MPB; elsewhere
   * the provider stays out of the way (libfabric's log shows why). */
  if (!getenv("OPENSCC_SHM_FD") || !getenv("OPENSCC_UE")) {
    FI_WARN(&prov_provider, FI_LOG_CORE, "openscc provider: not started by rccerun --mpi\n");
    not_a_ue_of_the_job();
    return -FI_ENODATA;
  }
  if (hints && hints_refused(hints)) return -FI_ENODATA;
  struct fi_info *fi = fi_allocinfo();
  if (!fi) return -FI_ENOMEM;
  fill_attrs(fi, hints);
  if (!fi->domain_attr->name || !fi->fabric_attr->name) {
    fi_freeinfo(fi);
    return -FI_ENOMEM;
  }
  *info = fi;
  return 0;
}

static void prov_cleanup(void) {}

struct fi_provider prov_provider = {
    .name = PROV_NAME,
    .version = PROV_VERSION,
    .fi_version = FI_VERSION(PROV_API_MAJOR, PROV_API_MINOR),
    .getinfo = prov_getinfo,
    .fabric = prov_fabric_open,
    .cleanup = prov_cleanup,
};

FI_EXT_INI { return &prov_provider; }

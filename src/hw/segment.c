/* Job segment: creation, mapping, removal and stale-segment cleanup. */
#define _GNU_SOURCE
#include "segment.h"
#include "hosts.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void compute_layout(const struct hw_job_params *p, struct hw_header *h) {
  uint64_t off = hw_align_up(sizeof *h, HW_HOST_LINE);
  h->ue_off = off;
  off = hw_align_up(off + sizeof(struct hw_ue) * (uint64_t)p->nue, HW_HOST_LINE);
  h->config_off = off;
  off = hw_align_up(off + sizeof(struct hw_config), HW_HOST_LINE);
  h->tas_off = off;
  off = hw_align_up(off + sizeof(struct hw_tas) * (uint64_t)chip_num_cores(&p->chip), 4096);
  h->mpb_off = off;
  off = hw_align_up(off + (uint64_t)p->chip.mpb_bytes_per_core * chip_num_cores(&p->chip), 4096);
  h->hosts_off = off;
  h->hosts_bytes = hw_hosts_bytes(p);
  off = hw_align_up(off + h->hosts_bytes, 4096);
  off = hw_region_layout(p, h, off); /* the layers' shared state (region.h) */
  /* Monitoring: counts per destination from the targets level on, events
   * from the sizes level on (hw/trace.h). */
  h->trace_capacity = p->set.trace_level >= HW_TRACE_SIZES ? p->trace_capacity : 0;
  h->trace_ue_bytes = p->set.trace_level >= HW_TRACE_TARGETS ? hw_trace_ue_bytes(p->nue, h->trace_capacity) : 0;
  h->trace_off = off;
  off = hw_align_up(off + h->trace_ue_bytes * (uint64_t)p->nue, 4096);
  h->shared_off = off;
  h->shared_bytes = hw_align_up(p->shared_bytes, 4096);
  h->svm_off = off + h->shared_bytes;
  h->svm_bytes = hw_align_up(p->svm_bytes, 4096);
  h->private_off = h->svm_off + h->svm_bytes;
  h->private_bytes = hw_align_up(p->private_bytes, 4096);
  h->total_bytes = h->private_off + h->private_bytes * (uint64_t)p->nue;
}

static void init_contents(const struct hw_job_params *p, struct hw_job *job) {
  struct hw_header *h = job->hdr;
  h->version = HW_VERSION;
  h->nue = (uint32_t)p->nue;
  h->chip = p->chip;
  h->launcher_pid = (int32_t)getpid();
  h->set = p->set;
  h->trace_ticks0 = hw_trace_clock();
  h->trace_ns0 = hw_trace_monotonic_ns();
  for (int u = 0; u < p->nue; u++) {
    hw_ue(job, u)->core = p->ue_core[u];
    hw_ue(job, u)->wait.peer = -1;
  }
  struct hw_config *cfg = hw_config(job);
  int vl = chip_vlevel_for_divider(&p->chip, p->set.initial_divider);
  for (int t = 0; t < chip_num_tiles(&p->chip); t++) cfg->tile_divider[t] = p->set.initial_divider;
  for (int d = 0; d < chip_num_voltage_domains(&p->chip); d++) cfg->domain_vlevel[d] = vl;
  h->initial_vlevel = vl;
  /* The magic goes last: a reader that sees it sees a complete header. */
  __atomic_store_n(&h->magic, HW_MAGIC, __ATOMIC_RELEASE);
}

static int map_fd(int fd, size_t bytes, struct hw_job *job, char *err, size_t errlen) {
  void *p = mmap(HW_MAP_HINT, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED) p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    snprintf(err, errlen, "cannot map the job segment (%zu bytes): %s", bytes, strerror(errno));
    return -1;
  }
  job->base = p;
  job->hdr = p;
  job->bytes = bytes;
  job->fd = fd;
  return 0;
}

/* The shapes hw itself gives the segment, for the layout hash: a field added,
 * removed, resized or moved in the header, the settings, a UE's hw block, the
 * registers or the trace logs changes it, whether HW_VERSION was raised or not
 * (settings fields are all int32_t: one more changes the struct's size). */
uint64_t hw_shapes_fingerprint(void) {
  static const uint64_t shape[] = {sizeof(struct hw_header),
                                   offsetof(struct hw_header, version),
                                   offsetof(struct hw_header, nue),
                                   offsetof(struct hw_header, chip),
                                   offsetof(struct hw_header, launcher_pid),
                                   offsetof(struct hw_header, set),
                                   offsetof(struct hw_header, n_regions),
                                   offsetof(struct hw_header, regions),
                                   offsetof(struct hw_header, trace_off),
                                   offsetof(struct hw_header, ue_off),
                                   offsetof(struct hw_header, svm_off),
                                   offsetof(struct hw_header, private_off),
                                   offsetof(struct hw_header, hosts_off),
                                   sizeof(struct chip_desc),
                                   sizeof(struct hw_region_entry),
                                   sizeof(struct hw_settings),
                                   offsetof(struct hw_settings, debug),
                                   offsetof(struct hw_settings, spin_limit),
                                   offsetof(struct hw_settings, yield_limit),
                                   offsetof(struct hw_settings, wait_adaptive),
                                   offsetof(struct hw_settings, single_copy),
                                   offsetof(struct hw_settings, oversubscribed),
                                   offsetof(struct hw_settings, asym_fence),
                                   offsetof(struct hw_settings, tagged_flags),
                                   offsetof(struct hw_settings, scheme),
                                   offsetof(struct hw_settings, model),
                                   offsetof(struct hw_settings, mailbox_irq),
                                   offsetof(struct hw_settings, svm_check),
                                   offsetof(struct hw_settings, trace_level),
                                   offsetof(struct hw_settings, initial_divider),
                                   offsetof(struct hw_settings, mpi_channel),
                                   offsetof(struct hw_settings, mpi_library),
                                   offsetof(struct hw_settings, copy_cores),
                                   offsetof(struct hw_settings, hosts),
                                   offsetof(struct hw_settings, board_host),
                                   sizeof(struct hw_ue),
                                   offsetof(struct hw_ue, state),
                                   offsetof(struct hw_ue, wait),
                                   offsetof(struct hw_ue, sleeps),
                                   sizeof(struct hw_wait_desc),
                                   sizeof(struct hw_tas),
                                   sizeof(struct hw_config),
                                   sizeof(struct hw_trace_ue),
                                   sizeof(struct hw_trace_event)};
  return hw_fnv1a(HW_FNV_OFFSET, shape, sizeof shape);
}

/* This process's region declarations (region.h) and their layout hash, or -1
 * with err set when they did not fit the registry. */
static int own_layout_hash(uint64_t *hash, char *err, size_t errlen) {
  const struct hw_region_decl *const *decls;
  int n = hw_region_registry(&decls);
  if (n < 0) {
    snprintf(err, errlen,
             "more than %d shared regions declared, a name of %d bytes or more, or one name declared twice "
             "(hw/region.h)",
             HW_REGION_MAX, HW_REGION_NAME_MAX);
    return -1;
  }
  *hash = hw_layout_hash(decls, n);
  return 0;
}

static int size_and_map(int fd, const struct hw_job_params *p, struct hw_job *job, char *err, size_t errlen) {
  uint64_t hash;
  if (own_layout_hash(&hash, err, errlen) != 0) return -1;
  struct hw_header layout;
  memset(&layout, 0, sizeof layout);
  compute_layout(p, &layout);
  layout.layout_hash = hash;
  if (ftruncate(fd, (off_t)layout.total_bytes) != 0) {
    snprintf(err, errlen, "cannot size the job segment to %llu bytes: %s", (unsigned long long)layout.total_bytes,
             strerror(errno));
    return -1;
  }
  if (map_fd(fd, layout.total_bytes, job, err, errlen) != 0) return -1;
  memcpy(job->hdr, &layout, sizeof layout);
  init_contents(p, job);
  return 0;
}

int hw_job_create(const struct hw_job_params *p, struct hw_job *job, char *err, size_t errlen) {
  memset(job, 0, sizeof *job);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(job->name, sizeof job->name, "/" HW_SHM_PREFIX "%u-%d-%lx", (unsigned)getuid(), (int)getpid(),
           (unsigned long)(ts.tv_nsec ^ ts.tv_sec));
  int fd = shm_open(job->name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create shared-memory segment %s: %s", job->name, strerror(errno));
    return -1;
  }
  if (size_and_map(fd, p, job, err, errlen) != 0) {
    shm_unlink(job->name);
    close(fd);
    return -1;
  }
  return 0;
}

int hw_job_create_private(const struct hw_job_params *p, struct hw_job *job, char *err, size_t errlen) {
  memset(job, 0, sizeof *job);
  int fd = memfd_create("openscc-private", MFD_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "memfd_create failed: %s", strerror(errno));
    return -1;
  }
  if (size_and_map(fd, p, job, err, errlen) != 0) {
    close(fd);
    return -1;
  }
  return 0;
}

/* Each region's unit count as this process's declarations compute it for this
 * job against the count rccerun laid out: the hash covers names, versions and
 * unit sizes, not counts (e.g. a model-only array sized by another formula). */
static int check_counts(const struct hw_job *job, char *err, size_t errlen) {
  static struct hw_job_params p; /* large (a core per UE); what the count functions read */
  p.nue = (int)job->hdr->nue;
  p.chip = job->hdr->chip;
  p.set = job->hdr->set;
  const struct hw_region_decl *const *decls;
  int n = hw_region_registry(&decls);
  for (int i = 0; i < n; i++) {
    const struct hw_region_entry *e = hw_region_find(job, decls[i]->name);
    uint64_t count = decls[i]->count ? decls[i]->count(&p) : 1;
    if (e && e->count == count) continue;
    snprintf(err, errlen,
             "this program was built against a different OpenSCC than rccerun (region %s: %llu units here, %llu "
             "laid out); rebuild it with rccecc",
             decls[i]->name, (unsigned long long)count, (unsigned long long)(e ? e->count : 0));
    return -1;
  }
  return 0;
}

/* The segment's layout hash against the one this process's declarations give:
 * a program linked against another librcce.a than rccerun's reads other
 * offsets, so it must not run (region.h). */
static int check_layout(int fd, const struct hw_job *job, char *err, size_t errlen) {
  if (__atomic_load_n(&job->hdr->magic, __ATOMIC_ACQUIRE) != HW_MAGIC) {
    snprintf(err, errlen, "fd %d holds no OpenSCC job segment", fd);
    return -1;
  }
  uint64_t mine;
  if (own_layout_hash(&mine, err, errlen) != 0) return -1;
  if (job->hdr->layout_hash != mine) {
    snprintf(err, errlen,
             "this program was built against a different OpenSCC than rccerun (this program's layout %016llx, "
             "rccerun's %016llx); rebuild it with rccecc",
             (unsigned long long)mine, (unsigned long long)job->hdr->layout_hash);
    return -1;
  }
  if (job->hdr->total_bytes != (uint64_t)job->bytes) {
    snprintf(err, errlen, "fd %d holds a truncated OpenSCC job segment", fd);
    return -1;
  }
  return check_counts(job, err, errlen);
}

int hw_job_attach(int fd, struct hw_job *job, char *err, size_t errlen) {
  memset(job, 0, sizeof *job);
  struct stat st;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct hw_header)) {
    snprintf(err, errlen, "fd %d is not an OpenSCC job segment", fd);
    return -1;
  }
  if (map_fd(fd, (size_t)st.st_size, job, err, errlen) != 0) return -1;
  if (check_layout(fd, job, err, errlen) != 0) {
    munmap(job->base, job->bytes);
    job->base = NULL;
    job->hdr = NULL;
    return -1;
  }
  return 0;
}

void hw_job_detach(struct hw_job *job) {
  if (job->base) munmap(job->base, job->bytes);
  job->base = NULL;
  job->hdr = NULL;
}

void hw_job_unlink(struct hw_job *job) {
  if (job->name[0]) shm_unlink(job->name);
  job->name[0] = '\0';
}

int hw_clean_stale_segments(void) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, HW_SHM_PREFIX "%u-", (unsigned)getuid());
  DIR *d = opendir("/dev/shm");
  if (!d) return 0;
  int cleaned = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    int pid = atoi(e->d_name + strlen(prefix));
    if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) {
      char name[300];
      snprintf(name, sizeof name, "/%s", e->d_name);
      if (shm_unlink(name) == 0) cleaned++;
    }
  }
  closedir(d);
  return cleaned;
}

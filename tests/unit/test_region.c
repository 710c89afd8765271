/* hw/region: the layout hash (independent of declaration order, changed by
 * any name, version, scope or unit size), laying regions out, lookup by name,
 * and attach refusing a process whose declarations differ. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/segment.h"
#include "unit.h"

/* Declared in reverse order: the registry sorts them. */
static uint64_t two_per_ue(const struct hw_job_params *p) { return 2 * (uint64_t)p->nue; }
HW_REGION_DECLARE(test_zeta, "test.zeta", 3, HW_REGION_PER_UE, 100, NULL)
HW_REGION_DECLARE(test_alpha, "test.alpha", 1, HW_REGION_PER_JOB, 24, two_per_ue)

static const struct hw_region_decl a = {"a.x", 1, HW_REGION_PER_JOB, 8, NULL};
static const struct hw_region_decl b = {"b.y", 1, HW_REGION_PER_UE, 64, NULL};
static const struct hw_region_decl c = {"c.z", 2, HW_REGION_PER_JOB, 16, NULL};

static uint64_t hash3(const struct hw_region_decl *x, const struct hw_region_decl *y, const struct hw_region_decl *z) {
  const struct hw_region_decl *d[3] = {x, y, z};
  return hw_layout_hash(d, 3);
}

static void test_hash(void) {
  uint64_t h = hash3(&a, &b, &c);
  CHECK(h == hash3(&c, &a, &b));
  CHECK(h == hash3(&b, &c, &a));
  struct hw_region_decl renamed = c, newer = c, wider = c, per_ue = c;
  renamed.name = "c.w";
  newer.version = 3;
  wider.unit_bytes = 24;
  per_ue.scope = HW_REGION_PER_UE;
  CHECK(h != hash3(&a, &b, &renamed));
  CHECK(h != hash3(&a, &b, &newer));
  CHECK(h != hash3(&a, &b, &wider));
  CHECK(h != hash3(&a, &b, &per_ue));
  const struct hw_region_decl *two[2] = {&a, &b};
  CHECK(h != hw_layout_hash(two, 2)); /* a region more or less */
}

static void test_registry_sorted(void) {
  const struct hw_region_decl *const *d;
  int n = hw_region_registry(&d);
  CHECK_EQ(n, 2);
  CHECK(n == 2 && strcmp(d[0]->name, "test.alpha") == 0 && strcmp(d[1]->name, "test.zeta") == 0);
}

static void params(struct hw_job_params *p, int nue) {
  char err[256];
  memset(p, 0, sizeof *p);
  p->nue = nue;
  chip_preset("scc", &p->chip, err, sizeof err);
  for (int u = 0; u < nue; u++) p->ue_core[u] = u;
  p->shared_bytes = 1 << 20;
  p->set.initial_divider = 3;
}

static void test_layout_and_lookup(void) {
  struct hw_job_params p;
  struct hw_job job;
  char err[256];
  params(&p, 3);
  CHECK(hw_job_create_private(&p, &job, err, sizeof err) == 0);
  CHECK_EQ(job.hdr->n_regions, 2);
  const struct hw_region_entry *alpha = hw_region_find(&job, "test.alpha"), *zeta = hw_region_find(&job, "test.zeta");
  CHECK(alpha && zeta && hw_region_find(&job, "test.none") == NULL && hw_region_base(&job, "test") == NULL);
  if (!alpha || !zeta) return;
  CHECK(alpha == &job.hdr->regions[0]); /* the table is sorted by name */
  CHECK_EQ(alpha->count, 6);            /* two_per_ue of 3 UEs */
  CHECK_EQ(alpha->unit_bytes, 24);
  CHECK_EQ(zeta->version, 3);
  CHECK_EQ(zeta->stride, 128); /* 100 bytes, on host cache lines */
  CHECK_EQ(alpha->offset % 4096, 0);
  CHECK(alpha->offset >= job.hdr->mpb_off + (uint64_t)chip_num_cores(&p.chip) * p.chip.mpb_bytes_per_core);
  CHECK(zeta->offset >= alpha->offset + 6 * 24);
  CHECK(zeta->offset + 3 * 128 <= job.hdr->trace_off);
  CHECK((unsigned char *)hw_region_base(&job, "test.alpha") == job.base + alpha->offset);
  CHECK((unsigned char *)hw_region_ue(&job, "test.zeta", 2) == job.base + zeta->offset + 256);
  CHECK(job.hdr->layout_hash ==
        hw_layout_hash((const struct hw_region_decl *[]){&test_alpha_region_decl, &test_zeta_region_decl}, 2));
  hw_job_detach(&job);
  close(job.fd);
}

/* A process with one declaration more (a program linked against another
 * library) cannot attach; the message says what to do. */
static void test_attach_refuses_other_layout(void) {
  struct hw_job_params p;
  struct hw_job job;
  char err[256];
  params(&p, 1);
  CHECK(hw_job_create(&p, &job, err, sizeof err) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    static const struct hw_region_decl extra = {"test.extra", 1, HW_REGION_PER_JOB, 8, NULL};
    struct hw_job child;
    char e2[256];
    if (hw_job_attach(job.fd, &child, e2, sizeof e2) != 0) _exit(2); /* same declarations: attaches */
    hw_job_detach(&child);
    hw_region_register(&extra);
    if (hw_job_attach(job.fd, &child, e2, sizeof e2) == 0) _exit(3);
    if (!strstr(e2, "this program was built against a different OpenSCC than rccerun (this program's layout ") ||
        !strstr(e2, "); rebuild it with rccecc"))
      _exit(4);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  hw_job_unlink(&job);
  hw_job_detach(&job);
  close(job.fd);
}

/* Two declarations of one name would share a block: the registry refuses them. */
static void test_duplicate_name_refused(void) {
  pid_t pid = fork();
  if (pid == 0) {
    static const struct hw_region_decl once = {"test.twice", 1, HW_REGION_PER_JOB, 8, NULL};
    static const struct hw_region_decl again = {"test.twice", 2, HW_REGION_PER_JOB, 8, NULL};
    const struct hw_region_decl *const *decls;
    hw_region_register(&once);
    if (hw_region_registry(&decls) < 0) _exit(2);
    hw_region_register(&again);
    _exit(hw_region_registry(&decls) < 0 ? 0 : 3);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
  test_hash();
  test_registry_sorted();
  test_layout_and_lookup();
  test_attach_refuses_other_layout();
  test_duplicate_name_refused();
  return unit_report("test_region");
}

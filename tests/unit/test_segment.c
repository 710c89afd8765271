/* hw/segment: creation (mode 0600, unique name), attach from another process,
 * layout, removal, and cleanup of stale segments. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/segment.h"
#include "unit.h"

static void params(struct hw_job_params *p, int nue) {
  char err[256];
  memset(p, 0, sizeof *p);
  p->nue = nue;
  chip_preset("scc", &p->chip, err, sizeof err);
  for (int u = 0; u < nue; u++) p->ue_core[u] = 47 - u;
  p->shared_bytes = 1 << 20;
  p->set.initial_divider = 3;
  p->set.spin_limit = 10;
}

static void test_create_attach_unlink(void) {
  struct hw_job_params p;
  params(&p, 4);
  struct hw_job job;
  char err[256], path[128];
  CHECK(hw_job_create(&p, &job, err, sizeof err) == 0);
  snprintf(path, sizeof path, "/dev/shm%s", job.name);
  struct stat st;
  CHECK(stat(path, &st) == 0);
  CHECK_EQ(st.st_mode & 0777, 0600);
  CHECK_EQ(job.hdr->nue, 4);
  CHECK_EQ(hw_ue(&job, 1)->core, 46);
  CHECK_EQ(job.hdr->mpb_off % 4096, 0);
  CHECK_EQ((uintptr_t)hw_mpb(&job, 1) - (uintptr_t)hw_mpb(&job, 0), 8192);
  CHECK_EQ(hw_config(&job)->tile_divider[23], 3);
  CHECK_EQ(hw_config(&job)->domain_vlevel[5], 1);
  hw_mpb(&job, 5)[100] = 42;
  pid_t pid = fork();
  if (pid == 0) {
    struct hw_job child;
    char e2[256];
    int fd = shm_open(job.name, O_RDWR, 0);
    if (fd < 0 || hw_job_attach(fd, &child, e2, sizeof e2) != 0) _exit(2);
    if (hw_mpb(&child, 5)[100] != 42) _exit(3);
    hw_mpb(&child, 6)[7] = 9; /* visible to the parent */
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(hw_mpb(&job, 6)[7], 9);
  hw_job_unlink(&job);
  CHECK(stat(path, &st) != 0);
  hw_job_unlink(&job); /* idempotent */
  hw_job_detach(&job);
  close(job.fd);
}

static void test_attach_rejects_foreign_fd(void) {
  struct hw_job job;
  char err[256];
  int fd = memfd_create("not-a-job", 0);
  CHECK(ftruncate(fd, 65536) == 0);
  CHECK(hw_job_attach(fd, &job, err, sizeof err) != 0);
  CHECK(strstr(err, "holds no OpenSCC job segment") != NULL);
  close(fd);
  CHECK(hw_job_attach(-1, &job, err, sizeof err) != 0);
}

static void test_stale_cleanup(void) {
  /* A segment named after a dead launcher is removed; a live one is kept. */
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  char stale[96], live[96];
  snprintf(stale, sizeof stale, "/" HW_SHM_PREFIX "%u-%d-test", (unsigned)getuid(), (int)dead);
  snprintf(live, sizeof live, "/" HW_SHM_PREFIX "%u-%d-test", (unsigned)getuid(), (int)getpid());
  int a = shm_open(stale, O_RDWR | O_CREAT, 0600), b = shm_open(live, O_RDWR | O_CREAT, 0600);
  CHECK(a >= 0 && b >= 0);
  CHECK(hw_clean_stale_segments() >= 1);
  CHECK(shm_open(stale, O_RDWR, 0) < 0);
  int again = shm_open(live, O_RDWR, 0);
  CHECK(again >= 0);
  close(a);
  close(b);
  close(again);
  shm_unlink(live);
}

int main(void) {
  test_create_attach_unlink();
  test_attach_rejects_foreign_fd();
  test_stale_cleanup();
  return unit_report("test_segment");
}

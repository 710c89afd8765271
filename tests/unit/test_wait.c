/* hw/wait: the doorbell protocol never loses a wake-up.  Two processes
 * ping-pong a counter through words in each other's "MPB" with spinning
 * disabled, so every wait takes the futex path; a lost wake-up would hang
 * and trip the alarm.  Run with the symmetric and the asymmetric fence. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/wait.h"
#include "unit.h"

#define ROUNDS 20000

static struct hw_job make_job(int asym, int spin) {
  struct hw_job_params p;
  struct hw_job job;
  char err[256];
  memset(&p, 0, sizeof p);
  p.nue = 2;
  chip_preset("scc", &p.chip, err, sizeof err);
  p.ue_core[1] = 1;
  p.shared_bytes = 4096;
  p.set.initial_divider = 3;
  p.set.spin_limit = spin;
  p.set.asym_fence = asym;
  if (hw_job_create_private(&p, &job, err, sizeof err) != 0) abort();
  return job;
}

static volatile uint32_t *word_of(struct hw_job *j, int ue) { return (volatile uint32_t *)hw_mpb(j, ue); }

static void player(struct hw_job *j, int me, int first) {
  struct hw_wait_desc why = {.kind = HW_WAIT_RECV, .peer = 1 - me};
  if (j->hdr->set.asym_fence && hw_asym_fence_register() != 0) _exit(5);
  for (uint32_t k = 1; k <= ROUNDS; k++) {
    if (!first) hw_wait_bits(j, me, word_of(j, me), ~0u, k, &why);
    __atomic_store_n(word_of(j, 1 - me), k, __ATOMIC_RELEASE);
    hw_ring(j, 1 - me);
    if (first) hw_wait_bits(j, me, word_of(j, me), ~0u, k, &why);
  }
}

static void run_pingpong(int asym, int spin) {
  struct hw_job job = make_job(asym, spin);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    player(&job, 1, 0);
    _exit(0);
  }
  alarm(60);
  player(&job, 0, 1);
  int status;
  waitpid(pid, &status, 0);
  alarm(0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(*word_of(&job, 0), ROUNDS);
  CHECK_EQ(*word_of(&job, 1), ROUNDS);
  CHECK(hw_ue(&job, 0)->sleeps > 0 || spin > 0);
  CHECK_EQ(__atomic_load_n(&hw_ue(&job, 0)->state, __ATOMIC_ACQUIRE), HW_UE_NOT_STARTED);
  hw_job_detach(&job);
}

static void test_change_and_wake(void) {
  struct hw_job job = make_job(0, 0);
  volatile uint32_t *gen = word_of(&job, 0);
  pid_t kids[3];
  for (int i = 0; i < 3; i++) {
    kids[i] = fork();
    if (kids[i] == 0) {
      struct hw_wait_desc why = {.kind = HW_WAIT_BARRIER};
      alarm(30);
      hw_wait_change(&job, 1, gen, 0, &why);
      _exit(__atomic_load_n(gen, __ATOMIC_ACQUIRE) == 1 ? 0 : 4);
    }
  }
  usleep(20000);
  __atomic_store_n(gen, 1, __ATOMIC_RELEASE);
  hw_wake_word(gen);
  for (int i = 0; i < 3; i++) {
    int status;
    waitpid(kids[i], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  hw_job_detach(&job);
}

int main(void) {
  run_pingpong(0, 0);
  run_pingpong(0, 100);
  if (hw_asym_fence_available()) {
    run_pingpong(1, 0);
    run_pingpong(1, 100);
  }
  test_change_and_wake();
  return unit_report("test_wait");
}

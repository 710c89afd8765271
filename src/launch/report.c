#define _GNU_SOURCE
#include "report.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../hw/hosts.h"
#include "launch_shared.h"

/* MPI jobs carry their channel (hw/settings.h); rank i is UE i. */
static int mpi_job(const struct hw_job *job) { return job->hdr->set.mpi_channel != HW_MPI_CHANNEL_NONE; }

void report_ue_name(char *buf, size_t len, const struct hw_job *job, int u) {
  const struct launch_ue_shared *rec = mpi_job(job) ? launch_ue_shared_of(job, u) : NULL;
  int core = hw_ue(job, u)->core;
  char where[64];
  if (hw_hosts_many(job)) /* rccerun --hosts: the board and the host too */
    snprintf(where, sizeof where, "core %d, board %d, host %d", core, chip_board_of_core(&job->hdr->chip, core),
             hw_host_of_core(job, core));
  else snprintf(where, sizeof where, "core %d", core);
  if (rec && __atomic_load_n(&rec->wrapper_pid, __ATOMIC_ACQUIRE) && rec->spawned)
    snprintf(buf, len, "spawned rank %d (UE %d on %s)", rec->spawned_rank, u, where);
  else if (rec) snprintf(buf, len, "rank %d (UE %d on %s)", u, u, where);
  else snprintf(buf, len, "UE %d (%s)", u, where);
}

const char *report_finalize_call(const struct hw_job *job) { return mpi_job(job) ? "MPI_Finalize" : "RCCE_finalize"; }

static const char *init_call(const struct hw_job *job) { return mpi_job(job) ? "MPI_Init" : "RCCE_init"; }

static void describe_wait(FILE *f, const struct hw_job *job, const struct hw_wait_desc *w) {
  char peer[64] = "";
  if (w->peer >= 0 && w->peer < (int)job->hdr->nue) report_ue_name(peer, sizeof peer, job, w->peer);
  switch (w->kind) {
    case HW_WAIT_RECV:
      if (w->peer < 0) fprintf(f, "blocked in a receive from any UE (iRCCE_ANY_SOURCE), waiting for data");
      else fprintf(f, "blocked in RCCE_recv, waiting for data from %s", peer);
      break;
    case HW_WAIT_SEND: fprintf(f, "blocked in RCCE_send, waiting for %s to receive", peer); break;
    case HW_WAIT_LOCK: fprintf(f, "blocked in RCCE_acquire_lock, waiting for the lock of %s", peer); break;
    case HW_WAIT_FLAG:
      fprintf(f, "blocked in RCCE_wait_until, waiting for the flag at MPB offset 0x%x to become %s", w->mpb_offset,
              w->value ? "SET" : "UNSET");
      break;
    case HW_WAIT_BARRIER: {
      const volatile uint32_t *count = (const volatile uint32_t *)(job->base + w->futex_off) - 1;
      fprintf(f, "blocked in a barrier of communicator #%d (%d UEs:", w->comm_label, w->comm_size);
      for (int i = 0; i < 4 && i < w->comm_size; i++) fprintf(f, " %d", w->comm_members[i]);
      fprintf(f, "%s), %u of %d arrived", w->comm_size > 4 ? " ..." : "", *count, w->comm_size);
      break;
    }
    case HW_WAIT_MAIL: fprintf(f, "blocked in mailbox_recv, waiting for a mail"); break;
    case HW_WAIT_MAILBOX_FULL: fprintf(f, "blocked in mailbox_send, waiting for %s to take the last mail", peer); break;
    case HW_WAIT_SVM_PAGE: fprintf(f, "blocked in an SVM page fault, waiting for the page from %s", peer); break;
    case HW_WAIT_MPI: fprintf(f, "waiting in MPI for a packet or a free EWS"); break;
    case HW_WAIT_VTIME:
      fprintf(f, "waiting for the virtual time of %s (the model's order of shared resources)", peer);
      break;
    case HW_WAIT_COPY: fprintf(f, "blocked in scc_copy_wait, waiting for copy core %s", peer); break;
    case HW_WAIT_COPY_IDLE: fprintf(f, "copy core, waiting for copy requests"); break;
    default: fprintf(f, "blocked in the runtime"); break;
  }
}

void report_see(const struct hw_job *job, int u, struct ue_seen *seen) {
  const struct hw_ue *ue = hw_ue(job, u);
  seen->state = __atomic_load_n(&ue->state, __ATOMIC_ACQUIRE);
  seen->wait = ue->wait;
}

void report_ue_line(FILE *f, const struct hw_job *job, int u, const struct ue_exit *ex, const struct ue_seen *seen) {
  if (ex[u].remote) return; /* its own host's agent reports it */
  if (ex[u].spare) {
    fprintf(f, "  spare UE %d (core %d): no spawned rank on it (rccerun --mpi-spawn-ues)\n", u, hw_ue(job, u)->core);
    return;
  }
  char name[64];
  report_ue_name(name, sizeof name, job, u);
  struct ue_seen now;
  if (!seen) {
    report_see(job, u, &now);
    seen = &now;
  }
  int state = seen->state;
  fprintf(f, "  %s: ", name);
  if (ex[u].exited) {
    int st = ex[u].status;
    if (WIFSIGNALED(st)) fprintf(f, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (state == HW_UE_FINALIZED) fprintf(f, "finished (exit status %d)", WEXITSTATUS(st));
    else if (state == HW_UE_NOT_STARTED) fprintf(f, "exited with status %d before %s", WEXITSTATUS(st), init_call(job));
    else fprintf(f, "exited with status %d without %s", WEXITSTATUS(st), report_finalize_call(job));
  } else if (state == HW_UE_BLOCKED) {
    describe_wait(f, job, &seen->wait);
  } else if (state == HW_UE_FINALIZED) {
    fprintf(f, "in %s, exiting", report_finalize_call(job));
  } else if (state == HW_UE_NOT_STARTED) {
    fprintf(f, "running, has not called %s", init_call(job));
  } else {
    fprintf(f, "running (not blocked in the runtime)");
  }
  fputc('\n', f);
}

/* Composed in memory and written at once: with --hosts every agent's report
 * reaches the terminal through mpirun, where a report written line by line
 * (stderr is unbuffered) could be split by another host's. */
void report_all(FILE *f, const struct hw_job *job, const struct ue_exit *ex, const struct ue_seen *seen,
                const char *headline) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len), *out = m ? m : f;
  fprintf(out, "rccerun: %s\n", headline);
  for (int u = 0; u < (int)job->hdr->nue; u++) report_ue_line(out, job, u, ex, seen ? &seen[u] : NULL);
  if (m && fclose(m) == 0) fwrite(text, 1, len, f);
  free(text);
  fflush(f);
}

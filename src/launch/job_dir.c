/* The job directory: runs/<date>-<time>-<pid>/ or --job-dir, holding
 * summary.json and, by trace level and mode, comm_matrix.csv,
 * message_sizes.csv, trace.json and power.csv (docs/monitoring.md). */
#define _GNU_SOURCE
#include "job_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../timing/timing_shared.h"
#include "../trace/trace_export.h"
#include "summary_json.h"

#define POWER_BUCKETS TIMING_POWER_BUCKETS

int job_dir_wanted(const struct launch_options *o) { return o->job.set.model || o->job.set.trace_level > HW_TRACE_OFF; }

/* The files a job writes: their presence marks a directory holding a job. */
static const char *const job_files[] = {"summary.json", "comm_matrix.csv", "message_sizes.csv", "trace.json",
                                        "power.csv"};
#define N_JOB_FILES (sizeof job_files / sizeof job_files[0])

/* The directory this rccerun claimed: open and flock()ed from job_dir_claim
 * until the process exits, so that no second job writes into it meanwhile. */
static struct {
  char id[64];
  char dir[4096];
  int fd;
  int created; /* made by this job: removed again if the job writes nothing */
  int replace; /* --replace-job-dir: the old job's files go when the new ones are written */
} claimed = {.fd = -1};

/* mkdir -p of everything above path's last component. */
static int make_parents(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/' && p[1]) {
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return 0;
}

/* The first of the job files present in the claimed directory, or NULL. */
static const char *old_job_file(void) {
  struct stat st;
  for (size_t i = 0; i < N_JOB_FILES; i++)
    if (fstatat(claimed.fd, job_files[i], &st, AT_SYMLINK_NOFOLLOW) == 0) return job_files[i];
  return NULL;
}

/* Prints "rccerun: <head> <dir>: <what>" and gives the directory up. */
static int claim_error(const char *head, const char *what) {
  fprintf(stderr, "rccerun: %s %s: %s\n", head, claimed.dir, what);
  if (claimed.fd >= 0) close(claimed.fd);
  claimed.fd = -1;
  return -1;
}

/* Creates (or opens) claimed.dir and locks it.  Returns 0; 1 when the
 * directory was removed between open and flock (by a job that had made it
 * and failed: job_dir_release); -1 after printing why it cannot be had. */
static int lock_dir(void) {
  /* mkdir of the last component is atomic: exactly one job creates it. */
  claimed.created = mkdir(claimed.dir, 0755) == 0;
  if (!claimed.created && errno != EEXIST) return claim_error("cannot create job directory", strerror(errno));
  claimed.fd = open(claimed.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (claimed.fd < 0) return claim_error("job directory", strerror(errno));
  /* flock, not a lock file: the kernel drops it when this process ends,
   * however it ends, so a killed job leaves no stale lock behind. */
  if (flock(claimed.fd, LOCK_EX | LOCK_NB) != 0)
    return claim_error("job directory", errno == EWOULDBLOCK ? "in use by another running job" : strerror(errno));
  struct stat held, named;
  if (fstat(claimed.fd, &held) == 0 && stat(claimed.dir, &named) == 0 && held.st_dev == named.st_dev &&
      held.st_ino == named.st_ino)
    return 0;
  close(claimed.fd);
  claimed.fd = -1;
  return 1;
}

int job_dir_claim(const struct launch_options *o) {
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  snprintf(claimed.id, sizeof claimed.id, "%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
           tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
  if ((size_t)snprintf(claimed.dir, sizeof claimed.dir, "%s%s", o->job_dir ? "" : "runs/",
                       o->job_dir ? o->job_dir : claimed.id) >= sizeof claimed.dir)
    return claim_error("job directory", "path too long");
  claimed.replace = o->replace_job_dir;
  if (make_parents(claimed.dir) != 0) return claim_error("cannot create job directory", strerror(errno));
  int rc;
  for (int tries = 0; (rc = lock_dir()) > 0; tries++) /* removed under us: claim it anew */
    if (tries == 3) return claim_error("job directory", "removed by another job while being claimed");
  if (rc < 0) return -1;
  const char *old = old_job_file();
  if (old && !claimed.replace) {
    char why[160];
    snprintf(why, sizeof why, "already holds a job (%s); choose another --job-dir or replace it with --replace-job-dir",
             old);
    return claim_error("job directory", why);
  }
  return 0;
}

/* rccerun --hosts: the head claims the directory and holds its lock; host
 * 0's agent writes into it (docs/cluster.md "Several hosts"). */
int job_dir_hand_over(void) {
  char abs[PATH_MAX];
  if (!realpath(claimed.dir, abs)) return claim_error("job directory", strerror(errno));
  if (setenv(JOB_DIR_HANDOVER_DIR, abs, 1) != 0 || setenv(JOB_DIR_HANDOVER_ID, claimed.id, 1) != 0)
    return claim_error("job directory", strerror(errno));
  return 0;
}

int job_dir_adopt(const struct launch_options *o) {
  const char *dir = getenv(JOB_DIR_HANDOVER_DIR), *id = getenv(JOB_DIR_HANDOVER_ID);
  if (!dir || !id) {
    fprintf(stderr, "rccerun: the job directory was not handed over (%s)\n", JOB_DIR_HANDOVER_DIR);
    return -1;
  }
  snprintf(claimed.dir, sizeof claimed.dir, "%s", dir);
  snprintf(claimed.id, sizeof claimed.id, "%s", id);
  claimed.replace = o->replace_job_dir;
  claimed.created = 0; /* the head's: it removes it again if nothing was written */
  claimed.fd = open(claimed.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (claimed.fd < 0)
    return claim_error("job directory",
                       errno == ENOENT ? "not on this host (give a --job-dir every host sees)" : strerror(errno));
  return 0;
}

void job_dir_release(void) {
  if (claimed.fd < 0) return;
  if (claimed.created) rmdir(claimed.dir); /* fails, as it should, once the job wrote its files */
  close(claimed.fd);
  claimed.fd = -1;
}

/* --replace-job-dir: the old job's files go, so that none of them mixes with the new job's. */
static int remove_old_job(void) {
  for (size_t i = 0; i < N_JOB_FILES; i++)
    if (unlinkat(claimed.fd, job_files[i], 0) != 0 && errno != ENOENT) return -1;
  return 0;
}

/* A new file of the job directory: never through a symlink, never over a file. */
static FILE *create_job_file(const char *name) {
  int fd = openat(claimed.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (fd >= 0 && !f) close(fd);
  return f;
}

static int write_power(const double *w, int n, double bucket_s) {
  FILE *f = create_job_file("power.csv");
  if (!f) return -1;
  fprintf(f, "start_s,watts\n");
  for (int b = 0; b < n; b++) fprintf(f, "%.9g,%.6f\n", b * bucket_s, w[b]);
  return fclose(f);
}

/* Model mode's lines at the end of the run. */
static void print_model(const struct hw_job *job, const struct timing_energy *e, const struct timing_energy *region) {
  fprintf(stderr, "rccerun: model: %.6f s virtual on chip %s, %.4f J, %.3f W average, EDP %.4g J*s\n", e->seconds,
          job->hdr->chip.name, e->energy_j, e->average_w, e->edp_js);
  if (region)
    fprintf(stderr,
            "rccerun: model: measured region (first to last RCCE_wtime/MPI_Wtime): %.6f s from %.6f s, %.4f J, %.3f W "
            "average\n",
            region->seconds, region->start_s, region->energy_j, region->average_w);
  double comp = 0, comm = 0, wait = 0;
  for (uint32_t u = 0; u < job->hdr->nue; u++) {
    const struct timing_vclock *c = timing_clock_of(job, (int)u);
    comp += (double)c->compute_ps, comm += (double)c->comm_ps, wait += (double)c->wait_ps;
  }
  double all = comp + comm + wait > 0 ? comp + comm + wait : 1;
  fprintf(stderr, "rccerun: model: UE time %.1f%% compute, %.1f%% communication, %.1f%% waiting\n", 100 * comp / all,
          100 * comm / all, 100 * wait / all);
  if (!summary_all_counted(job) && job->hdr->chip.time.compute_slowdown > 0)
    fprintf(stderr,
            "rccerun: model: computation is host time x %g and varies from run to run; build with "
            "rccecc --model-build for repeatable predictions\n",
            job->hdr->chip.time.compute_slowdown);
}

/* Events the logs could not keep: say so once. */
static void warn_dropped(const struct hw_job *job) {
  uint64_t dropped = 0;
  for (uint32_t u = 0; u < job->hdr->nue; u++)
    if (hw_trace(job, (int)u)->n_events > job->hdr->trace_capacity)
      dropped += hw_trace(job, (int)u)->n_events - job->hdr->trace_capacity;
  if (dropped)
    fprintf(stderr, "rccerun: trace: %llu events did not fit the logs (%llu per UE; rccerun --trace-events N)\n",
            (unsigned long long)dropped, (unsigned long long)job->hdr->trace_capacity);
}

int job_dir_write(const struct launch_options *o, const struct hw_job *job, double host_s) {
  const char *dir = claimed.dir;
  char path[4200];
  const struct hw_header *h = job->hdr;
  struct timing_energy e, region;
  int has_region = 0;
  if (h->set.model) {
    timing_job_energy(job, &e);
    has_region = timing_region_energy(job, &region);
    print_model(job, &e, has_region ? &region : NULL);
  }
  if (h->set.trace_level >= HW_TRACE_SIZES) warn_dropped(job);
  if (claimed.replace && remove_old_job() != 0) {
    fprintf(stderr, "rccerun: cannot replace the job in %s: %s\n", dir, strerror(errno));
    return -1;
  }
  struct summary_files files = {.comm_matrix = h->set.trace_level >= HW_TRACE_TARGETS,
                                .message_sizes = h->set.trace_level >= HW_TRACE_SIZES,
                                .trace = h->set.trace_level >= HW_TRACE_TIMELINE,
                                .power = h->set.model};
  int bad = 0;
  if (files.power) {
    static double watts[POWER_BUCKETS];
    int n = timing_power_trace(job, watts, POWER_BUCKETS, &files.power_bucket_s);
    bad |= write_power(watts, n, files.power_bucket_s) != 0;
  }
  const struct {
    int wanted;
    const char *name;
    int (*write)(const struct hw_job *, const char *);
  } exports[] = {{files.comm_matrix, "comm_matrix.csv", trace_write_comm_matrix},
                 {files.message_sizes, "message_sizes.csv", trace_write_message_sizes},
                 {files.trace, "trace.json", trace_write_chrome}};
  for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++)
    if (exports[i].wanted) {
      snprintf(path, sizeof path, "%s/%s", dir, exports[i].name);
      bad |= exports[i].write(job, path) != 0;
    }
  FILE *f = create_job_file("summary.json");
  if (f) {
    summary_json_write(f, o, job, claimed.id, host_s, h->set.model ? &e : NULL, has_region ? &region : NULL, &files);
    bad |= fclose(f) != 0;
  }
  if (!f || bad) {
    fprintf(stderr, "rccerun: writing the job directory %s failed: %s\n", dir, strerror(errno));
    return -1;
  }
  fprintf(stderr, "rccerun: %s: summary in %s/summary.json\n", h->set.model ? "model" : "trace", dir);
  return 0;
}

/* The job directory: runs/<date>-<time>-<pid>/ or --job-dir, holding
 * summary.json and, by trace level and mode, comm_matrix.csv,
 * message_sizes.csv, trace.json and power.csv (docs/monitoring.md). */
#define _GNU_SOURCE
#include "job_dir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../trace/trace_export.h"
#include "summary_json.h"

#define POWER_BUCKETS HW_POWER_BUCKETS

int job_dir_wanted(const struct launch_options *o) { return o->job.model || o->job.trace_level > HW_TRACE_OFF; }

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_power(const char *path, const double *w, int n, double bucket_s) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "start_s,watts\n");
  for (int b = 0; b < n; b++) fprintf(f, "%.9g,%.6f\n", b * bucket_s, w[b]);
  return fclose(f);
}

/* Model mode's lines at the end of the run. */
static void print_model(const struct hw_job *job, const struct timing_energy *e) {
  fprintf(stderr, "rccerun: model: %.6f s virtual on chip %s, %.4f J, %.3f W average, EDP %.4g J*s\n", e->seconds,
          job->hdr->chip.name, e->energy_j, e->average_w, e->edp_js);
  double comp = 0, comm = 0, wait = 0;
  for (uint32_t u = 0; u < job->hdr->nue; u++) {
    const struct hw_vclock *c = &hw_ue(job, (int)u)->clock;
    comp += (double)c->compute_ps, comm += (double)c->comm_ps, wait += (double)c->wait_ps;
  }
  double all = comp + comm + wait > 0 ? comp + comm + wait : 1;
  fprintf(stderr, "rccerun: model: UE time %.1f%% compute, %.1f%% communication, %.1f%% waiting\n",
          100 * comp / all, 100 * comm / all, 100 * wait / all);
  if (!summary_all_counted(job) && job->hdr->chip.time.compute_slowdown > 0)
    fprintf(stderr, "rccerun: model: computation is host time x %g and varies from run to run; build with "
                    "rccecc --model-build for repeatable predictions\n", job->hdr->chip.time.compute_slowdown);
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
  char id[64], dir[4096], path[4200];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  snprintf(id, sizeof id, "%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
           tm.tm_min, tm.tm_sec, (int)getpid());
  if (o->job_dir) snprintf(dir, sizeof dir, "%s", o->job_dir);
  else snprintf(dir, sizeof dir, "runs/%s", id);
  const struct hw_header *h = job->hdr;
  struct timing_energy e;
  if (h->model) {
    timing_job_energy(job, &e);
    print_model(job, &e);
  }
  if (h->trace_level >= HW_TRACE_SIZES) warn_dropped(job);
  if (make_dirs(dir) != 0) {
    fprintf(stderr, "rccerun: cannot create job directory %s: %s\n", dir, strerror(errno));
    return -1;
  }
  struct summary_files files = {.comm_matrix = h->trace_level >= HW_TRACE_TARGETS,
                                .message_sizes = h->trace_level >= HW_TRACE_SIZES,
                                .trace = h->trace_level >= HW_TRACE_TIMELINE, .power = h->model};
  int bad = 0;
  if (files.power) {
    static double watts[POWER_BUCKETS];
    int n = timing_power_trace(job, watts, POWER_BUCKETS, &files.power_bucket_s);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    bad |= write_power(path, watts, n, files.power_bucket_s) != 0;
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
  snprintf(path, sizeof path, "%s/summary.json", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    summary_json_write(f, o, job, id, host_s, h->model ? &e : NULL, &files);
    bad |= fclose(f) != 0;
  }
  if (!f || bad) {
    fprintf(stderr, "rccerun: writing the job directory %s failed: %s\n", dir, strerror(errno));
    return -1;
  }
  fprintf(stderr, "rccerun: %s: summary in %s/summary.json\n", h->model ? "model" : "trace", dir);
  return 0;
}

/* Model mode's job summary: per UE the virtual time split into computation,
 * communication and waiting; the chip's energy, average power and EDP; the
 * power trace.  Schema in docs/model.md ("Job summary"). */
#define _GNU_SOURCE
#include "model_summary.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../timing/energy.h"

#define SUMMARY_VERSION 1
#define TRACE_MAX HW_POWER_BUCKETS

static double secs(uint64_t ps) { return (double)ps * 1e-12; }

/* Whether every UE's program counts its computation (rccecc --model-build). */
static int all_counted(const struct hw_job *job) {
  for (uint32_t u = 0; u < job->hdr->nue; u++)
    if (!hw_ue(job, (int)u)->clock.counted) return 0;
  return 1;
}

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

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static void write_json(FILE *f, const struct launch_options *o, const struct hw_job *job, const char *id,
                       const struct timing_energy *e, double bucket_s) {
  const struct hw_header *h = job->hdr;
  fprintf(f, "{\n  \"schema\": \"openscc-summary\",\n  \"version\": %d,\n  \"job\": {\n    \"id\": ", SUMMARY_VERSION);
  json_string(f, id);
  fprintf(f, ",\n    \"program\": ");
  json_string(f, o->app);
  fprintf(f, ",\n    \"args\": [");
  for (int i = 1; o->app_argv[i]; i++) {
    fprintf(f, "%s", i > 1 ? ", " : "");
    json_string(f, o->app_argv[i]);
  }
  fprintf(f, "],\n    \"nue\": %u,\n    \"chip\": ", h->nue);
  json_string(f, h->chip.name);
  fprintf(f, ",\n    \"model\": \"scc\",\n    \"flags\": \"%s\",\n    \"scheme\": \"%s\",\n",
          h->tagged_flags ? "tagged" : "normal", h->scheme == HW_SCHEME_RPLG ? "rplg" : "lprg");
  fprintf(f, "    \"computation\": \"%s\",\n    \"host_clock\": \"%s\",\n    \"compute_slowdown\": %.6g\n  },\n",
          all_counted(job) ? "counted" : "host-time", h->oversubscribed ? "thread-cpu" : "wall",
          h->chip.time.compute_slowdown);
  fprintf(f, "  \"chip_totals\": {\n    \"seconds\": %.9g,\n    \"energy_j\": %.9g,\n    \"average_w\": %.9g,\n"
             "    \"edp_js\": %.9g,\n    \"dynamic_j\": %.9g,\n    \"static_j\": %.9g,\n    \"uncore_j\": %.9g\n  },\n",
          e->seconds, e->energy_j, e->average_w, e->edp_js, e->dynamic_j, e->static_j, e->uncore_j);
  fprintf(f, "  \"ues\": [\n");
  for (uint32_t u = 0; u < h->nue; u++) {
    const struct hw_ue *ue = hw_ue(job, (int)u);
    const struct hw_vclock *c = &ue->clock;
    const struct hw_counters *k = &ue->counters;
    struct chip_core_pos pos = chip_core_pos(&h->chip, ue->core);
    fprintf(f,
            "    {\"ue\": %u, \"core\": %d, \"tile\": [%d, %d], \"seconds\": %.9g, \"compute_s\": %.9g, "
            "\"comm_s\": %.9g, \"wait_s\": %.9g, \"dynamic_j\": %.9g, \"msgs_sent\": %llu, \"bytes_sent\": %llu, "
            "\"msgs_recv\": %llu, \"bytes_recv\": %llu, \"ddr_reads\": %llu, \"ddr_writes\": %llu}%s\n",
            u, ue->core, pos.x, pos.y, secs(c->now_ps), secs(c->compute_ps), secs(c->comm_ps), secs(c->wait_ps),
            c->dynamic_j, (unsigned long long)k->msgs_sent, (unsigned long long)k->bytes_sent,
            (unsigned long long)k->msgs_recv, (unsigned long long)k->bytes_recv, (unsigned long long)c->ddr_reads,
            (unsigned long long)c->ddr_writes, u + 1 < h->nue ? "," : "");
  }
  fprintf(f, "  ],\n  \"power_trace\": {\"file\": \"power.csv\", \"bucket_s\": %.9g}\n}\n", bucket_s);
}

static int write_trace(const char *path, const double *w, int n, double bucket_s) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "start_s,watts\n");
  for (int b = 0; b < n; b++) fprintf(f, "%.9g,%.6f\n", b * bucket_s, w[b]);
  return fclose(f);
}

int model_summary_write(const struct launch_options *o, const struct hw_job *job) {
  char id[64], dir[4096], path[4200];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  snprintf(id, sizeof id, "%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
           tm.tm_min, tm.tm_sec, (int)getpid());
  if (o->job_dir) snprintf(dir, sizeof dir, "%s", o->job_dir);
  else snprintf(dir, sizeof dir, "runs/%s", id);
  struct timing_energy e;
  timing_job_energy(job, &e);
  static double watts[TRACE_MAX];
  double bucket_s = 0;
  int n = timing_power_trace(job, watts, TRACE_MAX, &bucket_s);

  fprintf(stderr, "rccerun: model: %.6f s virtual on chip %s, %.4f J, %.3f W average, EDP %.4g J*s\n", e.seconds,
          job->hdr->chip.name, e.energy_j, e.average_w, e.edp_js);
  double comp = 0, comm = 0, wait = 0;
  for (uint32_t u = 0; u < job->hdr->nue; u++) {
    const struct hw_vclock *c = &hw_ue(job, (int)u)->clock;
    comp += secs(c->compute_ps), comm += secs(c->comm_ps), wait += secs(c->wait_ps);
  }
  double all = comp + comm + wait > 0 ? comp + comm + wait : 1;
  fprintf(stderr, "rccerun: model: UE time %.1f%% compute, %.1f%% communication, %.1f%% waiting\n",
          100 * comp / all, 100 * comm / all, 100 * wait / all);
  if (!all_counted(job) && job->hdr->chip.time.compute_slowdown > 0)
    fprintf(stderr, "rccerun: model: computation is host time x %g and varies from run to run; build with "
                    "rccecc --model-build for repeatable predictions\n", job->hdr->chip.time.compute_slowdown);

  if (make_dirs(dir) != 0) {
    fprintf(stderr, "rccerun: model: cannot create job directory %s: %s\n", dir, strerror(errno));
    return -1;
  }
  snprintf(path, sizeof path, "%s/summary.json", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "rccerun: model: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  write_json(f, o, job, id, &e, bucket_s);
  int bad = fclose(f) != 0;
  snprintf(path, sizeof path, "%s/power.csv", dir);
  bad |= write_trace(path, watts, n, bucket_s) != 0;
  if (bad) {
    fprintf(stderr, "rccerun: model: writing the summary in %s failed: %s\n", dir, strerror(errno));
    return -1;
  }
  fprintf(stderr, "rccerun: model: summary in %s/summary.json\n", dir);
  return 0;
}

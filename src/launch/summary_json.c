/* summary.json (docs/monitoring.md "summary.json"): the job, its chip and
 * options, each UE's counters and, in model mode, virtual times and energy,
 * and the files beside it.  Version 1. */
#include "summary_json.h"

#include <assert.h>
#include <math.h>

#include "../hw/hosts.h"
#include "../hw/trace.h"
#include "option_table.h"
#include "../mailbox/mailbox_shared.h"
#include "../mpi/mpi_shared.h"
#include "../rcce/rcce_shared.h"
#include "../svm/svm_shared.h"
#include "../copy/copy_shared.h"
#include "../timing/timing_shared.h"

static double secs(uint64_t ps) { return (double)ps * 1e-12; }

/* The program's UEs (copy cores run the runtime's code only, charged as
 * such: copy/service.c). */
int summary_all_counted(const struct hw_job *job) {
  for (int u = 0; u < HW_PROGRAM_UES(job->hdr); u++)
    if (!timing_clock_of(job, (int)u)->counted) return 0;
  return 1;
}

/* Length of the well-formed UTF-8 sequence that starts at s, or 0 (RFC 3629
 * section 4: no overlong forms, no surrogates, nothing above U+10FFFF). */
static int utf8_length(const unsigned char *s) {
  static const unsigned lowest[5] = {0, 0, 0x80, 0x800, 0x10000};
  int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
  if (n <= 1) return n;
  unsigned cp = s[0] & (0x7F >> n);
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the terminating NUL */
    cp = cp << 6 | (s[i] & 0x3F);
  }
  return cp < lowest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : n;
}

/* A JSON string (RFC 8259) that is valid UTF-8 whatever the bytes: program
 * names and arguments are bytes on Linux.  Each byte that does not belong to
 * a well-formed UTF-8 sequence becomes U+FFFD; control characters and DEL
 * are escaped (docs/monitoring.md). */
static void json_string(FILE *f, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  fputc('"', f);
  while (*s) {
    int n = utf8_length(s);
    if (n == 0) fputs("\\ufffd", f);
    else if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if (*s < 0x20 || *s == 0x7F) fprintf(f, "\\u%04x", *s);
    else fwrite(s, 1, (size_t)n, f);
    s += n ? n : 1;
  }
  fputc('"', f);
}

/* "key": number.  JSON has no NaN or infinity; the range checks of rccerun's
 * options and chip files keep every value finite.  Should one slip through,
 * debug builds stop here and release builds write null (still JSON, and the
 * schema check reports it). */
static void json_number(FILE *f, const char *sep, const char *key, const char *fmt, double v) {
  assert(isfinite(v));
  fprintf(f, "%s\"%s\": ", sep, key);
  if (isfinite(v)) fprintf(f, fmt, v);
  else fputs("null", f);
}

/* An option's row with a summary.json key: a choice by its name, a flag as
 * true or false, a number as itself, or the value the job ran with
 * (option_table.h).  A choice
 * left unset without a default (--mpi, --mpi-channel of an RCCE job) has no
 * key. */
static void write_option(FILE *f, const struct launch_option *r, const struct launch_options *o,
                         const struct hw_job *job) {
  long v = launch_option_int(r, o);
  if (r->kind == LAUNCH_ARG_CHOICE && !r->json_in_effect && !launch_option_choice_name(r, v)) return;
  fprintf(f, ",\n    \"%s\": ", r->json);
  if (r->json_in_effect) json_string(f, r->json_in_effect(job));
  else if (r->kind == LAUNCH_ARG_CHOICE) json_string(f, launch_option_choice_name(r, v));
  else if (r->kind == LAUNCH_ARG_INT) fprintf(f, "%ld", v);
  else fputs(v ? "true" : "false", f);
}

static void write_job(FILE *f, const struct launch_options *o, const struct hw_job *job, const char *id,
                      double host_s) {
  const struct hw_header *h = job->hdr;
  fprintf(f, "  \"job\": {\n    \"id\": ");
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
  fprintf(f,
          ",\n    \"mesh\": {\"boards\": %d, \"tiles_x\": %d, \"tiles_y\": %d, \"cores_per_tile\": %d, "
          "\"memory_controllers\": [",
          h->chip.boards, h->chip.tiles_x, h->chip.tiles_y, h->chip.cores_per_tile);
  for (int m = 0; m < h->chip.n_mc; m++)
    fprintf(f, "%s[%d, %d]", m ? ", " : "", h->chip.mc[m].tile_x, h->chip.mc[m].tile_y);
  fprintf(f, "], \"system_interface\": [%d, %d]}", h->chip.sif_tile_x, h->chip.sif_tile_y);
  if (h->set.hosts > 1) { /* rccerun --hosts: host h of this list runs the UEs marked "host": h */
    fprintf(f, ",\n    \"hosts\": [");
    for (int i = 0; i < h->set.hosts; i++) {
      fputs(i ? ", " : "", f);
      json_string(f, o->host_names[i]);
    }
    fputc(']', f);
  }
  json_number(f, ",\n    ", "host_seconds", "%.6f", host_s);
  for (size_t i = 0; i < launch_option_count; i++)
    if (launch_option_rows[i].json) write_option(f, &launch_option_rows[i], o, job);
  if (h->set.model) {
    fprintf(f, ",\n    \"computation\": \"%s\",\n    \"host_clock\": \"%s\"",
            summary_all_counted(job) ? "counted" : "host-time", h->set.oversubscribed ? "thread-cpu" : "wall");
    json_number(f, ",\n    ", "compute_slowdown", "%.6g", h->chip.time.compute_slowdown);
  }
  fprintf(f, "\n  },\n");
}

/* An MPI job's UE: its channel's statistics (mpi_shared.h; docs/mpi-channel.md "Statistics"). */
static void write_mpi_statistics(FILE *f, const struct mpi_ue_shared *m) {
  fprintf(f,
          ", \"mpi\": {\"packets_sent\": %llu, \"bytes_sent\": %llu, \"packets_recv\": %llu, \"bytes_recv\": %llu, "
          "\"rounds_sent\": %llu, \"rounds_recv\": %llu, \"gews_rounds\": %llu, \"gews_chunks\": %llu, "
          "\"ews_busy\": %llu, \"rma_requests\": %llu, \"rma_served\": %llu}",
          (unsigned long long)m->packets_sent, (unsigned long long)m->bytes_sent, (unsigned long long)m->packets_recv,
          (unsigned long long)m->bytes_recv, (unsigned long long)m->rounds_sent, (unsigned long long)m->rounds_recv,
          (unsigned long long)m->gews_rounds, (unsigned long long)m->gews_chunks, (unsigned long long)m->ews_busy,
          (unsigned long long)m->rma_requests, (unsigned long long)m->rma_served);
}

static void write_ue(FILE *f, const struct hw_job *job, uint32_t u) {
  const struct hw_header *h = job->hdr;
  const struct hw_ue *ue = hw_ue(job, (int)u);
  const struct rcce_ue_counters *k = &rcce_ue_shared_of(job, (int)u)->counters;
  const struct mailbox_ue_shared *mb = mailbox_ue_shared_of(job, (int)u);
  const struct svm_ue_shared *svm = svm_ue_shared_of(job, (int)u);
  struct chip_core_pos pos = chip_core_pos(&h->chip, ue->core);
  fprintf(f,
          "    {\"ue\": %u, \"core\": %d, \"board\": %d, \"tile\": [%d, %d], \"puts\": %llu, \"put_bytes\": %llu, "
          "\"gets\": %llu, \"get_bytes\": %llu, \"flag_writes\": %llu, \"barriers\": %llu, \"sleeps\": %llu",
          u, ue->core, pos.board, pos.x, pos.y, (unsigned long long)k->puts, (unsigned long long)k->put_bytes,
          (unsigned long long)k->gets, (unsigned long long)k->get_bytes, (unsigned long long)k->flag_writes,
          (unsigned long long)k->barriers, (unsigned long long)ue->sleeps);
  if (h->set.hosts > 1) fprintf(f, ", \"host\": %d", hw_host_of_core(job, ue->core));
  if (h->set.trace_level >= HW_TRACE_MESSAGES || h->set.model)
    fprintf(f, ", \"msgs_sent\": %llu, \"bytes_sent\": %llu, \"msgs_recv\": %llu, \"bytes_recv\": %llu",
            (unsigned long long)k->msgs_sent, (unsigned long long)k->bytes_sent, (unsigned long long)k->msgs_recv,
            (unsigned long long)k->bytes_recv);
  if (h->set.trace_level >= HW_TRACE_SIZES)
    fprintf(f, ", \"events\": %llu, \"events_dropped\": %llu", (unsigned long long)hw_trace(job, (int)u)->n_events,
            (unsigned long long)(hw_trace(job, (int)u)->n_events > h->trace_capacity
                                     ? hw_trace(job, (int)u)->n_events - h->trace_capacity
                                     : 0));
  if (mb->state != MAILBOX_UE_NONE)
    fprintf(f, ", \"mails_sent\": %llu, \"mails_recv\": %llu, \"doorbells\": %llu, \"interrupts\": %llu",
            (unsigned long long)mb->mails_sent, (unsigned long long)mb->mails_recv, (unsigned long long)mb->doorbells,
            (unsigned long long)mb->interrupts);
  if (svm->on)
    fprintf(f,
            ", \"svm_faults\": %llu, \"svm_frames\": %llu, \"svm_acquired\": %llu, \"svm_served\": %llu, "
            "\"svm_forwarded\": %llu",
            (unsigned long long)svm->faults, (unsigned long long)svm->frames, (unsigned long long)svm->acquired,
            (unsigned long long)svm->served, (unsigned long long)svm->forwarded);
  if (h->set.mpi_channel != HW_MPI_CHANNEL_NONE) write_mpi_statistics(f, mpi_ue_shared_of(job, (int)u));
  if ((int)u >= HW_PROGRAM_UES(h)) {
    const struct copy_ue_shared *cp = copy_ue_shared_of(job, (int)u);
    fprintf(f, ", \"copy_core\": true, \"copy_requests\": %llu, \"copy_bytes\": %llu", (unsigned long long)cp->requests,
            (unsigned long long)cp->bytes);
  }
  if (h->set.model) {
    const struct timing_vclock *c = timing_clock_of(job, (int)u);
    json_number(f, ", ", "seconds", "%.9g", secs(c->now_ps));
    json_number(f, ", ", "compute_s", "%.9g", secs(c->compute_ps));
    json_number(f, ", ", "comm_s", "%.9g", secs(c->comm_ps));
    json_number(f, ", ", "wait_s", "%.9g", secs(c->wait_ps));
    json_number(f, ", ", "dynamic_j", "%.9g", c->dynamic_j);
    fprintf(f, ", \"ddr_reads\": %llu, \"ddr_writes\": %llu, \"clock_reads\": %llu", (unsigned long long)c->ddr_reads,
            (unsigned long long)c->ddr_writes, (unsigned long long)c->clock_reads);
    fprintf(f, ", \"l1_read_misses\": %llu, \"l2_read_misses\": %llu, \"l1_write_misses\": %llu, \"write_backs\": %llu",
            (unsigned long long)c->l1_read_misses, (unsigned long long)c->l2_read_misses,
            (unsigned long long)c->l1_write_misses, (unsigned long long)c->write_backs);
    json_number(f, ", ", "cache_wait_s", "%.9g", secs(c->cache_wait_ps));
    if (c->clock_reads) {
      json_number(f, ", ", "first_read_s", "%.9g", secs(c->first_read_ps));
      json_number(f, ", ", "last_read_s", "%.9g", secs(c->last_read_ps));
    }
  }
  fprintf(f, "}%s\n", u + 1 < h->nue ? "," : "");
}

/* "name": {...} of an interval's time and energy; the start only for a
 * part of the job. */
static void write_energy(FILE *f, const char *name, const struct timing_energy *e, int with_start) {
  const char *const names[] = {"start_s", "seconds",   "energy_j", "average_w",
                               "edp_js",  "dynamic_j", "static_j", "uncore_j"};
  const double values[] = {e->start_s, e->seconds,   e->energy_j, e->average_w,
                           e->edp_js,  e->dynamic_j, e->static_j, e->uncore_j};
  size_t first = with_start ? 0 : 1;
  fprintf(f, "  \"%s\": {", name);
  for (size_t i = first; i < sizeof values / sizeof values[0]; i++)
    json_number(f, i == first ? "\n    " : ",\n    ", names[i], "%.9g", values[i]);
  fprintf(f, "\n  },\n");
}

void summary_json_write(FILE *f, const struct launch_options *o, const struct hw_job *job, const char *id,
                        double host_s, const struct timing_energy *e, const struct timing_energy *region,
                        const struct summary_files *files) {
  fprintf(f, "{\n  \"schema\": \"openscc-summary\",\n  \"version\": %d,\n", SUMMARY_VERSION);
  write_job(f, o, job, id, host_s);
  if (e) write_energy(f, "chip_totals", e, 0);
  if (region) write_energy(f, "measured_region", region, 1);
  fprintf(f, "  \"ues\": [\n");
  for (uint32_t u = 0; u < job->hdr->nue; u++) write_ue(f, job, u);
  fprintf(f, "  ],\n  \"files\": {");
  const char *sep = "";
  if (files->comm_matrix) fprintf(f, "%s\"comm_matrix\": \"comm_matrix.csv\"", sep), sep = ", ";
  if (files->message_sizes) fprintf(f, "%s\"message_sizes\": \"message_sizes.csv\"", sep), sep = ", ";
  if (files->trace) fprintf(f, "%s\"trace\": \"trace.json\"", sep), sep = ", ";
  if (files->power) {
    fprintf(f, "%s\"power\": \"power.csv\"", sep);
    json_number(f, ", ", "power_bucket_s", "%.9g", files->power_bucket_s);
  }
  fprintf(f, "}\n}\n");
}

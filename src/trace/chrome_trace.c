/* trace.json: the timeline level's events in the Chrome trace-event format
 * (opens in ui.perfetto.dev and chrome://tracing): one track per UE, each
 * runtime call a slice, each message an arrow (flow) from the send to the
 * receive.  Times are the virtual clock in model mode, else the host clock;
 * every slice carries both in its args.  A sender's k-th message to a peer
 * is that peer's k-th message from it: messages of a pair stay in order. */
#include <stdio.h>
#include <stdlib.h>

#include "../hw/hosts.h"
#include "trace_export.h"

struct exporter {
  FILE *f;
  const struct hw_job *j;
  uint64_t ticks1, ns1; /* the clock's second reference point (hw_trace_ns) */
  double host0;         /* earliest host time of the job's events, ns */
  int model, first;
  uint64_t *sent, *received; /* per (src, dst): messages seen so far */
};

static double host_ns(const struct exporter *x, const struct hw_trace_event *e) {
  return hw_trace_ns(x->j, e->host_ticks, x->ticks1, x->ns1);
}

static double ts_us(const struct exporter *x, const struct hw_trace_event *e) {
  return x->model ? (double)e->virt_ps * 1e-6 : (host_ns(x, e) - x->host0) * 1e-3;
}

static void begin_event(struct exporter *x) {
  fputs(x->first ? "\n" : ",\n", x->f);
  x->first = 0;
}

static void name_tracks(struct exporter *x) {
  begin_event(x);
  fprintf(x->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"SCC chip %s (%s time)\"}}",
          x->j->hdr->chip.name, x->model ? "virtual" : "host");
  for (uint32_t u = 0; u < x->j->hdr->nue; u++) {
    int core = hw_ue(x->j, (int)u)->core;
    struct chip_core_pos p = chip_core_pos(&x->j->hdr->chip, core);
    char board[48] = ""; /* named only when there are several (and the host with --hosts) */
    if (x->j->hdr->set.hosts > 1)
      snprintf(board, sizeof board, "board %d, host %d, ", p.board, hw_host_of_core(x->j, core));
    else if (x->j->hdr->chip.boards > 1) snprintf(board, sizeof board, "board %d, ", p.board);
    begin_event(x);
    fprintf(x->f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%u,"
            "\"args\":{\"name\":\"UE %u (core %d, %stile %d,%d)\"}}",
            u, u, core, board, p.x, p.y);
  }
}

static void call_event(struct exporter *x, int ue, const struct hw_trace_event *e) {
  const struct hw_trace_ue *t = hw_trace(x->j, ue);
  const char *name = e->arg >= 0 && (uint32_t)e->arg < t->n_names ? t->names[e->arg] : "?";
  begin_event(x);
  fprintf(x->f,
          "{\"name\":\"%s\",\"cat\":\"rcce\",\"ph\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%.6f,"
          "\"args\":{\"host_ns\":%.0f,\"virtual_ps\":%llu}}",
          name, e->kind == HW_EV_CALL ? "B" : "E", ue, ts_us(x, e), host_ns(x, e), (unsigned long long)e->virt_ps);
}

static void message_event(struct exporter *x, int ue, const struct hw_trace_event *e) {
  uint64_t nue = x->j->hdr->nue;
  int sending = e->kind == HW_EV_SEND;
  uint64_t pair = sending ? (uint64_t)ue * nue + (uint64_t)e->arg : (uint64_t)e->arg * nue + (uint64_t)ue;
  uint64_t k = sending ? x->sent[pair]++ : x->received[pair]++;
  double ts = ts_us(x, e);
  begin_event(x);
  fprintf(x->f,
          "{\"name\":\"%s\",\"cat\":\"message\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":%d,\"ts\":%.6f,"
          "\"args\":{\"%s\":%d,\"bytes\":%llu}}",
          sending ? "send" : "receive", ue, ts, sending ? "to" : "from", e->arg, (unsigned long long)e->size);
  begin_event(x);
  fprintf(
      x->f, "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"%s\",%s\"id\":%llu,\"pid\":0,\"tid\":%d,\"ts\":%.6f}",
      sending ? "s" : "f", sending ? "" : "\"bp\":\"e\",", (unsigned long long)((pair << 20) | (k & 0xfffff)), ue, ts);
}

int trace_write_chrome(const struct hw_job *j, const char *path) {
  uint64_t nue = j->hdr->nue;
  struct exporter x = {.j = j, .model = j->hdr->set.model, .first = 1, .host0 = 1e300};
  x.ticks1 = hw_trace_clock();
  x.ns1 = hw_trace_monotonic_ns();
  x.sent = calloc(nue * nue, sizeof *x.sent);
  x.received = calloc(nue * nue, sizeof *x.received);
  x.f = x.sent && x.received ? fopen(path, "w") : NULL;
  if (!x.f) {
    free(x.sent), free(x.received);
    return -1;
  }
  for (uint32_t u = 0; u < nue; u++)
    if (trace_kept_events(j, (int)u) && host_ns(&x, &hw_trace_events(j, (int)u)[0]) < x.host0)
      x.host0 = host_ns(&x, &hw_trace_events(j, (int)u)[0]);
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x.f);
  name_tracks(&x);
  for (uint32_t u = 0; u < nue; u++) {
    const struct hw_trace_event *e = hw_trace_events(j, (int)u);
    for (uint64_t i = 0; i < trace_kept_events(j, (int)u); i++)
      (e[i].kind == HW_EV_CALL || e[i].kind == HW_EV_RETURN ? call_event : message_event)(&x, (int)u, &e[i]);
  }
  fputs("\n]}\n", x.f);
  free(x.sent), free(x.received);
  return fclose(x.f);
}

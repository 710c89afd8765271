/* message_sizes.csv: how many messages of each size were sent ([FURST-2011]'s
 * "message size" level), from the senders' event logs. */
#include <stdio.h>
#include <stdlib.h>

#include "trace_export.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int trace_write_message_sizes(const struct hw_job *j, const char *path) {
  uint64_t n = 0;
  for (uint32_t u = 0; u < j->hdr->nue; u++) n += trace_kept_events(j, (int)u);
  uint64_t *sizes = malloc((n ? n : 1) * sizeof *sizes), m = 0;
  FILE *f = sizes ? fopen(path, "w") : NULL;
  if (!f) {
    free(sizes);
    return -1;
  }
  for (uint32_t u = 0; u < j->hdr->nue; u++) {
    const struct hw_trace_event *e = hw_trace_events(j, (int)u);
    for (uint64_t i = 0; i < trace_kept_events(j, (int)u); i++)
      if (e[i].kind == HW_EV_SEND) sizes[m++] = e[i].size;
  }
  qsort(sizes, m, sizeof *sizes, cmp_u64);
  fprintf(f, "bytes,messages\n");
  for (uint64_t i = 0; i < m;) {
    uint64_t k = i;
    while (k < m && sizes[k] == sizes[i]) k++;
    fprintf(f, "%llu,%llu\n", (unsigned long long)sizes[i], (unsigned long long)(k - i));
    i = k;
  }
  free(sizes);
  return fclose(f);
}

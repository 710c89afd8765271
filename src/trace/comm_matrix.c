/* comm_matrix.csv: who sent how much to whom ([FURST-2011]'s "message target"
 * level), from the senders' counts per destination. */
#include <stdio.h>

#include "trace_export.h"

int trace_write_comm_matrix(const struct hw_job *j, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "src,dst,messages,bytes\n");
  for (uint32_t s = 0; s < j->hdr->nue; s++) {
    const uint64_t *msgs = hw_trace_msgs_to(j, (int)s), *bytes = hw_trace_bytes_to(j, (int)s);
    for (uint32_t d = 0; d < j->hdr->nue; d++)
      if (msgs[d]) fprintf(f, "%u,%u,%llu,%llu\n", s, d, (unsigned long long)msgs[d], (unsigned long long)bytes[d]);
  }
  return fclose(f);
}

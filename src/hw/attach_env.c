/* hw_job_attach_env: a UE process attaches to its job from the environment
 * rccerun (or the MPI rank wrapper) gave it -- shared by RCCE_init and the
 * libfabric provider (docs/rccerun.md, "Environment"). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "../chip/text_input.h"
#include "hosts.h"
#include "segment.h"

/* A number rccerun put in the environment, checked whole: "NAME must be WHAT
 * (set by rccerun), got 'TEXT'".  Returns it, or -1 with err set. */
static int env_number(const char *name, const char *text, long long max, const char *what, char *err, size_t errlen) {
  long long v;
  if (chip_text_parse_int(text, 0, max, &v) == 0) return (int)v;
  snprintf(err, errlen, "%s must be %s (set by rccerun), got '%.64s'", name, what, text);
  return -1;
}

int hw_job_attach_env(struct hw_job *job, int *ue, char *err, size_t errlen) {
  const char *fd_s = getenv("OPENSCC_SHM_FD"), *ue_s = getenv("OPENSCC_UE");
  *ue = -1;
  if (!fd_s || !ue_s) return 1;
  /* The UE number first, so that every later failure names the UE. */
  *ue = env_number("OPENSCC_UE", ue_s, HW_MAX_UES - 1, "a UE number", err, errlen);
  if (*ue < 0) return -1;
  int fd = env_number("OPENSCC_SHM_FD", fd_s, INT_MAX, "a file descriptor number", err, errlen);
  if (fd < 0 || hw_job_attach(fd, job, err, errlen) != 0) return -1;
  hw_hosts_set_self(*ue);
  if (*ue >= (int)job->hdr->nue) {
    char ues[64];
    snprintf(ues, sizeof ues, "a UE number from 0 to %u", job->hdr->nue - 1);
    env_number("OPENSCC_UE", ue_s, (long long)job->hdr->nue - 1, ues, err, errlen);
    hw_job_detach(job);
    return -1;
  }
  return 0;
}

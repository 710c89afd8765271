/* Where rccerun's own files are (own_dir.h). */
#include "own_dir.h"

#include <libgen.h>
#include <stdio.h>
#include <unistd.h>

int launch_own_directory(char *out, size_t len) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return -1;
  self[n] = '\0';
  snprintf(out, len, "%s", dirname(self));
  return 0;
}

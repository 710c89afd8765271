/* Strict parsing of user input (text_input.h). */
#define _GNU_SOURCE /* getline, O_CLOEXEC */
#include "text_input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int chip_text_parse_int(const char *s, long long min, long long max, long long *out) {
  /* strtoll would skip leading spaces and take "+5" or "-5" into an
   * unsigned-looking value; only a digit, or '-' and a digit, may start. */
  const char *digits = s[0] == '-' ? s + 1 : s;
  if (!isdigit((unsigned char)digits[0])) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int chip_text_parse_double(const char *s, double min, double max, double *out) {
  const char *num = s[0] == '-' || s[0] == '+' ? s + 1 : s;
  if (!isdigit((unsigned char)num[0]) && !(num[0] == '.' && isdigit((unsigned char)num[1]))) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  /* ERANGE: overflow to infinity or underflow to (nearly) zero. */
  if (errno || *end || !isfinite(v) || !(v >= min && v <= max)) return -1;
  *out = v;
  return 0;
}

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

int chip_text_file_open(struct text_file *tf, const char *path, const char *what, char *err, size_t errlen) {
  memset(tf, 0, sizeof *tf);
  tf->path = path;
  /* O_NONBLOCK: opening a FIFO without a writer returns at once, so it can
   * be refused below instead of hanging rccerun before supervision starts. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(err, errlen, "cannot open %s '%s': %s", what, path, strerror(errno));
    return -1;
  }
  struct stat st = {0};
  int is_regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (is_regular) tf->f = fdopen(fd, "r");
  if (tf->f) return 0;
  if (is_regular) snprintf(err, errlen, "cannot read %s '%s': %s", what, path, strerror(errno));
  else snprintf(err, errlen, "%s '%s' is %s, not a regular file", what, path, file_kind(st.st_mode));
  close(fd);
  return -1;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

int chip_text_file_line(struct text_file *tf, char **line, char *err, size_t errlen) {
  errno = 0;
  ssize_t n = getline(&tf->buf, &tf->cap, tf->f);
  if (n < 0) {
    if (!ferror(tf->f) && errno != ENOMEM) return 0;
    snprintf(err, errlen, "%s:%d: cannot read: %s", tf->path, tf->lineno + 1, strerror(errno ? errno : EIO));
    return -1;
  }
  tf->lineno++;
  /* A NUL byte would silently end the line for every string function. */
  if ((size_t)n != strlen(tf->buf)) {
    snprintf(err, errlen, "%s:%d: contains a NUL byte (not a text file)", tf->path, tf->lineno);
    return -1;
  }
  char *hash = strchr(tf->buf, '#');
  if (hash) *hash = '\0';
  *line = trim(tf->buf);
  return 1;
}

void chip_text_file_close(struct text_file *tf) {
  if (tf->f) fclose(tf->f);
  free(tf->buf);
  memset(tf, 0, sizeof *tf);
}

/* Strict parsing of what the user types or writes: numbers of chip files,
 * parametric chip names, hostfiles and rccerun's option values, and the
 * line-oriented files themselves (chip files, hostfiles).  Every failure is
 * reported, never truncated or wrapped: lines have no length limit (getline),
 * numbers no silent overflow, and only regular files are read. */
#ifndef OPENSCC_CHIP_TEXT_INPUT_H
#define OPENSCC_CHIP_TEXT_INPUT_H

#include <stdio.h>

/* A decimal integer from min to max, nothing else around it (no spaces, no
 * sign where min >= 0).  Returns 0, or -1 leaving *out alone. */
int chip_text_parse_int(const char *s, long long min, long long max, long long *out);

/* A finite decimal number from min to max ("nan", "inf" and values that
 * overflow a double are refused).  Returns 0, or -1 leaving *out alone. */
int chip_text_parse_double(const char *s, double min, double max, double *out);

/* A text file read line by line; `#` starts a comment. */
struct text_file {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  int lineno; /* of the line last returned */
};

/* Open path, which must be a regular file ("what" names it in messages, e.g.
 * "chip file").  A FIFO or a device would block rccerun before it supervises
 * anything, so it is refused without reading from it.  Returns 0, or -1 with
 * a message in err. */
int chip_text_file_open(struct text_file *tf, const char *path, const char *what, char *err, size_t errlen);

/* The next line without its comment and surrounding white space (possibly
 * empty): returns 1 with *line set (valid until the next call), 0 at the end
 * of the file, -1 with "PATH:LINE: ..." in err (a NUL byte, a read error). */
int chip_text_file_line(struct text_file *tf, char **line, char *err, size_t errlen);

void chip_text_file_close(struct text_file *tf);

#endif

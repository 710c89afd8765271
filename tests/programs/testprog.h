/* testprog.h - helpers shared by the test programs (header-only, so each
 * program stays one .c file compiled with rccecc). */
#ifndef OPENSCC_TESTPROG_H
#define OPENSCC_TESTPROG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by the program: its name and this UE's number, for failure lines. */
static const char *testprog_name = "test";
static int testprog_ue = -1;

/* Print "NAME: UE n: message" in one write (lines of several UEs must not
 * mix) and exit 1. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, unused));
static void fail(const char *fmt, ...) {
  char line[600];
  int n = snprintf(line, sizeof line, "%s: UE %d: ", testprog_name, testprog_ue);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n - 2, fmt, ap);
  va_end(ap);
  strcat(line, "\n");
  fputs(line, stderr);
  fflush(NULL);
  exit(1);
}

#endif

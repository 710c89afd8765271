/* Minimal assertions for the C unit tests: count failures, report, exit code. */
#ifndef OPENSCC_UNIT_H
#define OPENSCC_UNIT_H
#include <stdio.h>
#include <unistd.h>

static int unit_failures, unit_checks;

#define CHECK(cond)                                                            \
  do {                                                                         \
    unit_checks++;                                                             \
    if (!(cond)) {                                                             \
      unit_failures++;                                                         \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_EQ(a, b)                                                                         \
  do {                                                                                         \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
    unit_checks++;                                                                             \
    if (va_ != vb_) {                                                                          \
      unit_failures++;                                                                         \
      fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, va_, vb_); \
    }                                                                                          \
  } while (0)

static inline int unit_report(const char *name) {
  printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
  return unit_failures ? 1 : 0;
}
#endif

/* rccerun's options and environment knobs, one row each (docs/rccerun.md):
 * the row drives parsing, --help, the field of the job's settings it writes
 * and, where it has a key, the `job` section of summary.json.  Adding an
 * option touches one place: its row (plus the field it writes). */
#ifndef OPENSCC_LAUNCH_OPTION_TABLE_H
#define OPENSCC_LAUNCH_OPTION_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

enum launch_arg {
  LAUNCH_ARG_HELP,   /* prints --help */
  LAUNCH_ARG_FLAG,   /* no value: stores the row's value; the default is its opposite */
  LAUNCH_ARG_INT,    /* an integer from lo to hi */
  LAUNCH_ARG_NUMBER, /* a finite number from lo to hi (above lo when lo_open) */
  LAUNCH_ARG_SIZE,   /* bytes with a K/M/G/T suffix, 1 byte to 1T */
  LAUNCH_ARG_CHOICE, /* one of choices[]: stores its value */
  LAUNCH_ARG_TEXT,   /* text kept for its own parser, run once the chip is known (options.c) */
};

enum launch_group {
  LAUNCH_GROUP_JOB,
  LAUNCH_GROUP_MESSAGES,
  LAUNCH_GROUP_MODEL,
  LAUNCH_GROUP_OUTPUT,
  LAUNCH_GROUP_ENV
};

struct launch_choice {
  const char *name;
  int value;
};

struct launch_option {
  const char *names[2]; /* command-line spellings; the first one names the option in errors */
  const char *env;      /* or: the environment variable read */
  enum launch_group group;
  enum launch_arg kind;
  const char *arg;                       /* the value's name in --help (choices list their names) */
  double lo, hi;                         /* INT, NUMBER */
  int lo_open;                           /* NUMBER: lo itself is out of range */
  void (*range)(double *lo, double *hi); /* NUMBER: a range known only at run time */
  const char *unit; /* in errors: "a number of <unit> from lo to hi", TEXT: what an empty value lacks */
  const char *note; /* after the range in errors, e.g. "a year" */
  const struct launch_choice *choices; /* CHOICE: ends with a NULL name */
  long value;                          /* FLAG: stored when given */
  const char *def;                     /* the default, written as the value would be; parsed like it */
  long unset;                          /* INT, NUMBER without def: the field's value when not given */
  const char *help;
  size_t offset, size; /* the field written, in struct launch_options */
  const char *json;    /* key in summary.json's job section, or NULL */
  /* The value the job ran with when it differs from the option's (e.g. --flags' default). */
  const char *(*json_in_effect)(const struct hw_job *job);
};

extern const struct launch_option launch_option_rows[];
extern const size_t launch_option_count;

/* "rccerun: MESSAGE\n(see rccerun --help)\n" on stderr; returns -1. */
int launch_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The row spelled `name` on the command line, or NULL. */
const struct launch_option *launch_option_named(const char *name);
/* Every field written by a row gets its default. */
void launch_option_defaults(struct launch_options *o);
/* Parse a row's value into its field; on error print it (launch_fail) and return -1. */
int launch_option_parse(const struct launch_option *r, const char *text, struct launch_options *o);
/* Parse the environment knobs that are set; -1 after an error message. */
int launch_option_environment(struct launch_options *o);
/* The integer a FLAG or CHOICE row wrote. */
long launch_option_int(const struct launch_option *r, const struct launch_options *o);
/* A CHOICE row's name for value, or NULL. */
const char *launch_option_choice_name(const struct launch_option *r, long value);
/* rccerun --help, generated from the rows. */
void launch_option_help(FILE *f);

#endif

/* RCCE error strings and debug printing (RCCE_error_string, RCCE_debug_set),
 * and the library's one exit (rcce_fatal).  Conventions: docs/errors.md. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rcce_internal.h"

int RCCE_debug_synch, RCCE_debug_comm, RCCE_debug_debug, RCCE_debug_RPC;

/* RCCE's own texts (RCCE_debug.c), so programs print what they printed on the SCC. */
static const char *const error_text[] = {
    "Success",
    "Invalid target buffer",
    "Invalid source buffer",
    "Invalid UE ID",
    "Invalid message length",
    "Flag variable undefined",
    "Emulated NUEs do not match requested NUEs",
    "Message buffers overlap in comm buffer",
    "Data buffer misalignment",
    "Debug flag not defined",
    "RCCE_flag variable not inside comm buffer",
    "Flag status not defined",
    "Flag not allocated",
    "Value not defined",
    "Invalid error code",
    "RPC data structure not allocated",
    "RPC internal error",
    "Multiple outstanding RPC requests",
    "Invalid power step",
    "Maximum allowable frequency exceeded",
    "No active RPC request",
    "Stale RPC request",
    "Communicator undefined",
    "Illegal reduction operator",
    "Illegal data type",
    "Memory allocation error",
    "Communicator initialization error",
    "Core not in host file",
    "No multicast support",
};

/* iRCCE's own codes are small negative numbers (iRCCE.h). */
static const char *const ircce_text[] = {"iRCCE error", "iRCCE request pending", "iRCCE reserved",
                                         "iRCCE request not enqueued"};

static const char *text_of(int err) {
  if (err == RCCE_SUCCESS) return error_text[0];
  int i = err - RCCE_ERROR_BASE;
  if (i < 1 || i >= (int)(sizeof error_text / sizeof error_text[0])) return NULL;
  return error_text[i];
}

int RCCE_error_string(int err_no, char *error_string, int *string_length) {
  const char *t = text_of(err_no);
  int rc = RCCE_SUCCESS;
  if (!t) {
    t = error_text[RCCE_ERROR_INVALID_ERROR_CODE - RCCE_ERROR_BASE];
    rc = rcce_error(RCCE_DEBUG_DEBUG, RCCE_ERROR_INVALID_ERROR_CODE, "RCCE_error_string", "code %d", err_no);
  }
  if (error_string) {
    strncpy(error_string, t, RCCE_MAX_ERROR_STRING);
    error_string[RCCE_MAX_ERROR_STRING - 1] = '\0';
  }
  if (string_length) *string_length = (int)strlen(t);
  return rc;
}

static int *debug_var(int level) {
  switch (level) {
    case RCCE_DEBUG_SYNCH: return &RCCE_debug_synch;
    case RCCE_DEBUG_COMM: return &RCCE_debug_comm;
    case RCCE_DEBUG_DEBUG: return &RCCE_debug_debug;
    case RCCE_DEBUG_RPC: return &RCCE_debug_RPC;
    default: return NULL;
  }
}

static int debug_change(int level, int on, const char *where) {
  if (level == RCCE_DEBUG_ALL) {
    RCCE_debug_synch = RCCE_debug_comm = RCCE_debug_debug = RCCE_debug_RPC = on;
    return RCCE_SUCCESS;
  }
  int *v = debug_var(level);
  if (!v) return rcce_error(RCCE_DEBUG_DEBUG, RCCE_ERROR_DEBUG_FLAG, where, "level %d", level);
  *v = on;
  return RCCE_SUCCESS;
}

int RCCE_debug_set(int level) { return debug_change(level, 1, "RCCE_debug_set"); }
int RCCE_debug_unset(int level) { return debug_change(level, 0, "RCCE_debug_unset"); }

int rcce_error(int category, int code, const char *where, const char *detail_fmt, ...) {
  int *v = debug_var(category);
  if (v && *v) {
    char detail[160];
    va_list ap;
    va_start(ap, detail_fmt);
    vsnprintf(detail, sizeof detail, detail_fmt, ap);
    va_end(ap);
    const char *t = code >= -4 && code <= -1 ? ircce_text[-code - 1] : text_of(code);
    fprintf(stderr, "RCCE error on UE %d (core %d) in %s: %s (%d): %s\n", rcce_g.ue, rcce_g.core, where, t ? t : "?",
            code, detail);
    fflush(stderr);
  }
  return code;
}

/* API misuse in the layers above (mailbox, SVM) is reported like RCCE's own
 * (RCCE_error_return in RCCE_debug.c): the code is returned, and the line
 * printed only while the communication debug level is set (RCCE_debug_set,
 * rccerun --debug).  docs/errors.md, "API misuse". */
int rcce_report(int code, const char *where, const char *fmt, ...) {
  if (!RCCE_debug_comm) return code;
  char detail[256], line[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  if (rcce_g.ue < 0) snprintf(line, sizeof line, "%s before RCCE_init: %s\n", where, detail);
  else snprintf(line, sizeof line, "%s on UE %d: %s\n", where, rcce_g.ue, detail);
  fputs(line, stderr); /* one write, so lines of several UEs do not mix */
  return code;
}

/* Inside SVM's page-fault handler SIGSEGV is blocked (the handler runs
 * without SA_NODEFER); only async-signal-safe calls are allowed there
 * (POSIX signal-safety(7)), so stdio must not be flushed. */
static int in_fault_handler(void) {
  sigset_t blocked;
  return pthread_sigmask(SIG_BLOCK, NULL, &blocked) == 0 && sigismember(&blocked, SIGSEGV) == 1;
}

/* The only exit inside the library (docs/errors.md, "Fatal errors"): one
 * line "WHAT on UE n: CAUSE", written at once so lines of several UEs do not
 * mix, then the UE ends with RCCE_FATAL_STATUS, which rccerun reports as
 * "UE n (core c) exited with status 1". */
void rcce_fatal(const char *what, const char *fmt, ...) {
  char line[512];
  int n = snprintf(line, sizeof line, "%s on UE %d: ", what, rcce_g.ue);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  strcat(line, "\n");
  if (!in_fault_handler()) fflush(NULL);  /* keep what the program printed before */
  if (write(2, line, strlen(line)) < 0) { /* stderr is gone: the exit status still tells */
  }
  _exit(RCCE_FATAL_STATUS);
}

int rcce_check_ue(int ue, const char *where) {
  if (ue < 0 || ue >= rcce_g.nue)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, where, "UE %d is not in 0..%d", ue, rcce_g.nue - 1);
  return RCCE_SUCCESS;
}

int rcce_length_error(const char *where, int src, size_t has, size_t want) {
  return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, where,
                    "the message from UE %d has %zu bytes, the receive expects %zu", src, has, want);
}

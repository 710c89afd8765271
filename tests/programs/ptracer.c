/*
 * ptracer.c - whom a UE lets read its memory (Yama's PR_SET_PTRACER).
 *
 * usage: ptracer
 * The program defines prctl itself, so the runtime's calls (librcce.a is
 * linked into it) land here: each PR_SET_PTRACER is recorded, then passed on
 * to the kernel.  Without Yama the kernel keeps no trace of it, so this is the
 * only place to observe it.  After RCCE_init every UE prints
 *   "ptracer: UE n declared none" | "... declared rccerun" | "... declared any" | "... declared pid P"
 * (rccerun is the UE's parent).  Then UE 0 sends UE 1 its pid and the address
 * of a buffer, and UE 1 prints whether process_vm_readv of it worked:
 *   "ptracer: UE 1 read UE 0: ok" | "ptracer: UE 1 read UE 0: errno E (TEXT)"
 * (it works everywhere when Yama's ptrace_scope is 0 or Yama is absent).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "RCCE.h"

static int ptracer_calls;
static unsigned long declared;

int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long), a4 = va_arg(ap, unsigned long),
                a5 = va_arg(ap, unsigned long);
  va_end(ap);
  if (option == PR_SET_PTRACER) {
    ptracer_calls++;
    declared = a2;
  }
  return (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
}

static void print_declared(void) {
  int me = RCCE_ue();
  if (!ptracer_calls) printf("ptracer: UE %d declared none\n", me);
  else if (declared == (unsigned long)PR_SET_PTRACER_ANY) printf("ptracer: UE %d declared any\n", me);
  else if (declared == (unsigned long)getppid()) printf("ptracer: UE %d declared rccerun\n", me);
  else printf("ptracer: UE %d declared pid %lu\n", me, declared);
  fflush(stdout);
}

static char secret[64] = "the memory of UE 0";

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  print_declared();
  int64_t where[2] = {getpid(), (int64_t)(uintptr_t)secret};
  if (RCCE_ue() == 0) RCCE_send((char *)where, sizeof where, 1);
  if (RCCE_ue() == 1) {
    RCCE_recv((char *)where, sizeof where, 0);
    char copy[sizeof secret] = "";
    struct iovec local = {copy, sizeof copy}, remote = {(void *)(uintptr_t)where[1], sizeof copy};
    ssize_t n = process_vm_readv((pid_t)where[0], &local, 1, &remote, 1, 0);
    if (n == (ssize_t)sizeof copy && strcmp(copy, secret) == 0) printf("ptracer: UE 1 read UE 0: ok\n");
    else printf("ptracer: UE 1 read UE 0: errno %d (%s)\n", errno, strerror(errno));
  }
  RCCE_finalize();
  return 0;
}

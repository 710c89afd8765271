/*
 * nocma.c - large messages when the kernel refuses cross-memory attach.
 *
 * usage: nocma [deny_ue=-1]   (-1: every UE)
 * The chosen UEs install a seccomp filter that fails process_vm_readv and
 * process_vm_writev with EPERM before RCCE_init, so the single-copy path of
 * native mode fails and both ends must fall back to MPB chunks.  UE 0 sends
 * messages of 40 KiB .. 1 MiB to every other UE, which checks every byte.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "RCCE.h"

static void deny_cross_memory_attach(void) {
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("nocma: seccomp");
    exit(2);
  }
}

static unsigned char pattern(int dest, size_t size, size_t i) { return (unsigned char)(dest * 31 + size * 7 + i); }

int RCCE_APP(int argc, char **argv) {
  int deny = argc > 1 ? atoi(argv[1]) : -1;
  const char *ue_env = getenv("OPENSCC_UE");
  int me_early = ue_env ? atoi(ue_env) : 0;
  if (deny < 0 || deny == me_early) deny_cross_memory_attach();
  RCCE_init(&argc, &argv);
  int me = RCCE_ue(), np = RCCE_num_ues(), bad = 0;
  static const size_t sizes[] = {40 * 1024, 64 * 1024, 300 * 1024, 1 << 20};
  unsigned char *buf = malloc(1 << 20);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t size = sizes[s];
    for (int dest = 1; dest < np; dest++) {
      if (me == 0) {
        for (size_t i = 0; i < size; i++) buf[i] = pattern(dest, size, i);
        RCCE_send((char *)buf, size, dest);
      } else if (me == dest) {
        memset(buf, 0, size);
        RCCE_recv((char *)buf, size, 0);
        for (size_t i = 0; i < size && !bad; i++)
          if (buf[i] != pattern(dest, size, i)) {
            fprintf(stderr, "nocma: UE %d: byte %zu of a %zu-byte message is wrong\n", me, i, size);
            bad = 1;
          }
      }
    }
  }
  free(buf);
  RCCE_finalize();
  if (me == 0 && !bad) printf("nocma: OK (%d UEs)\n", np);
  return bad;
}

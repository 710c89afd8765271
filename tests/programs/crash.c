/*
 * crash.c - UEs that fail in controlled ways, for rccerun's supervision.
 *
 * usage: crash MODE        (every UE prints "crash: UE n ready" after RCCE_init)
 *   segv             UE 1 writes through a NULL pointer; the others wait in RCCE_recv from UE 1
 *   segv_race        UE 1 sends each other UE its pid, which prints "crash: UE n waits for UE 1 to
 *                    crash" on stderr; after a barrier UE 1 writes through a NULL pointer, the
 *                    others wait until its process is gone and exit with status 4 (failures
 *                    recorded right after the crash)
 *   exit_early       UE 1 returns 0 without RCCE_finalize; UE 0 waits in RCCE_recv from UE 1,
 *                    the others are in RCCE_finalize
 *   exit_status      UE 2 exits with status 3; the others wait in RCCE_recv from UE 2
 *   before_init      UE 1 exits with status 5 before RCCE_init; the others wait in RCCE_init
 *   deadlock         UE 0 and UE 1 both RCCE_recv from each other; the others are in RCCE_finalize
 *   any_source_deadlock  UE 0 waits in an iRCCE receive from any UE; the others are in RCCE_finalize
 *   deadlock_rung    like deadlock, but after UE 0 is asleep, UE 2 sends it a message it does
 *                    not wait for: the flag write wakes UE 0, which goes back to sleep
 *   barrier_deadlock UE 0 skips a barrier the others enter, then waits in RCCE_recv from UE 1
 *   lock_deadlock    UE 0 holds the lock of UE 0 and waits in RCCE_recv from UE 1, which waits
 *                    for that lock; the others are in RCCE_finalize
 *   hang             UE 0 sleeps forever in user code; the others wait in RCCE_recv from UE 0
 *   spin             UE 0 spins forever in user code; the others wait in RCCE_recv from UE 0
 *   sleep_forever    every UE pause()s forever outside the runtime
 *   no_finalize      every UE meets a barrier, then returns 0 without RCCE_finalize
 *   zero_bytes       UE 0 sends and receives 0-byte messages to/from UE 1, which never takes
 *                    part: a 0-byte transfer returns at once (as in RCCE 1.0.13)
 *   mixed            odd UEs call the gory RCCE_init (as if built with -DGORY), even UEs the
 *                    basic one: RCCE_init must stop the job with a message
 *   stdin            UE 0 reads one line from stdin and prints it ("crash: UE 0 read 'LINE'",
 *                    or "crash: UE 0 read EOF")
 *   ok               every UE finishes normally
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "RCCE.h"
#include "iRCCE.h"

/* What RCCE_init becomes under -DGORY (RCCE.h renames it). */
int RCCE_init_gory(int *argc, char ***argv);

static char buf[64];

static void ready(void) {
  printf("crash: UE %d ready\n", RCCE_ue());
  fflush(stdout);
}

static void recv_from(int src) {
  int rc = RCCE_recv(buf, sizeof buf, src);
  /* Reaching this line means the runtime let a receive complete that cannot. */
  printf("crash: UE %d: RCCE_recv from UE %d returned %d\n", RCCE_ue(), src, rc);
  fflush(stdout);
}

/* Not instrumented: under UBSan a NULL store would be reported and turned
   into exit(1) instead of the SIGSEGV this mode is about. */
__attribute__((noinline, no_sanitize_address, no_sanitize_undefined)) static void write_null(volatile int *p) {
  *p = 42;
}

/* The others learn UE 1's pid from it, say so on stderr, meet it in a barrier
 * (so their lines are written before the crash), wait until its parent
 * (rccerun, or the rank wrapper of rccerun --mpi) has reaped it, and fail
 * themselves. */
static void segv_race(int me) {
  int pid = (int)getpid();
  if (me == 1) {
    for (int u = 0; u < RCCE_num_ues(); u++)
      if (u != 1) RCCE_send((char *)&pid, sizeof pid, u);
    RCCE_barrier(&RCCE_COMM_WORLD);
    volatile int *volatile p = NULL;
    write_null(p);
  }
  RCCE_recv((char *)&pid, sizeof pid, 1);
  fprintf(stderr, "crash: UE %d waits for UE 1 to crash\n", me);
  RCCE_barrier(&RCCE_COMM_WORLD);
  while (kill(pid, 0) == 0) usleep(1000);
  usleep(20000); /* after the wrapper has recorded the crash */
  exit(4);
}

int RCCE_APP(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  if (strcmp(mode, "before_init") == 0 && getenv("OPENSCC_UE") && atoi(getenv("OPENSCC_UE")) == 1) exit(5);
  if (strcmp(mode, "mixed") == 0 && getenv("OPENSCC_UE") && atoi(getenv("OPENSCC_UE")) % 2 == 1)
    RCCE_init_gory(&argc, &argv);
  else RCCE_init(&argc, &argv);
  int me = RCCE_ue();
  ready();

  if (strcmp(mode, "segv") == 0) {
    if (me == 1) {
      volatile int *volatile p = NULL;
      write_null(p);
    } else {
      recv_from(1);
    }
  } else if (strcmp(mode, "segv_race") == 0) {
    segv_race(me);
  } else if (strcmp(mode, "exit_early") == 0) {
    if (me == 1) return 0;
    if (me == 0) recv_from(1);
  } else if (strcmp(mode, "exit_status") == 0) {
    if (me == 2) exit(3);
    recv_from(2);
  } else if (strcmp(mode, "before_init") == 0) {
    /* UE 1 never got here */
  } else if (strcmp(mode, "deadlock") == 0) {
    if (me == 0) recv_from(1);
    if (me == 1) recv_from(0);
  } else if (strcmp(mode, "any_source_deadlock") == 0) {
    iRCCE_RECV_REQUEST req;
    if (me == 0 && iRCCE_irecv(buf, 8, iRCCE_ANY_SOURCE, &req) == iRCCE_PENDING) iRCCE_irecv_wait(&req);
  } else if (strcmp(mode, "deadlock_rung") == 0) {
    if (me == 0) recv_from(1);
    if (me == 1) recv_from(0);
    if (me == 2) {
      usleep(300000); /* UE 0 is asleep in RCCE_recv by now */
      RCCE_send(buf, 8, 0);
    }
  } else if (strcmp(mode, "barrier_deadlock") == 0) {
    if (me == 0) recv_from(1);
    else RCCE_barrier(&RCCE_COMM_WORLD);
  } else if (strcmp(mode, "lock_deadlock") == 0) {
    if (me == 0) {
      RCCE_acquire_lock(0);
      RCCE_barrier(&RCCE_COMM_WORLD);
      recv_from(1);
    } else {
      RCCE_barrier(&RCCE_COMM_WORLD);
      if (me == 1) RCCE_acquire_lock(0);
    }
  } else if (strcmp(mode, "hang") == 0) {
    if (me == 0)
      for (;;) sleep(1);
    recv_from(0);
  } else if (strcmp(mode, "spin") == 0) {
    if (me == 0) {
      volatile unsigned long n = 0;
      for (;;) n++;
    }
    recv_from(0);
  } else if (strcmp(mode, "sleep_forever") == 0) {
    for (;;) pause();
  } else if (strcmp(mode, "zero_bytes") == 0) {
    if (me == 0) {
      int rc1 = RCCE_send(buf, 0, 1), rc2 = RCCE_recv(buf, 0, 1), test = -1;
      int rc3 = RCCE_recv_test(buf, 0, 1, &test);
      printf("crash: UE 0: 0-byte RCCE_send %d, RCCE_recv %d, RCCE_recv_test %d (test %d)\n", rc1, rc2, rc3, test);
      fflush(stdout);
    }
  } else if (strcmp(mode, "mixed") == 0) {
    /* RCCE_init should not have returned on every UE */
  } else if (strcmp(mode, "stdin") == 0) {
    if (me == 0) {
      char line[256];
      if (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        printf("crash: UE 0 read '%s'\n", line);
      } else {
        printf("crash: UE 0 read EOF\n");
      }
      fflush(stdout);
    }
  } else if (strcmp(mode, "no_finalize") == 0) {
    RCCE_barrier(&RCCE_COMM_WORLD);
    return 0;
  } else if (strcmp(mode, "ok") != 0) {
    fprintf(stderr, "crash: unknown mode '%s'\n", mode);
    return 2;
  }
  RCCE_finalize();
  if (me == 0) printf("crash: %s finished\n", mode);
  return 0;
}

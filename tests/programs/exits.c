/*
 * exits.c - UEs that end on their own in ways rccerun must not misjudge.
 *
 * usage: exits MODE
 *   last_recv  UE 1 sends UE 0 one message; UE 0 receives it after 20 ms (UE 1 is asleep in
 *              RCCE_send by then) and returns 0 without RCCE_finalize, as Intel's RCCE_share.c:
 *              UE 1's send has completed, so nobody waits for UE 0 (exit 0)
 *   usage      UE 0 prints "exits: usage: exits MODE" and every UE returns 1, as Intel's
 *              examples do on a bad command line
 *   quiet      every UE returns 0 without RCCE_finalize and prints nothing (rccerun warns)
 *   chatter    UE 0 prints "exits: line N" lines (each flushed) until a write fails, then
 *              prints "exits: UE 0: EPIPE" on stderr and returns 3; the others finalize
 *   fatal      every UE prints "exits: before RCCE_init" (not flushed) before RCCE_init; run
 *              so that RCCE_init stops the UE (docs/errors.md), the line must still appear
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "RCCE.h"

static int chatter(void) {
  for (long n = 0;; n++)
    if (printf("exits: line %ld\n", n) < 0 || fflush(stdout) == EOF) break;
  fprintf(stderr, "exits: UE 0: %s\n", errno == EPIPE ? "EPIPE" : strerror(errno));
  return 3;
}

int RCCE_APP(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int x = 42;
  if (strcmp(mode, "fatal") == 0) printf("exits: before RCCE_init\n");
  RCCE_init(&argc, &argv);
  int me = RCCE_ue();
  if (strcmp(mode, "last_recv") == 0) {
    if (me == 1) RCCE_send((char *)&x, sizeof x, 0);
    if (me == 0) {
      usleep(20000);
      RCCE_recv((char *)&x, sizeof x, 1);
    }
    return 0;
  }
  if (strcmp(mode, "quiet") == 0) return 0;
  if (strcmp(mode, "chatter") == 0 && me == 0) return chatter();
  if (strcmp(mode, "chatter") != 0) {
    if (me == 0) printf("exits: usage: exits MODE\n");
    return 1;
  }
  RCCE_finalize();
  return 0;
}

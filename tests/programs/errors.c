/*
 * errors.c - RCCE misuse: every call returns the exact RCCE error code.
 *
 * usage: errors CASE
 *   basic build (plain rccecc):
 *     bad_rank      RCCE_send/RCCE_recv/RCCE_recv_test to RCCE_num_ues(), -1, myself -> RCCE_ERROR_ID
 *     strings       RCCE_error_string of every code 0, BASE+1..BASE+28 (RCCE_SUCCESS) and of
 *                   invalid codes (RCCE_ERROR_INVALID_ERROR_CODE); the texts are printed
 *                   ("errors: RCCE_error_string(CODE) -> RC 'TEXT' (length N)") and checked by
 *                   the test suite
 *     reduce        illegal reduce type/op -> RCCE_ERROR_ILLEGAL_TYPE/OP
 *     bad_root      RCCE_reduce/RCCE_bcast with root RCCE_num_ues() -> RCCE_ERROR_ID
 *     neg_root      RCCE_reduce/RCCE_bcast with root -1 -> RCCE_ERROR_ID
 *     null_buffers  NULL buffers in RCCE_bcast/RCCE_reduce/RCCE_allreduce/iRCCE_mcast/msend/mrecv
 *                   and iRCCE_isend/irecv/ssend/srecv
 *                   -> RCCE_ERROR_SOURCE (read) / RCCE_ERROR_TARGET (written); NULL where no byte
 *                   moves, and a non-root's RCCE_reduce outbuf, are legal
 *     fdivider      RCCE_set_frequency_divider(1) and (17) -> RCCE_ERROR_FDIVIDER on a power-domain
 *                   master, RCCE_SUCCESS on the other UEs (RCCE 1.0.13: only the master acts)
 *     debug_flag    RCCE_debug_set/unset of an unknown level -> RCCE_ERROR_DEBUG_FLAG
 *     comm          RCCE_barrier/RCCE_comm_size/RCCE_comm_rank of an uninitialised communicator
 *                   -> RCCE_ERROR_COMM_UNDEFINED
 *     power         RCCE_iset_power twice -> RCCE_ERROR_MULTIPLE_RPC_REQUESTS, RCCE_wait_power
 *                   twice -> RCCE_ERROR_NO_ACTIVE_RPC_REQUEST, on a completed request while
 *                   another is in flight -> STALE_RPC_REQUEST, RCCE_iset_power(1) -> FDIVIDER,
 *                   RCCE_set_frequency_divider(2) at the lowest voltage -> FREQ_EXCEEDS_MHZ
 *                   on masters; on the other UEs every power call returns RCCE_SUCCESS
 *                   (run with the UEs' first power domain holding UE 0 as master)
 *   gory build (-DGORY, optionally -DSINGLEBITFLAGS):
 *     malloc        RCCE_malloc(16384) -> NULL
 *     flags         RCCE_flag_write on a never-allocated MPB address -> RCCE_ERROR_FLAG_NOT_ALLOCATED,
 *                   on NULL -> RCCE_ERROR_FLAG_UNDEFINED, status 7 -> RCCE_ERROR_FLAG_STATUS_UNDEFINED,
 *                   RCCE_test_flag misuse, ... (see case_flags)
 *     put_get       RCCE_put/RCCE_get to a bad UE or outside the MPB
 *     gory_send     gory RCCE_send with a bad comm buffer, chunk 0, bad UE
 *
 * Every UE makes the calls; each call's code is checked in C.  UE 0 prints
 * one line per call ("errors: CALL -> CODE (TEXT)") and finally
 * "errors: CASE OK".  A wrong code: "errors: UE n: CALL returned X (...),
 * expected Y (...)" and exit 1.  An unknown or unsupported case exits 2.
 */
#define RC_POWER_MANAGEMENT
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "RCCE_lib.h"
#include "iRCCE.h"

static int me, np, failures;

static const char *text(int code) {
  static char buf[4][RCCE_MAX_ERROR_STRING + 1];
  static int k;
  char *b = buf[k++ % 4];
  int len = 0;
  b[0] = '\0';
  RCCE_error_string(code, b, &len);
  return b;
}

static void expect_rc(int got, int want, const char *call) {
  if (got != want) {
    fprintf(stderr, "errors: UE %d: %s returned %d (%s), expected %d (%s)\n", me, call, got, text(got), want,
            text(want));
    fflush(stderr);
    failures++;
    return;
  }
  if (me == 0) {
    printf("errors: %s -> %d (%s)\n", call, got, text(got));
    fflush(stdout);
  }
}
#define EXPECT(call, want) expect_rc((call), (want), #call)

static void expect_true(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "errors: UE %d: %s is false\n", me, what);
    fflush(stderr);
    failures++;
  } else if (me == 0) {
    printf("errors: %s\n", what);
    fflush(stdout);
  }
}
#define EXPECT_TRUE(cond) expect_true((cond), #cond)

/* RCCE_error_string: returned code and length; the text is printed. */
static void show_string(int code, int want_rc) {
  char s[RCCE_MAX_ERROR_STRING + 8];
  memset(s, 'X', sizeof s);
  s[sizeof s - 1] = '\0';
  int len = -1;
  int rc = RCCE_error_string(code, s, &len);
  int valid = want_rc == RCCE_SUCCESS;
  if (rc != want_rc || len < 0 || len >= RCCE_MAX_ERROR_STRING || (int)strlen(s) != len || (valid && len == 0)) {
    fprintf(stderr, "errors: UE %d: RCCE_error_string(%d) returned %d, text '%.*s', length %d; expected code %d\n", me,
            code, rc, RCCE_MAX_ERROR_STRING, s, len, want_rc);
    failures++;
  } else if (me == 0) {
    printf("errors: RCCE_error_string(%d) -> %d '%s' (length %d)\n", code, rc, s, len);
  }
  fflush(NULL);
}

#ifndef GORY
static void case_bad_rank(void) {
  char buf[8] = "abcdefg";
  int test = 0;
  EXPECT(RCCE_send(buf, 4, RCCE_num_ues()), RCCE_ERROR_ID);
  EXPECT(RCCE_send(buf, 4, -1), RCCE_ERROR_ID);
  EXPECT(RCCE_recv(buf, 4, RCCE_num_ues()), RCCE_ERROR_ID);
  EXPECT(RCCE_recv(buf, 4, -1), RCCE_ERROR_ID);
  EXPECT(RCCE_recv_test(buf, 4, RCCE_num_ues(), &test), RCCE_ERROR_ID);
  EXPECT(RCCE_send(buf, 4, RCCE_ue()), RCCE_ERROR_ID);
  EXPECT(RCCE_recv(buf, 4, RCCE_ue()), RCCE_ERROR_ID);
}

static void case_reduce(void) {
  int in[2] = {1, 2}, out[2] = {0, 0};
  EXPECT(RCCE_allreduce((char *)in, (char *)out, 2, 42, RCCE_SUM, RCCE_COMM_WORLD), RCCE_ERROR_ILLEGAL_TYPE);
  EXPECT(RCCE_allreduce((char *)in, (char *)out, 2, RCCE_INT, 42, RCCE_COMM_WORLD), RCCE_ERROR_ILLEGAL_OP);
  EXPECT(RCCE_reduce((char *)in, (char *)out, 2, RCCE_TYPE_BASE + 4, RCCE_MAX, 0, RCCE_COMM_WORLD),
         RCCE_ERROR_ILLEGAL_TYPE);
  EXPECT(RCCE_reduce((char *)in, (char *)out, 2, RCCE_DOUBLE, RCCE_OP_BASE + 4, 0, RCCE_COMM_WORLD),
         RCCE_ERROR_ILLEGAL_OP);
  EXPECT_TRUE(out[0] == 0 && out[1] == 0);
  /* The job is still usable: a correct allreduce after the failed ones. */
  EXPECT(RCCE_allreduce((char *)in, (char *)out, 2, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), RCCE_SUCCESS);
  EXPECT_TRUE(out[0] == RCCE_num_ues() && out[1] == 2 * RCCE_num_ues());
}

static void case_bad_root(void) {
  int in = 1, out = 0;
  char buf[16] = "";
  EXPECT(RCCE_reduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, RCCE_num_ues(), RCCE_COMM_WORLD), RCCE_ERROR_ID);
  EXPECT(RCCE_bcast(buf, sizeof buf, RCCE_num_ues(), RCCE_COMM_WORLD), RCCE_ERROR_ID);
}

/* NULL buffers: a buffer a UE reads -> RCCE_ERROR_SOURCE, one it writes ->
 * RCCE_ERROR_TARGET (as RCCE_send/RCCE_recv); RCCE_reduce's outbuf is only
 * used at the root (RCCE 1.0.13), so NULL is legal there on the others. */
static int at_root(int root, int code_at_root, int code_elsewhere) {
  return me == root ? code_at_root : code_elsewhere;
}

static void case_null_buffers(void) {
  int in[2] = {1, 2}, out[2] = {0, 0};
  EXPECT(RCCE_bcast(NULL, 64, 0, RCCE_COMM_WORLD), at_root(0, RCCE_ERROR_SOURCE, RCCE_ERROR_TARGET));
  EXPECT(RCCE_bcast(NULL, 64, 1, RCCE_COMM_WORLD), at_root(1, RCCE_ERROR_SOURCE, RCCE_ERROR_TARGET));
  EXPECT(RCCE_reduce(NULL, NULL, 4, RCCE_INT, RCCE_SUM, 0, RCCE_COMM_WORLD), RCCE_ERROR_SOURCE);
  EXPECT(RCCE_allreduce((char *)in, NULL, 2, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD), RCCE_ERROR_TARGET);
  EXPECT(iRCCE_mcast(NULL, 64, 0), at_root(0, RCCE_ERROR_SOURCE, RCCE_ERROR_TARGET));
  EXPECT(iRCCE_msend(NULL, 64), RCCE_ERROR_SOURCE);
  EXPECT(iRCCE_mrecv(NULL, 64, (me + 1) % np), RCCE_ERROR_TARGET);
  iRCCE_SEND_REQUEST sreq;
  iRCCE_RECV_REQUEST rreq;
  EXPECT(iRCCE_isend(NULL, 64, (me + 1) % np, &sreq), RCCE_ERROR_SOURCE);
  EXPECT(iRCCE_irecv(NULL, 64, (me + 1) % np, &rreq), RCCE_ERROR_TARGET);
  EXPECT(iRCCE_irecv(NULL, iRCCE_ANY_LENGTH, iRCCE_ANY_SOURCE, &rreq), RCCE_ERROR_TARGET);
  EXPECT(iRCCE_ssend(NULL, 64, (me + 1) % np), RCCE_ERROR_SOURCE);
  EXPECT(iRCCE_srecv(NULL, 64, (me + 1) % np), RCCE_ERROR_TARGET);
  /* Legal: no byte moves, or outbuf NULL where RCCE_reduce does not use it. */
  EXPECT(RCCE_bcast(NULL, 0, 0, RCCE_COMM_WORLD), RCCE_SUCCESS);
  EXPECT(RCCE_reduce((char *)in, me == 0 ? (char *)out : NULL, 2, RCCE_INT, RCCE_SUM, 0, RCCE_COMM_WORLD),
         RCCE_SUCCESS);
  EXPECT_TRUE(me != 0 || (out[0] == np && out[1] == 2 * np));
}

static void case_neg_root(void) {
  int in = 1, out = 0;
  char buf[16] = "";
  EXPECT(RCCE_bcast(buf, sizeof buf, -1, RCCE_COMM_WORLD), RCCE_ERROR_ID);
  EXPECT(RCCE_reduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, -1, RCCE_COMM_WORLD), RCCE_ERROR_ID);
}

/* The code a power call returns: the error on a power-domain master; on any
 * other UE RCCE_SUCCESS, for RCCE ignores the call there. */
static int on_master(int err) { return RCCE_power_domain_master() == RCCE_ue() ? err : RCCE_SUCCESS; }

static void case_fdivider(void) {
  int d = -5;
  EXPECT(RCCE_set_frequency_divider(1, &d), on_master(RCCE_ERROR_FDIVIDER));
  EXPECT(RCCE_set_frequency_divider(17, &d), on_master(RCCE_ERROR_FDIVIDER));
  EXPECT_TRUE(d == -5);
}

static void case_power(void) {
  int master = RCCE_power_domain_master() == RCCE_ue();
  RCCE_REQUEST req, req2;
  int d = -1, v = -1;
  if (master) {
    EXPECT(RCCE_iset_power(4, &req, &d, &v), RCCE_SUCCESS);
    EXPECT(RCCE_iset_power(5, &req2, &d, &v), RCCE_ERROR_MULTIPLE_RPC_REQUESTS);
    EXPECT(RCCE_wait_power(&req), RCCE_SUCCESS);
    EXPECT(RCCE_wait_power(&req), RCCE_ERROR_NO_ACTIVE_RPC_REQUEST);
    EXPECT(RCCE_iset_power(5, &req2, &d, &v), RCCE_SUCCESS);
    EXPECT(RCCE_wait_power(&req), RCCE_ERROR_STALE_RPC_REQUEST); /* req was completed above */
    EXPECT(RCCE_wait_power(&req2), RCCE_SUCCESS);
    EXPECT(RCCE_iset_power(1, &req, &d, &v), RCCE_ERROR_FDIVIDER);
    EXPECT(RCCE_iset_power(16, &req, &d, &v), RCCE_SUCCESS); /* 100 MHz: the lowest voltage level */
    EXPECT(RCCE_wait_power(&req), RCCE_SUCCESS);
    EXPECT_TRUE(d == 16 && v == 0);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  /* 800 MHz is above the cap of the domain's voltage level now. */
  EXPECT(RCCE_set_frequency_divider(2, &d), on_master(RCCE_ERROR_FREQ_EXCEEDS_MHZ));
  EXPECT(RCCE_set_frequency_divider(8, &d), RCCE_SUCCESS);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (master) {
    EXPECT(RCCE_iset_power(3, &req, &d, &v), RCCE_SUCCESS);
    EXPECT(RCCE_wait_power(&req), RCCE_SUCCESS);
  }
}

static void case_comm(void) {
  static RCCE_COMM never; /* zeroed: not initialised */
  int size = -1, rank = -1;
  EXPECT(RCCE_barrier(&never), RCCE_ERROR_COMM_UNDEFINED);
  EXPECT(RCCE_comm_size(never, &size), RCCE_ERROR_COMM_UNDEFINED);
  EXPECT(RCCE_comm_rank(never, &rank), RCCE_ERROR_COMM_UNDEFINED);
}
#endif

static void case_strings(void) {
  show_string(RCCE_SUCCESS, RCCE_SUCCESS);
  for (int code = RCCE_ERROR_TARGET; code <= RCCE_ERROR_NO_MULTICAST_SUPPORT; code++) show_string(code, RCCE_SUCCESS);
  show_string(RCCE_ERROR_BASE + 29, RCCE_ERROR_INVALID_ERROR_CODE);
  show_string(RCCE_ERROR_BASE, RCCE_ERROR_INVALID_ERROR_CODE);
  show_string(42, RCCE_ERROR_INVALID_ERROR_CODE);
  show_string(-1, RCCE_ERROR_INVALID_ERROR_CODE);
}

static void case_debug_flag(void) {
  EXPECT(RCCE_debug_set(RCCE_DEBUG_ALL + 1), RCCE_ERROR_DEBUG_FLAG);
  EXPECT(RCCE_debug_unset(5), RCCE_ERROR_DEBUG_FLAG);
  EXPECT(RCCE_debug_set(RCCE_DEBUG_COMM), RCCE_SUCCESS);
  EXPECT(RCCE_debug_unset(RCCE_DEBUG_COMM), RCCE_SUCCESS);
}

#ifdef GORY
static void case_malloc(void) {
  t_vcharp p = RCCE_malloc(16384);
  EXPECT_TRUE(p == NULL);
  t_vcharp q = RCCE_malloc(64); /* the failure did not break the allocator */
  EXPECT_TRUE(q != NULL);
  RCCE_free(q);
}

#ifdef SINGLEBITFLAGS
static RCCE_FLAG flag_at(t_vcharp line, int bit) {
  RCCE_FLAG f;
  f.location = bit;
  f.line_address = line;
  return f;
}
#else
static RCCE_FLAG flag_at(t_vcharp line, int bit) {
  (void)bit;
  return (RCCE_FLAG)line;
}
#endif

static void case_flags(void) {
  RCCE_FLAG good;
  RCCE_FLAG_STATUS v = -1;
  EXPECT(RCCE_flag_alloc(&good), RCCE_SUCCESS);
  t_vcharp buf = RCCE_malloc(64); /* MPB, but no flag */
  EXPECT_TRUE(buf != NULL);
  /* A line of my MPB that was never allocated at all (the allocator hands
     out buffers from the bottom and flags from the top). */
  t_vcharp middle = RCCE_comm_buffer[RCCE_ue()] + 64 * RCCE_LINE_SIZE;
  RCCE_FLAG unalloc = flag_at(buf, 0), never = flag_at(middle, 0), null_line = flag_at(NULL, 0);
  int outside_mpb = 0;
  RCCE_FLAG outside = flag_at((t_vcharp)&outside_mpb, 0);

  EXPECT(RCCE_flag_write(&unalloc, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_NOT_ALLOCATED);
  EXPECT(RCCE_flag_write(&never, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_NOT_ALLOCATED);
  EXPECT(RCCE_flag_read(never, &v, RCCE_ue()), RCCE_ERROR_FLAG_NOT_ALLOCATED);
  EXPECT(RCCE_wait_until(never, RCCE_FLAG_SET), RCCE_ERROR_FLAG_NOT_ALLOCATED);
  EXPECT(RCCE_flag_write(NULL, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_UNDEFINED);
  EXPECT(RCCE_flag_write(&null_line, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_UNDEFINED);
  EXPECT(RCCE_flag_write(&good, 7, RCCE_ue()), RCCE_ERROR_FLAG_STATUS_UNDEFINED);
  EXPECT(RCCE_wait_until(good, 7), RCCE_ERROR_FLAG_STATUS_UNDEFINED);
  EXPECT(RCCE_flag_write(&outside, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_NOT_IN_COMM_BUFFER);
  EXPECT(RCCE_flag_write(&good, RCCE_FLAG_SET, RCCE_num_ues()), RCCE_ERROR_ID);
  EXPECT(RCCE_flag_read(good, NULL, RCCE_ue()), RCCE_ERROR_VAL_UNDEFINED);
  int result = -1;
  EXPECT(RCCE_test_flag(never, RCCE_FLAG_SET, &result), RCCE_ERROR_FLAG_NOT_ALLOCATED);
  EXPECT(RCCE_test_flag(good, 7, &result), RCCE_ERROR_FLAG_STATUS_UNDEFINED);
  EXPECT(RCCE_test_flag(good, RCCE_FLAG_SET, NULL), RCCE_ERROR_VAL_UNDEFINED);
  EXPECT_TRUE(result == -1);
#ifdef SINGLEBITFLAGS
  RCCE_FLAG other_bit = good;
  other_bit.location = good.location + 1; /* same line, bit not allocated */
  EXPECT(RCCE_flag_write(&other_bit, RCCE_FLAG_SET, RCCE_ue()), RCCE_ERROR_FLAG_NOT_ALLOCATED);
#endif
  /* None of the failures touched the good flag. */
  EXPECT(RCCE_flag_read(good, &v, RCCE_ue()), RCCE_SUCCESS);
  EXPECT_TRUE(v == RCCE_FLAG_UNSET);
  EXPECT(RCCE_flag_write(&good, RCCE_FLAG_SET, RCCE_ue()), RCCE_SUCCESS);
  EXPECT(RCCE_flag_read(good, &v, RCCE_ue()), RCCE_SUCCESS);
  EXPECT_TRUE(v == RCCE_FLAG_SET);
  EXPECT(RCCE_test_flag(good, RCCE_FLAG_SET, &result), RCCE_SUCCESS);
  EXPECT_TRUE(result == 1);
  EXPECT(RCCE_test_flag(good, RCCE_FLAG_UNSET, &result), RCCE_SUCCESS);
  EXPECT_TRUE(result == 0);
  EXPECT(RCCE_flag_free(&good), RCCE_SUCCESS);
  RCCE_free(buf);
}

static void case_put_get(void) {
  t_vcharp mpb = RCCE_malloc(64);
  char priv[64] = "payload";
  EXPECT(RCCE_put(mpb, (t_vcharp)priv, 32, RCCE_num_ues()), RCCE_ERROR_ID);
  EXPECT(RCCE_get((t_vcharp)priv, mpb, 32, -1), RCCE_ERROR_ID);
  EXPECT(RCCE_put((t_vcharp)priv, (t_vcharp)priv, 32, RCCE_ue()), RCCE_ERROR_TARGET);
  EXPECT(RCCE_get((t_vcharp)priv, (t_vcharp)priv, 32, RCCE_ue()), RCCE_ERROR_SOURCE);
  EXPECT(RCCE_put(mpb, (t_vcharp)priv, 32, RCCE_ue()), RCCE_SUCCESS);
  RCCE_free(mpb);
}

static void case_gory_send(void) {
  RCCE_FLAG ready, sent;
  EXPECT(RCCE_flag_alloc(&ready), RCCE_SUCCESS);
  EXPECT(RCCE_flag_alloc(&sent), RCCE_SUCCESS);
  t_vcharp combuf = RCCE_malloc(256);
  char priv[256] = "";
  int peer = (RCCE_ue() + 1) % RCCE_num_ues();
  EXPECT(RCCE_send(priv, (t_vcharp)priv, 256, &ready, &sent, 16, peer), RCCE_ERROR_TARGET);
  EXPECT(RCCE_send(priv, combuf, 0, &ready, &sent, 16, peer), RCCE_ERROR_MESSAGE_LENGTH);
  EXPECT(RCCE_send(priv, combuf, 256, &ready, &sent, 16, RCCE_num_ues()), RCCE_ERROR_ID);
  EXPECT(RCCE_recv(priv, combuf, 256, &ready, &sent, 16, -1), RCCE_ERROR_ID);
}
#endif

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  me = RCCE_ue();
  np = RCCE_num_ues();
  const char *c = argc > 1 ? argv[1] : "";
  struct {
    const char *name;
    void (*fn)(void);
  } cases[] = {
      {"strings", case_strings}, {"debug_flag", case_debug_flag},
#ifdef GORY
      {"malloc", case_malloc},   {"flags", case_flags},
      {"put_get", case_put_get}, {"gory_send", case_gory_send},
#else
      {"bad_rank", case_bad_rank},
      {"reduce", case_reduce},
      {"bad_root", case_bad_root},
      {"neg_root", case_neg_root},
      {"null_buffers", case_null_buffers},
      {"fdivider", case_fdivider},
      {"power", case_power},
      {"comm", case_comm},
#endif
  };
  int found = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (strcmp(c, cases[i].name) == 0) {
      cases[i].fn();
      found = 1;
    }
  if (!found) {
    if (me == 0) fprintf(stderr, "errors: unknown case '%s' for this build\n", c);
    RCCE_finalize();
    return 2;
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (failures == 0 && me == 0) printf("errors: %s OK\n", c);
  fflush(NULL);
  RCCE_finalize();
  return failures ? 1 : 0;
}

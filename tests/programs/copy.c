/* Copy cores (scc_copy.h): every UE copies parts of its right neighbour's
 * private memory (seen through its LUT) into its own at every size and
 * alignment, with overlapping copies in flight; shared memory to private
 * memory; private memory into its MPB and back; every error code.  argv[1] "nocores": the job has none (the
 * calls must say so). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "RCCE.h"
#include "scc_copy.h"
#include "scc_lut.h"
#include "testprog.h"

#define SOURCE_BYTES (4u << 20)
#define DEST_OFFSET (8u << 20)

static unsigned char pattern(int ue, size_t i) { return (unsigned char)(ue * 131 + i * 7 + (i >> 9)); }

static void expect(int rc, int want, const char *what) {
  if (rc != want) fail("%s returned %d (%s), expected %d", what, rc, scc_copy_error_string(rc), want);
}

static void check(const unsigned char *dst, int ue, size_t from, size_t bytes, const char *what) {
  for (size_t i = 0; i < bytes; i++)
    if (dst[i] != pattern(ue, from + i))
      fail("%s: byte %zu of %zu is %u, expected %u", what, i, bytes, dst[i], pattern(ue, from + i));
}

static void check_errors(unsigned char *mine, const unsigned char *theirs) {
  unsigned char *heap = malloc(64);
  expect(scc_copy(heap, theirs, 64), SCC_COPY_ERROR_ADDRESS, "scc_copy(to the heap)");
  expect(scc_copy(mine + 100, mine + 50, 64), SCC_COPY_ERROR_OVERLAP, "scc_copy(overlapping)");
  expect(scc_copy_async(mine, theirs, 64, NULL), SCC_COPY_ERROR_ARG, "scc_copy_async(NULL handle)");
  free(heap);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "copy";
  int me = testprog_ue = RCCE_ue(), n = RCCE_num_ues(), right = (me + 1) % n;
  unsigned char *mine = scc_private_base();
  if (argc > 1 && !strcmp(argv[1], "nocores")) {
    if (scc_copy_cores() != 0) fail("scc_copy_cores() is %d without --copy-cores", scc_copy_cores());
    expect(scc_copy(mine + DEST_OFFSET, mine, 64), SCC_COPY_ERROR_NO_CORES, "scc_copy without copy cores");
    if (me == 0) printf("copy: OK\n");
    RCCE_finalize();
    return 0;
  }
  for (size_t i = 0; i < SOURCE_BYTES; i++) mine[i] = pattern(me, i);
  scc_l2_flush(); /* the neighbour's copy cores read it from memory ([SVP-SCC] sec. III.B) */
  RCCE_barrier(&RCCE_COMM_WORLD);
  void *window;
  if (scc_map_private(right, 0, SOURCE_BYTES, SCC_LUT_MPBT, &window) != SCC_LUT_SUCCESS) fail("scc_map_private");
  const unsigned char *theirs = window;
  check_errors(mine, theirs);
  static const size_t sizes[] = {1, 7, 31, 32, 33, 8191, 8192, 8193, 100000, 3u << 20};
  static const size_t offsets[] = {0, 1, 5, 32, 4095};
  unsigned char *dst = mine + DEST_OFFSET;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
      size_t from = offsets[(o + 1) % 5], bytes = sizes[s];
      memset(dst + offsets[o], 0, bytes);
      expect(scc_copy(dst + offsets[o], theirs + from, bytes), SCC_COPY_SUCCESS, "scc_copy");
      check(dst + offsets[o], right, from, bytes, "copy from the neighbour");
    }
  /* Two copies in flight at once, to disjoint destinations. */
  scc_copy_handle a, b;
  expect(scc_copy_async(dst, theirs, 1u << 20, &a), SCC_COPY_SUCCESS, "scc_copy_async a");
  expect(scc_copy_async(dst + (2u << 20), theirs + 12345, 1u << 20, &b), SCC_COPY_SUCCESS, "scc_copy_async b");
  expect(scc_copy_wait(&b), SCC_COPY_SUCCESS, "scc_copy_wait b");
  expect(scc_copy_wait(&a), SCC_COPY_SUCCESS, "scc_copy_wait a");
  check(dst, right, 0, 1u << 20, "first of two copies");
  check(dst + (2u << 20), right, 12345, 1u << 20, "second of two copies");
  /* Shared memory (RCCE_shmalloc) to private memory. */
  unsigned char *shm = (unsigned char *)RCCE_shmalloc(1u << 16);
  if (!shm) fail("RCCE_shmalloc");
  if (me == 0)
    for (size_t i = 0; i < 1u << 16; i++) shm[i] = pattern(99, i);
  RCCE_barrier(&RCCE_COMM_WORLD);
  expect(scc_copy(dst, shm, 1u << 16), SCC_COPY_SUCCESS, "scc_copy(from shared memory)");
  check(dst, 99, 0, 1u << 16, "copy from shared memory");
  /* Private memory into my MPB (RCCE_malloc: the basic interface leaves a few lines) and back; a
   * range past the tile's MPB is refused. */
  unsigned char *mpb = (unsigned char *)RCCE_malloc(4 * RCCE_LINE_SIZE);
  if (!mpb) fail("RCCE_malloc");
  expect(scc_copy(mpb, mine + 777, 4 * RCCE_LINE_SIZE - 3), SCC_COPY_SUCCESS, "scc_copy(into my MPB)");
  check(mpb, me, 777, 4 * RCCE_LINE_SIZE - 3, "copy into the MPB");
  memset(dst, 0, 4 * RCCE_LINE_SIZE);
  expect(scc_copy(dst, mpb + 10, 3 * RCCE_LINE_SIZE), SCC_COPY_SUCCESS, "scc_copy(out of my MPB)");
  check(dst, me, 787, 3 * RCCE_LINE_SIZE, "copy out of the MPB");
  expect(scc_copy(dst, mpb, 64u << 10), SCC_COPY_ERROR_ADDRESS, "scc_copy(64 KiB from an MPB)");
  RCCE_free((t_vcharp)mpb);
  scc_unmap(window, SOURCE_BYTES);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) printf("copy: OK (%d copy cores)\n", scc_copy_cores());
  RCCE_finalize();
  return 0;
}

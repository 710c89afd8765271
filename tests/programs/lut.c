/* Lookup tables and private memory (scc_lut.h): every UE fills its private
 * memory; each maps its right neighbour's through the LUT (MPBT, CL1INVMB
 * first, as [SVP-SCC] does), checks it and writes a word the neighbour reads
 * in its own memory after a barrier; the shared memory and an MPB seen
 * through LUT entries; every error code.  argv[1] "unmapped" or "beyond":
 * touch an entry that maps nothing, or the end of an MPB entry (the UE must
 * die with a message naming the entry). */
#include <stdint.h>
#include <string.h>

#include "RCCE.h"
#include "RCCE_lib.h"
#include "scc_lut.h"
#include "testprog.h"

#define WORDS (3u << 20) /* 12 MB of words: the map spans frames 0 and 1 at offset 8 MB */
#define OFFSET (8u << 20)

static void expect(int rc, int want, const char *what) {
  if (rc != want) fail("%s returned %d (%s), expected %d", what, rc, scc_lut_error_string(rc), want);
}

static uint32_t pattern(int ue, uint32_t i) { return (uint32_t)ue * 2654435761u ^ i; }

static void check_errors(int me) {
  scc_lut_entry e = {SCC_LUT_PRIVATE, me, 0, SCC_LUT_CACHED};
  void *p;
  expect(scc_lut_write(256, &e), SCC_LUT_ERROR_ENTRY, "scc_lut_write(256)");
  expect(scc_lut_read(-1, &e), SCC_LUT_ERROR_ENTRY, "scc_lut_read(-1)");
  e.owner = RCCE_num_ues();
  expect(scc_lut_write(200, &e), SCC_LUT_ERROR_OWNER, "scc_lut_write(owner out of range)");
  e.owner = me, e.frame = 99;
  expect(scc_lut_write(200, &e), SCC_LUT_ERROR_FRAME, "scc_lut_write(frame 99)");
  e.frame = 0, e.attr = 7;
  expect(scc_lut_write(200, &e), SCC_LUT_ERROR_KIND, "scc_lut_write(attr 7)");
  expect(scc_map_private(me, scc_private_size() - 4, 8, SCC_LUT_MPBT, &p), SCC_LUT_ERROR_RANGE,
         "scc_map_private(past the end)");
  expect(scc_map_private(-1, 0, 8, SCC_LUT_MPBT, &p), SCC_LUT_ERROR_OWNER, "scc_map_private(UE -1)");
  expect(scc_map_shared(&e, 8, SCC_LUT_UNCACHED, &p), SCC_LUT_ERROR_RANGE, "scc_map_shared(stack address)");
  expect(scc_unmap(scc_private_base(), 8), SCC_LUT_ERROR_ARG, "scc_unmap(own memory)");
  size_t off;
  expect(scc_private_offset(&off, &off), SCC_LUT_ERROR_RANGE, "scc_private_offset(stack address)");
}

static void check_neighbour(int me, int n) {
  int right = (me + 1) % n;
  uint32_t *mine = scc_private_base();
  void *p;
  expect(scc_map_private(right, OFFSET, WORDS * sizeof(uint32_t), SCC_LUT_MPBT, &p), SCC_LUT_SUCCESS,
         "scc_map_private");
  scc_cl1invmb();
  const uint32_t *theirs = p;
  for (uint32_t i = 0; i < WORDS; i++)
    if (theirs[i] != pattern(right, i))
      fail("word %u of UE %d's memory through the LUT: %#x, expected %#x", i, right, theirs[i], pattern(right, i));
  ((uint32_t *)p)[WORDS - 1] = 0xc0ffee00u + (uint32_t)me;
  scc_wcb_flush();
  int entry = scc_lut_entry_of(p);
  scc_lut_entry e;
  expect(scc_lut_read(entry, &e), SCC_LUT_SUCCESS, "scc_lut_read");
  if (e.kind != SCC_LUT_PRIVATE || e.owner != right || e.frame != OFFSET / SCC_LUT_PAGE_BYTES || e.attr != SCC_LUT_MPBT)
    fail("entry %d reads kind %d owner %d frame %u attr %d", entry, e.kind, e.owner, e.frame, e.attr);
  RCCE_barrier(&RCCE_COMM_WORLD);
  int left = (me + n - 1) % n;
  uint32_t *last = mine + OFFSET / sizeof(uint32_t) + WORDS - 1;
  if (*last != 0xc0ffee00u + (uint32_t)left) fail("UE %d's write through its LUT is not here: %#x", left, *last);
  expect(scc_unmap(p, WORDS * sizeof(uint32_t)), SCC_LUT_SUCCESS, "scc_unmap");
  expect(scc_lut_read(entry, &e), SCC_LUT_SUCCESS, "scc_lut_read");
  if (e.kind != SCC_LUT_UNMAPPED) fail("entry %d still maps kind %d after scc_unmap", entry, e.kind);
}

/* UE 0 writes shared memory and its MPB; the others see both through LUT entries. */
static void check_shared_and_mpb(int me) {
  uint32_t *shm = (uint32_t *)RCCE_shmalloc(4096);
  if (!shm) fail("RCCE_shmalloc failed");
  if (me == 0) {
    for (int i = 0; i < 1024; i++) shm[i] = pattern(7, (uint32_t)i);
    memset((unsigned char *)RCCE_comm_buffer[0] + 4096, 0x5a, 64);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  void *p;
  expect(scc_map_shared(shm, 4096, SCC_LUT_UNCACHED, &p), SCC_LUT_SUCCESS, "scc_map_shared");
  for (int i = 0; i < 1024; i++)
    if (((uint32_t *)p)[i] != pattern(7, (uint32_t)i)) fail("shared word %d through the LUT differs", i);
  scc_lut_entry mpb = {SCC_LUT_MPB, 0, 0, SCC_LUT_MPBT};
  expect(scc_lut_write(250, &mpb), SCC_LUT_SUCCESS, "scc_lut_write(MPB of UE 0)");
  const unsigned char *m = scc_lut_address(250);
  for (int i = 0; i < 64; i++) /* UE 0 is on core 0 (the test places UEs in order): its MPB leads the tile's */
    if (m[4096 + i] != 0x5a) fail("MPB byte %d of UE 0 through LUT entry 250 differs", i);
  RCCE_barrier(&RCCE_COMM_WORLD);
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "lut";
  int me = testprog_ue = RCCE_ue(), n = RCCE_num_ues();
  uint32_t *mine = scc_private_base();
  if (!mine || scc_private_size() < OFFSET + WORDS * sizeof(uint32_t))
    fail("private memory %zu bytes at %p, too small", scc_private_size(), (void *)mine);
  if (argc > 1 && me == n - 1) {
    scc_lut_entry mpb = {SCC_LUT_MPB, 0, 0, SCC_LUT_UNCACHED};
    if (!strcmp(argv[1], "beyond") && scc_lut_write(201, &mpb) != SCC_LUT_SUCCESS) fail("scc_lut_write(201)");
    volatile unsigned char *bad = (unsigned char *)scc_lut_address(!strcmp(argv[1], "beyond") ? 201 : 200) + (1u << 20);
    *bad = 1;
    fail("the access through an unmapped LUT window did not fault");
  }
  for (uint32_t i = 0; i < WORDS; i++) mine[OFFSET / sizeof(uint32_t) + i] = pattern(me, i);
  scc_l2_flush();
  size_t off;
  expect(scc_private_offset(mine + OFFSET / sizeof(uint32_t), &off), SCC_LUT_SUCCESS, "scc_private_offset");
  if (off != OFFSET) fail("scc_private_offset gives %zu, expected %u", off, OFFSET);
  RCCE_barrier(&RCCE_COMM_WORLD);
  check_errors(me);
  check_neighbour(me, n);
  check_shared_and_mpb(me);
  if (me == 0) printf("lut: OK\n");
  RCCE_finalize();
  return 0;
}

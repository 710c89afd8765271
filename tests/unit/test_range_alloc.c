/* rcce/range_alloc: symmetric MPB/shared-memory allocation. */
#include "rcce/range_alloc.h"
#include "unit.h"

static void test_low_high(void) {
  struct range_alloc ra;
  CHECK(rcce_range_alloc_init(&ra, 256) == 0);
  CHECK_EQ(rcce_range_alloc_low(&ra, 10), 0);
  CHECK_EQ(rcce_range_alloc_low(&ra, 5), 10);
  CHECK_EQ(rcce_range_alloc_high(&ra, 1), 255); /* flags come from the top */
  CHECK_EQ(rcce_range_alloc_high(&ra, 2), 253);
  CHECK_EQ(rcce_range_largest_free(&ra), 256 - 15 - 3);
  CHECK_EQ(rcce_range_used_len(&ra, 10), 5);
  CHECK_EQ(rcce_range_alloc_low(&ra, 1000), -1);
  CHECK_EQ(rcce_range_alloc_low(&ra, 0), -1);
  rcce_range_alloc_destroy(&ra);
}

static void test_free_coalesces(void) {
  struct range_alloc ra;
  rcce_range_alloc_init(&ra, 100);
  int64_t a = rcce_range_alloc_low(&ra, 30), b = rcce_range_alloc_low(&ra, 30), c = rcce_range_alloc_low(&ra, 30);
  CHECK_EQ(rcce_range_alloc_low(&ra, 20), -1);
  CHECK_EQ(rcce_range_free(&ra, (uint64_t)b), 30);
  CHECK_EQ(rcce_range_free(&ra, (uint64_t)b), -1); /* double free is refused */
  CHECK_EQ(rcce_range_free(&ra, 7), -1);           /* not an allocation start */
  CHECK_EQ(rcce_range_alloc_low(&ra, 31), -1);     /* 30 + 10 are not adjacent */
  CHECK_EQ(rcce_range_free(&ra, (uint64_t)a), 30);
  CHECK_EQ(rcce_range_free(&ra, (uint64_t)c), 30);
  CHECK_EQ(rcce_range_largest_free(&ra), 100); /* all merged again */
  CHECK_EQ(rcce_range_alloc_low(&ra, 100), 0);
  rcce_range_alloc_destroy(&ra);
}

static void test_deterministic(void) {
  /* The same calls give the same offsets: what makes RCCE_malloc symmetric. */
  struct range_alloc x, y;
  rcce_range_alloc_init(&x, 4096);
  rcce_range_alloc_init(&y, 4096);
  unsigned seed = 7;
  int64_t live_x[64] = {0}, live_y[64] = {0};
  for (int i = 0; i < 2000; i++) {
    seed = seed * 1103515245u + 12345u;
    int slot = (int)((seed >> 8) % 64);
    uint64_t len = 1 + (seed >> 16) % 100;
    if (live_x[slot] > 0) {
      CHECK_EQ(rcce_range_free(&x, (uint64_t)live_x[slot] - 1), rcce_range_free(&y, (uint64_t)live_y[slot] - 1));
      live_x[slot] = live_y[slot] = 0;
    } else {
      int64_t px = (seed & 1) ? rcce_range_alloc_low(&x, len) : rcce_range_alloc_high(&x, len);
      int64_t py = (seed & 1) ? rcce_range_alloc_low(&y, len) : rcce_range_alloc_high(&y, len);
      CHECK_EQ(px, py);
      live_x[slot] = px + 1;
      live_y[slot] = py + 1;
    }
  }
  rcce_range_alloc_destroy(&x);
  rcce_range_alloc_destroy(&y);
}

int main(void) {
  test_low_high();
  test_free_coalesces();
  test_deterministic();
  return unit_report("test_range_alloc");
}

/* chip layer: every bad chip file or chip name is an error naming the file,
 * the line and the key (docs/chips.md "Chip files"); strict number parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chip/chip.h"
#include "chip/text_input.h"
#include "unit.h"

static char dir[] = "/tmp/openscc-chipfile-XXXXXX";
static char path[sizeof dir + 16];

/* Write a chip file of n bytes (NUL bytes allowed) and load it. */
static int load_bytes(const char *text, size_t n, struct chip_desc *c, char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  fwrite(text, 1, n, f);
  fclose(f);
  return chip_load(path, c, err, errlen);
}

static int load(const char *text, struct chip_desc *c, char *err, size_t errlen) {
  return load_bytes(text, strlen(text), c, err, errlen);
}

/* The file fails to load with exactly "PATH:suffix". */
static void check_error(const char *text, const char *suffix) {
  struct chip_desc c;
  char err[1024], want[1024];
  snprintf(want, sizeof want, "%s:%s", path, suffix);
  CHECK(load(text, &c, err, sizeof err) != 0);
  if (strcmp(err, want) != 0) {
    CHECK(strcmp(err, want) == 0);
    fprintf(stderr, "  got  '%s'\n  want '%s'\n", err, want);
  }
}

static void test_numbers(void) {
  long long i = 7;
  double d = 7;
  CHECK(chip_text_parse_int("1024", 1, 1024, &i) == 0 && i == 1024);
  CHECK(chip_text_parse_int("-3", -5, 5, &i) == 0 && i == -3);
  static const char *bad_ints[] = {"",   " 5", "5 ", "+5", "-5", "1025", "0x10", "4294967297", "99999999999999999999",
                                   "5.0"};
  for (size_t k = 0; k < sizeof bad_ints / sizeof bad_ints[0]; k++)
    CHECK(chip_text_parse_int(bad_ints[k], 0, 1024, &i) != 0);
  CHECK_EQ(i, -3); /* untouched by failures */
  CHECK(chip_text_parse_double("0.5", 0, 1, &d) == 0 && d == 0.5);
  CHECK(chip_text_parse_double(".5", 0, 1, &d) == 0 && d == 0.5);
  CHECK(chip_text_parse_double("1e3", 0, 1000, &d) == 0 && d == 1000);
  static const char *bad_doubles[] = {"",   "nan", "inf", "-inf", "infinity", "1e400", "1e-400",
                                      " 1", "1 ",  "1x",  "-0.5", "1000.5",   "."};
  for (size_t k = 0; k < sizeof bad_doubles / sizeof bad_doubles[0]; k++)
    CHECK(chip_text_parse_double(bad_doubles[k], 0, 1000, &d) != 0);
  double lo, hi;
  CHECK(chip_key_range("time_compute_slowdown", &lo, &hi) == 0 && lo == 0 && hi == 1000);
  CHECK(chip_key_range("frobnicate", &lo, &hi) != 0);
}

static void test_value_ranges(void) {
  /* The reported crash: 4 x 1073741825 x 1 cores wrapped to 4 in 32 bits. */
  check_error("tiles_x = 4\ntiles_y = 1073741825\ncores_per_tile = 1\n",
              "2: tiles_y = '1073741825': expected an integer from 1 to 1024 (tiles)");
  check_error("mpb_bytes_per_core = 4294975488\n",
              "1: mpb_bytes_per_core = '4294975488': expected an integer from 32 to 1048576 (bytes)");
  check_error("tiles_x = 99999999999999999999\n",
              "1: tiles_x = '99999999999999999999': expected an integer from 1 to 1024 (tiles)");
  check_error("lat_ddr_core = nan\n", "1: lat_ddr_core = 'nan': expected a number from 0 to 1000000 (core cycles)");
  check_error("\n\nlat_ddr_core = inf\n", "3: lat_ddr_core = 'inf': expected a number from 0 to 1000000 (core cycles)");
  check_error("lat_ddr_core = 1e400\n", "1: lat_ddr_core = '1e400': expected a number from 0 to 1000000 (core cycles)");
  check_error("power_uncore = 5e9\n", "1: power_uncore = '5e9': expected a number from 0 to 10000 (W)");
  check_error("time_compute_slowdown = 1e12\n",
              "1: time_compute_slowdown = '1e12': expected a number from 0 to 1000 (P54C time / host time)");
  check_error("mesh_mhz = -800\n", "1: mesh_mhz = '-800': expected an integer from 1 to 100000 (MHz)");
  check_error("mesh_mhz = 800 MHz\n", "1: mesh_mhz = '800 MHz': expected an integer from 1 to 100000 (MHz)");
  check_error("mesh_mhz =\n", "1: mesh_mhz = '': expected an integer from 1 to 100000 (MHz)");
  check_error("mc = 1,2,3\n", "1: mc = '1,2,3': expected X,Y, tile coordinates from 0 to 1023");
  check_error("mc = 1\n", "1: mc = '1': expected X,Y, tile coordinates from 0 to 1023");
  check_error("vlevel = nan,500\n",
              "1: vlevel = 'nan,500': expected VOLTS,MAX_MHZ with 0.1 to 5 V and 1 to 100000 MHz");
  check_error("name = 0123456789012345678901234567890123456789012345678901234567890123\n",
              "1: name = '0123456789012345678901234567890123456789012345678901234567890123': expected 1 to 63 bytes");
  check_error("frobnicate = 3\n", "1: unknown key 'frobnicate'");
  check_error("tiles_x 3\n", "1: expected 'key = value', got 'tiles_x 3'");
  check_error("tiles_x = 2\nbase = scc\n", "2: base: must be the first key");
  check_error("base = banana\n",
              "1: base = 'banana': unknown chip 'banana' (presets: scc, WxH[xC][:MPB_BYTES]; a chip file is named by "
              "a path with a '/' or an extension, e.g. ./banana)");
}

/* A chip that is wrong as a whole: the line that set the last key involved. */
static void test_consistency(void) {
  check_error("tiles_x = 32\ntiles_y = 32\n",
              "2: tiles_x x tiles_y x cores_per_tile = 32 x 32 x 2 = 2048 cores, more than 1024");
  check_error("tiles_y = 32\n\n# mesh\ntiles_x = 32\nname = big\n",
              "4: tiles_x x tiles_y x cores_per_tile = 32 x 32 x 2 = 2048 cores, more than 1024");
  check_error("mc = 5,3\ntiles_x = 2\nname = x\n",
              "2: mc = 5,3 lies outside the mesh of tiles_x x tiles_y = 2 x 4 tiles");
  check_error("tiles_x = 2\nmc = 0,0\nmc = 0,9\nmc = 1,1\n",
              "3: mc = 0,9 lies outside the mesh of tiles_x x tiles_y = 2 x 4 tiles");
  check_error("base = scc\ntiles_x = 2\n", "2: mc = 5,0 lies outside the mesh of tiles_x x tiles_y = 2 x 4 tiles");
  check_error("divider_max = 2\n", "1: default_divider = 3 is outside divider_min..divider_max = 2..2");
  check_error("global_clock_mhz = 10\ndefault_divider = 2\n",
              "1: global_clock_mhz / divider_max = 10 / 16 is below 1 MHz");
  check_error("vlevel = 0.8,100\n",
              "1: no vlevel admits the default tile clock, global_clock_mhz / default_divider = 533 MHz");
  check_error("line_bytes = 48\n", "1: line_bytes = 48 is not a power of two");
  check_error("mpb_bytes_per_core = 100\n",
              "1: mpb_bytes_per_core = 100 is not a multiple of line_bytes = 32 of at least 4 lines");
  check_error("lat_mc_page_bytes = 16\n", "1: lat_mc_page_bytes = 16 is smaller than line_bytes = 32");
}

/* Lines have no length limit: a long comment stays a comment, a long value
 * is read whole (the old reader cut lines at 511 bytes). */
static void test_long_lines(void) {
  struct chip_desc c;
  char err[1024];
  size_t n = 5000;
  char *text = malloc(n + 200);
  memset(text, 'a', n);
  memcpy(text, "# ", 2);
  strcpy(text + n, " tiles_x = 3\nname = long\n");
  CHECK(load(text, &c, err, sizeof err) == 0);
  CHECK_EQ(c.tiles_x, 6); /* the key inside the comment is not applied */
  CHECK(strcmp(c.name, "long") == 0);
  strcpy(text, "lat_ddr_core = ");
  memset(text + 15, '0', n);
  strcpy(text + 15 + n, "7   # seven\n");
  CHECK(load(text, &c, err, sizeof err) == 0);
  CHECK(c.lat.ddr_core == 7);
  free(text);
  CHECK(load("name = dos\r\ntiles_x = 2\r\ntiles_y = 2\r\nmc = 0,0\r\n", &c, err, sizeof err) == 0);
  CHECK(strcmp(c.name, "dos") == 0 && chip_num_cores(&c) == 8);
}

static void test_file_kinds(void) {
  struct chip_desc c;
  char err[1024], want[1024];
  CHECK(load_bytes("tiles_x = 2\0 3\n", 15, &c, err, sizeof err) != 0);
  snprintf(want, sizeof want, "%s:1: contains a NUL byte (not a text file)", path);
  CHECK(strcmp(err, want) == 0);
  /* A directory, a FIFO and a device are refused without reading (a FIFO
   * without a writer would block, /dev/zero never ends). */
  snprintf(want, sizeof want, "chip file '%s/' is a directory, not a regular file", dir);
  char name[sizeof dir + 16];
  snprintf(name, sizeof name, "%s/", dir);
  CHECK(chip_load(name, &c, err, sizeof err) != 0 && strcmp(err, want) == 0);
  snprintf(name, sizeof name, "%s/fifo", dir);
  CHECK(mkfifo(name, 0600) == 0);
  snprintf(want, sizeof want, "chip file '%s' is a FIFO, not a regular file", name);
  CHECK(chip_load(name, &c, err, sizeof err) != 0 && strcmp(err, want) == 0);
  unlink(name);
  CHECK(chip_load("/dev/zero", &c, err, sizeof err) != 0);
  CHECK(strcmp(err, "chip file '/dev/zero' is a device, not a regular file") == 0);
  CHECK(chip_load("/nonexistent/x.chip", &c, err, sizeof err) != 0);
  CHECK(strcmp(err, "cannot open chip file '/nonexistent/x.chip': No such file or directory") == 0);
}

/* A bare name is always a preset, even when the current directory holds a
 * file of that name; paths have a '/' or an extension. */
static void test_names(void) {
  struct chip_desc c;
  char err[1024], cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(dir) == 0);
  FILE *f = fopen("scc", "w");
  fputs("tiles_x = 2\nmc = 0,0\n", f);
  fclose(f);
  CHECK(chip_load("scc", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 48);
  CHECK(chip_load("./scc", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 16);
  rename("scc", "mine.chip");
  CHECK(chip_load("mine.chip", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 16);
  rename("mine.chip", "mine");
  CHECK(chip_load("mine", &c, err, sizeof err) != 0);
  CHECK(strstr(err, "unknown chip 'mine' (presets: scc, WxH[xC][:MPB_BYTES]; a chip file is named by a path with a "
                    "'/' or an extension, e.g. ./mine)") == err);
  unlink("mine");
  CHECK(chdir(cwd) == 0);
}

static void test_parametric_ranges(void) {
  struct chip_desc c;
  char err[1024];
  CHECK(chip_preset("4x1073741825x1", &c, err, sizeof err) != 0);
  CHECK(strcmp(err, "chip '4x1073741825x1': tiles_y = '1073741825': expected an integer from 1 to 1024 (tiles)") == 0);
  CHECK(chip_preset("0x4", &c, err, sizeof err) != 0);
  CHECK(strcmp(err, "chip '0x4': tiles_x = '0': expected an integer from 1 to 1024 (tiles)") == 0);
  CHECK(chip_preset("4x4:99999999999", &c, err, sizeof err) != 0);
  CHECK(strstr(err, "mpb_bytes_per_core = '99999999999': expected an integer from 32 to 1048576") != NULL);
  static const char *bad[] = {"4x4x2x3", "4x-4", "4x 4", "4x4:", "4xx4", "4x4x", "4"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char want[256];
    snprintf(want, sizeof want, "bad parametric chip name '%s' (expected WxH, WxHxC or WxHxC:MPB_BYTES)", bad[k]);
    CHECK(chip_preset(bad[k], &c, err, sizeof err) != 0 && strcmp(err, want) == 0);
  }
  CHECK(chip_preset("32x32x1", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 1024);
}

int main(void) {
  alarm(20); /* a hang (e.g. opening a FIFO) fails the test instead of blocking it */
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/t.chip", dir);
  test_numbers();
  test_value_ranges();
  test_consistency();
  test_long_lines();
  test_file_kinds();
  test_names();
  test_parametric_ranges();
  unlink(path);
  rmdir(dir);
  return unit_report("test_chip_file");
}

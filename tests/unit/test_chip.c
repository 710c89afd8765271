/* chip layer: SCC preset facts (docs/references.md ref 1), geometry, files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip/chip.h"
#include "unit.h"

static void test_scc_preset(void) {
  struct chip_desc c;
  char err[256];
  CHECK(chip_preset("scc", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 48);
  CHECK_EQ(chip_num_tiles(&c), 24);
  CHECK_EQ(c.mpb_bytes_per_core, 8192);
  CHECK_EQ(c.line_bytes, 32);
  CHECK_EQ(c.n_mc, 4);
  CHECK_EQ(chip_num_voltage_domains(&c), 6);
  CHECK_EQ(chip_tile_mhz(&c, c.default_divider), 533);
}

static void test_core_ids(void) {
  struct chip_desc c;
  char err[256];
  chip_preset("scc", &c, err, sizeof err);
  /* core = 2*(x + 6*y) + z */
  CHECK_EQ(chip_core_id(&c, 0, 0, 0), 0);
  CHECK_EQ(chip_core_id(&c, 5, 3, 1), 47);
  CHECK_EQ(chip_core_id(&c, 2, 1, 1), 2 * (2 + 6) + 1);
  for (int core = 0; core < 48; core++) {
    struct chip_core_pos p = chip_core_pos(&c, core);
    CHECK_EQ(chip_core_id(&c, p.x, p.y, p.z), core);
  }
}

static void test_hops(void) {
  struct chip_desc c;
  char err[256];
  chip_preset("scc", &c, err, sizeof err);
  CHECK_EQ(chip_mesh_hops(&c, 0, 1), 0);  /* same tile */
  CHECK_EQ(chip_mesh_hops(&c, 0, 2), 1);  /* tile (1,0) */
  CHECK_EQ(chip_mesh_hops(&c, 0, 47), 8); /* (0,0) -> (5,3) */
  CHECK_EQ(chip_mesh_hops(&c, 47, 0), 8);
  CHECK_EQ(chip_mesh_hops(&c, 12, 23), 5); /* (0,1) -> (5,1) */
  CHECK_EQ(chip_nearest_mc(&c, 0), 0);
  CHECK_EQ(chip_nearest_mc(&c, 47), 3); /* (5,3) is next to MC3 at (5,2) */
  CHECK_EQ(chip_mc_hops(&c, 0, 3), 7);
}

static void test_domains_and_levels(void) {
  struct chip_desc c;
  char err[256];
  chip_preset("scc", &c, err, sizeof err);
  CHECK_EQ(chip_voltage_domain(&c, 0), 0);
  CHECK_EQ(chip_voltage_domain(&c, 3), 0);  /* tile (1,0) */
  CHECK_EQ(chip_voltage_domain(&c, 4), 1);  /* tile (2,0) */
  CHECK_EQ(chip_voltage_domain(&c, 14), 0); /* tile (1,1) */
  CHECK_EQ(chip_voltage_domain(&c, 47), 5);
  CHECK_EQ(chip_frequency_domain(&c, 47), 23);
  /* RCCE: lowest level whose cap admits 1600/div */
  CHECK_EQ(chip_vlevel_for_divider(&c, 3), 1); /* 533 MHz -> 0.8 V */
  CHECK_EQ(chip_vlevel_for_divider(&c, 2), 4); /* 800 MHz -> 1.1 V (cap 875), as [PERFPOWER-2011] Table I */
  CHECK_EQ(chip_vlevel_for_divider(&c, 16), 0);
  CHECK_EQ(chip_vlevel_for_divider(&c, 1), -1);
  CHECK_EQ(chip_vlevel_for_divider(&c, 17), -1);
}

static void test_parametric(void) {
  struct chip_desc c;
  char err[256];
  CHECK(chip_preset("8x8x2:16384", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 128);
  CHECK_EQ(c.mpb_bytes_per_core, 16384);
  CHECK(chip_preset("16x16x4", &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 1024);
  CHECK(chip_preset("32x32x2", &c, err, sizeof err) != 0);
  CHECK(strstr(err, "1024") != NULL);
  CHECK(chip_preset("banana", &c, err, sizeof err) != 0);
  CHECK(strstr(err, "unknown chip 'banana'") != NULL);
  CHECK(chip_preset("4x4x", &c, err, sizeof err) != 0);
}

static void test_chip_file(void) {
  char path[] = "/tmp/openscc-chip-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "# a small chip\nbase = scc\nname = tiny\ntiles_x = 2\ntiles_y = 2\nmc = 0,0\nmc = 1,1\n");
  fclose(f);
  struct chip_desc c;
  char err[256];
  CHECK(chip_load(path, &c, err, sizeof err) == 0);
  CHECK_EQ(chip_num_cores(&c), 8);
  CHECK_EQ(c.n_mc, 2);
  CHECK(strcmp(c.name, "tiny") == 0);
  f = fopen(path, "w");
  fprintf(f, "tiles_x = 2\nfrobnicate = 3\n");
  fclose(f);
  CHECK(chip_load(path, &c, err, sizeof err) != 0);
  CHECK(strstr(err, ":2: unknown key 'frobnicate'") != NULL);
  f = fopen(path, "w");
  fprintf(f, "mc = 9,9\n");
  fclose(f);
  CHECK(chip_load(path, &c, err, sizeof err) != 0);
  CHECK(strstr(err, "outside the mesh") != NULL);
  unlink(path);
  CHECK(chip_load("/nonexistent/chip.conf", &c, err, sizeof err) != 0);
  CHECK(strstr(err, "cannot open chip file") != NULL);
}

int main(void) {
  test_scc_preset();
  test_core_ids();
  test_hops();
  test_domains_and_levels();
  test_parametric();
  test_chip_file();
  return unit_report("test_chip");
}

/* Chip presets.  Each constant cites its row in docs/references.md. */
#include "chip.h"
#include "chip_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void scc_preset(struct chip_desc *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "scc");
  c->boards = 1;
  c->sif_tile_x = 3; /* U: ref 1 "mesh": the system interface's router taken to be tile (3,0) */
  c->sif_tile_y = 0;
  c->tiles_x = 6; /* ref 1 "mesh": 6 x 4 tiles */
  c->tiles_y = 4;
  c->cores_per_tile = 2;        /* ref 1 "mesh": 2 P54C cores per tile */
  c->line_bytes = 32;           /* ref 1 "cache line": 32 bytes */
  c->mpb_bytes_per_core = 8192; /* ref 1 "MPB": 16 KB per tile = 8 KB per core */
  /* ref 1 "memory": controllers at the x=0 and x=5 edges of rows 0 and 2 */
  c->n_mc = 4;
  c->mc[0] = (struct chip_mc){0, 0};
  c->mc[1] = (struct chip_mc){5, 0};
  c->mc[2] = (struct chip_mc){0, 2};
  c->mc[3] = (struct chip_mc){5, 2};
  c->vdomain_tiles_x = 2; /* ref 1 "voltage domains": 6 domains of 2x2 tiles */
  c->vdomain_tiles_y = 2;
  c->global_clock_mhz = 1600; /* ref 1 "clocks": global 1600 MHz */
  c->divider_min = 2;         /* ref 1 "clocks": divider 2..16 */
  c->divider_max = 16;
  c->default_divider = 3; /* ref 1 "clocks": default 533 MHz tile */
  c->mesh_mhz = 800;      /* ref 1 "clocks": mesh 800 MHz */
  c->ddr_mhz = 800;       /* ref 1 "clocks": 800 MHz DDR3 */
  /* ref 2: RCCE's table, level: volts, highest tile MHz allowed */
  static const struct chip_vlevel rcce_table[] = {{0.7, 460}, {0.8, 598},  {0.9, 644}, {1.0, 748},
                                                  {1.1, 875}, {1.2, 1024}, {1.3, 1198}};
  c->n_vlevels = (int)(sizeof rcce_table / sizeof rcce_table[0]);
  memcpy(c->vlevel, rcce_table, sizeof rcce_table);
  /* ref 3 (core 0, 533 MHz tile / 800 MHz mesh, TN005; docs/model.md fits) */
  c->lat.mpb_read_local = 6;           /* ref 3 "model check": on-tile MPB read ~6 cycles net */
  c->lat.mpb_read_remote = 45;         /* ref 3 "model check": 45 core cycles + 8 mesh cycles per hop */
  c->lat.mesh_cycles_per_hop = 4;      /* ref 1 "router": 4 mesh cycles per hop */
  c->lat.mpb_write_local = 39;         /* ref 3: write one line, own tile 39 */
  c->lat.mpb_write_remote = 79;        /* ref 3 (D): 84 at one hop, 119 at tile (5,3), less the mesh */
  c->lat.ddr_core = 51;                /* ref 3 (D): TN005 word reads per controller, less mesh and memory */
  c->lat.ddr_memory = 46;              /* ref 3 "DDR3 read": 46 memory cycles */
  c->lat.ddr_outstanding_reads = 1;    /* ref 3: an uncached line costs eight word reads (TN005) */
  c->lat.mc_service_ns = 6.1;          /* D: ref 1 "memory": 21 GB/s over 4 controllers, one 32-byte line */
  c->lat.link_service_cycles = 2;      /* D: ref 1 "router": a 32-byte line is two 16-byte flits */
  c->lat.mpb_service_cycles = 2;       /* U: a tile's MPB port taken to accept a flit per mesh cycle, like a link */
  c->lat.contention_window_ns = 10000; /* U: long enough for many accesses, short against a phase */
  c->lat.mc_page_bytes = 16 << 20;     /* ref 1 "LUT": 16 MB pages; pages dealt to controllers in turn (U) */
  c->lat.interrupt_cycles = 612;       /* ref 3 "Other costs": interrupt delivery >= 612 cycles (lower end) */
  c->lat.l2_read = 18;                 /* U: ref 3 "L2 read" (an L2 hit, Intel's SCC latency table) */
  c->lat.board_read_ns = 32000;     /* ref 4 "inter-board throughput": LPRG at most 1 MB/s, a 32-byte line per read */
  c->lat.board_write_ns = 16000;    /* ref 4 sec. IV: a read takes about twice as long as a write */
  c->lat.board_write_ack_ns = 2000; /* ref 4 "inter-board throughput": RPLG up to 16 MB/s, writes pipelined */
  c->cache.l1_bytes = 8192;         /* ref 1 "L1 / L2": 8 KB data */
  c->cache.l1_ways = 2;             /* ref 5 "caches": the P54C's data cache is 2-way */
  c->cache.l2_bytes = 256 << 10;    /* ref 1 "L1 / L2": 256 KB per core */
  c->cache.l2_ways = 4;             /* ref 1 "L1 / L2": 4-way */
  /* Timing model constants (docs/model.md "Calibration"). */
  c->time.compute_slowdown = 125;   /* D: make calibrate on the development host (docs/model.md "Calibration") */
  c->time.compute_ref_mhz = 533;    /* ref 1 "clocks": default tile clock */
  c->time.compute_bb_cycles = 42.7; /* D: make calibrate: [PERFPOWER-2011] mat-mat body (43 cycles) per counted block */
  c->time.compute_min_ns = 200;     /* D: host noise floor between calls (docs/model.md "Computation") */
  c->time.sw_call_cycles = 257; /* D: fitted to ref 4 "iRCCE ping-pong latency" ([SCC-2BOARD] Table I), docs/model.md */
  c->time.sw_step_cycles = 113; /* D: same fit */
  /* D: make mpi-library-cost (validate/mpi_library_cost.py), measured, not fitted: Debian's Open MPI 4.1.4 (pml cm, mtl ofi)
   * and the PyPI mpich 5.0.2 wheel (ch4:ofi), their executed x86-64 instructions priced as the P54C's. */
  c->time.mpi_openmpi_call_cycles = 373;
  c->time.mpi_mpich_call_cycles = 961;
  c->time.dvfs_voltage_cycles = 1e6;   /* ref 2: a voltage change takes 1e6..8.8e6 core cycles (lower end) */
  c->time.dvfs_frequency_cycles = 100; /* U: a configuration register write; no published figure */
  c->time.mailbox_check_cycles = 100;  /* ref 4 "MetalSVM mailbox": checking one buffer ~100 cycles */
  /* ref 4 "SVM overheads" ([SVM-2012] Table 1, 533 MHz), fitted by make calibrate-svm (docs/svm.md): */
  c->time.svm_fault_cycles = 1181;       /* D: "mapping of a page frame", lazy release: 2.418 us */
  c->time.svm_frame_cycles = 58574;      /* D: "physical allocation of a page frame" 112.3 us, less the fault */
  c->time.svm_reserve_page_cycles = 385; /* D: "allocation of 4 MByte" 741 us over 1024 pages, less two barriers */
  c->time.copy_word_cycles = 1;          /* ref 5: REP MOVSD moves a word a clock once under way ([P5-TIMING]) */
  /* Power model (docs/model.md "Power model"): a running core's activity is 1
   * while it executes, stall_activity while it waits on its caches, memory or
   * an MPB line, poll_activity while it polls flags.  The three power
   * constants are fitted by make calibrate: ref 4 "Share power" (1 pair
   * 31.616 W, 24 pairs 50.768 W at 0.8 V, 533 MHz) over Share's activity in
   * the model (0.8608: its cores mostly poll and wait on DDR3) gives
   * core_dynamic; the rest of 31.616 W is split so that 48 executing cores at
   * 1.3 V / 800 MHz draw 125 W (ref 1 "chip power", top of the range). */
  c->power.core_dynamic = 0.00141793; /* D: make calibrate */
  c->power.idle_activity = 0;         /* U: cores without a UE are taken to halt in Linux's idle loop */
  c->power.stall_activity = 0.8;      /* U: clock and latches run; at least ~0.8 for the fit to exist */
  c->power.poll_activity = 0.9;       /* U: a poll loop executes between the flag's line reads */
  c->power.domain_static = 0.586329;  /* D: make calibrate */
  c->power.static_ref_volts = 0.8;
  c->power.uncore = 27.2653; /* D: make calibrate */
}

/* "WxH[xC][:MPB]": the SCC's rules on another mesh.  Memory controllers sit
 * where the SCC has them: the west and east edges of row 0 and row H/2.
 * Returns 1 when name does not have that form, else chip_validate's result
 * (each number is range-checked as the chip file key it sets). */
static int parametric_preset(const char *name, struct chip_desc *c, char *err, size_t errlen) {
  static const char *const part_key[] = {"tiles_x", "tiles_y", "cores_per_tile", "mpb_bytes_per_core"};
  char *copy = strdup(name), *part[4] = {NULL, NULL, NULL, NULL};
  if (!copy) return 1;
  char *colon = strchr(copy, ':');
  if (colon) *colon = '\0', part[3] = colon + 1;
  int n = 0;
  char *rest = copy;
  for (; n < 3 && rest; n++) {
    part[n] = rest;
    rest = strchr(rest, 'x');
    if (rest) *rest++ = '\0';
  }
  int rc = n < 2 || rest ? 1 : 0;
  for (int i = 0; i < 4 && !rc; i++) /* digits only: a sign, space or exponent is not the WxH form */
    if (part[i] && (!*part[i] || strspn(part[i], "0123456789") != strlen(part[i]))) rc = 1;
  if (rc == 0) {
    scc_preset(c);
    snprintf(c->name, sizeof c->name, "%s", name);
    char why[256];
    for (int i = 0; i < 4 && !rc; i++)
      if (part[i] && chip_key_set(c, chip_key_index(part_key[i]), part[i], why, sizeof why) != 0) {
        snprintf(err, errlen, "chip '%s': %s", name, why);
        rc = -1;
      }
  }
  free(copy);
  if (rc != 0) return rc;
  int w = c->tiles_x, h = c->tiles_y;
  c->n_mc = 0;
  int rows[2] = {0, h / 2};
  for (int r = 0; r < (h > 1 ? 2 : 1); r++) {
    c->mc[c->n_mc++] = (struct chip_mc){0, rows[r]};
    if (w > 1) c->mc[c->n_mc++] = (struct chip_mc){w - 1, rows[r]};
  }
  c->sif_tile_x = w / 2; /* the middle of row 0, as tile (3,0) on the SCC */
  c->sif_tile_y = 0;
  return chip_validate(c, err, errlen);
}

int chip_preset(const char *name, struct chip_desc *out, char *err, size_t errlen) {
  err[0] = '\0';
  if (strcmp(name, "scc") == 0) {
    scc_preset(out);
    return 0;
  }
  if (name[0] >= '0' && name[0] <= '9') {
    int rc = parametric_preset(name, out, err, errlen);
    if (rc <= 0) return rc;
    snprintf(err, errlen, "bad parametric chip name '%s' (expected WxH, WxHxC or WxHxC:MPB_BYTES)", name);
    return -1;
  }
  snprintf(err, errlen,
           "unknown chip '%s' (presets: scc, WxH[xC][:MPB_BYTES]; a chip file is named by a path with a '/' or an "
           "extension, e.g. ./%s)",
           name, name);
  return -1;
}

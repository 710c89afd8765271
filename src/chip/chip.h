/*
 * chip layer: a pure description of an SCC-like chip and its geometry.
 * No state, no I/O beyond reading a chip file.  Every default lives in
 * chip_preset.c with the docs/references.md row it comes from.
 */
#ifndef OPENSCC_CHIP_H
#define OPENSCC_CHIP_H

#include <stddef.h>

#define CHIP_MAX_CORES 1024
#define CHIP_MAX_MC 32    /* over all boards */
#define CHIP_MAX_BOARDS 8 /* [SCC-2BOARD] sec. II: Intel's concept of eight coupled SCCs */
#define CHIP_MAX_VLEVELS 16
#define CHIP_NAME_LEN 64

struct chip_mc {
  int tile_x, tile_y; /* router the memory controller hangs off */
};

struct chip_vlevel {
  double volts;
  int max_tile_mhz; /* highest tile frequency allowed at this voltage */
};

/* Access latencies of the timing model (docs/model.md), in core cycles of
 * the accessing tile unless named otherwise; a remote access adds the mesh
 * round trip, 2 x hops x mesh_cycles_per_hop mesh cycles. */
struct chip_latency {
  double mpb_read_local;      /* one word from the own tile's MPB */
  double mpb_read_remote;     /* one word from another tile's MPB, before the mesh */
  double mpb_write_local;     /* one line to the own tile's MPB */
  double mpb_write_remote;    /* one line to another tile's MPB, before the mesh */
  double mesh_cycles_per_hop; /* mesh cycles per router, one direction */
  double ddr_core;            /* one uncached DDR3 word read, before the mesh and the memory */
  double ddr_memory;          /* DDR3 latency in memory-clock cycles */
  int ddr_outstanding_reads;  /* reads a core may have in flight */
  /* Contention (docs/model.md): how long one line keeps a shared resource busy. */
  double mc_service_ns;        /* a memory controller */
  double link_service_cycles;  /* a mesh link, in mesh cycles */
  double mpb_service_cycles;   /* a tile's MPB port, in mesh cycles */
  double mc_page_bytes;        /* shared memory is dealt to the controllers in pages of this size */
  double contention_window_ns; /* utilisation is averaged over windows of this much virtual time */
  double interrupt_cycles;     /* an inter-core interrupt from the doorbell write to the handler's first instruction */
  double l2_read;              /* a load that misses the level-1 cache and hits level 2 */
  /* Another board's MPB or memory ([SCC-2BOARD] sec. III-IV), beyond both
   * meshes: through the system interfaces and the MCPC's software router. */
  double board_read_ns;      /* a read: the reader waits for the whole round trip */
  double board_write_ns;     /* a write, from the writer until the other board has it */
  double board_write_ack_ns; /* what a write stalls the writer (the SIF's automatic acknowledge; writes pipeline) */
};

/* One core's private data caches (docs/model.md "Caches"): lines of
 * line_bytes, least recently used replaced, no allocation on a write miss. */
struct chip_caches {
  int l1_bytes, l1_ways; /* level-1 data cache; l1_bytes 0: no caches modelled */
  int l2_bytes, l2_ways;
};

/* Software and clock constants of the timing model (docs/model.md). */
struct chip_timing {
  double compute_slowdown;  /* a P54C at compute_ref_mhz takes this many times the host's time (0: not charged) */
  int compute_ref_mhz;      /* the tile clock compute_slowdown refers to */
  double compute_min_ns;    /* host intervals up to this long between calls are not computation */
  double compute_bb_cycles; /* P54C cycles per counted basic block without a price of its own (docs/model.md) */
  double sw_call_cycles;    /* library work of one message call (send, receive, request) */
  double sw_step_cycles;    /* library work of one protocol step (flag written or consumed) */
  /* An MPI library's own work per message call into the provider, charged in
   * counted builds (measured by content: make mpi-library-cost). */
  double mpi_openmpi_call_cycles;
  double mpi_mpich_call_cycles;
  double dvfs_voltage_cycles;   /* a voltage change, in core cycles */
  double dvfs_frequency_cycles; /* a frequency divider change, in core cycles */
  /* MetalSVM's kernel paths (mailbox and svm layers, docs/svm.md "Model mode"). */
  double mailbox_check_cycles;    /* checking one receive mailbox */
  double svm_fault_cycles;        /* a page fault: exception, handler, page-table update */
  double svm_frame_cycles;        /* taking and clearing a page frame at the first touch */
  double svm_reserve_page_cycles; /* svm_alloc's work per page of address space */
  double copy_word_cycles;        /* a copy loop's clocks per 32-bit word moved (REP MOVSD), memory aside */
};

/* The power model (docs/model.md): per core C V^2 f x activity, per voltage
 * domain a static part proportional to V, plus a constant uncore part.
 * Activity 1 is a core executing; a core running a UE may also be stalled
 * (waiting on its caches, memory or an MPB line) or polling flags. */
struct chip_power {
  double core_dynamic;   /* W per V^2 per MHz of one core at full activity */
  double idle_activity;  /* activity of a core that runs no UE */
  double stall_activity; /* activity of a core waiting on memory, its caches or the MPB */
  double poll_activity;  /* activity of a core polling flags (RCCE's and the channels' waits) */
  double domain_static;  /* W of one voltage domain at static_ref_volts */
  double static_ref_volts;
  double uncore; /* W: mesh, memory controllers and I/O at their fixed clocks */
};

struct chip_desc {
  char name[CHIP_NAME_LEN];
  int boards;     /* boards of the system, each a copy of this chip ([SCC-2BOARD]) */
  int sif_tile_x; /* the router of a board's system interface, its way to the other boards */
  int sif_tile_y;
  int tiles_x, tiles_y; /* mesh size in tiles (of one board) */
  int cores_per_tile;
  int line_bytes;         /* transfer granularity on the mesh */
  int mpb_bytes_per_core; /* message passing buffer per core */
  int n_mc;               /* per board; board b's controllers are b * n_mc + 0..n_mc-1 */
  struct chip_mc mc[CHIP_MAX_MC];
  int vdomain_tiles_x; /* a voltage domain is a block of tiles */
  int vdomain_tiles_y;
  int global_clock_mhz; /* tile MHz = global / divider */
  int divider_min, divider_max;
  int default_divider;
  int mesh_mhz;
  int ddr_mhz;
  int n_vlevels;
  struct chip_vlevel vlevel[CHIP_MAX_VLEVELS];
  struct chip_latency lat;
  struct chip_caches cache;
  struct chip_timing time;
  struct chip_power power;
};

/* Geometry of one core.  Cores, tiles, memory controllers and voltage
 * domains are numbered board after board ([SCC-2BOARD]: rck00..rck95). */
struct chip_core_pos {
  int x, y, z; /* tile coordinates on its board and core index within the tile */
  int board;
};

/* Fill *out with a preset: "scc", or a parametric mesh "WxH" / "WxHxC"
 * optionally followed by ":MPB_BYTES" (e.g. "8x8x2:16384").
 * Returns 0, or -1 with a message in err. */
int chip_preset(const char *name, struct chip_desc *out, char *err, size_t errlen);

/* Resolve a --chip argument: a name with a '/' or a '.' is the path of a
 * chip file ("key = value" lines, docs/chips.md; regular files only), any
 * other name a preset.  Errors name the file, the line and the key. */
int chip_load(const char *name_or_path, struct chip_desc *out, char *err, size_t errlen);

/* Check every key's range and the chip's consistency (core count <=
 * CHIP_MAX_CORES, divider range, memory controllers on the mesh, ...). */
int chip_validate(const struct chip_desc *c, char *err, size_t errlen);

/* The valid range of a numeric chip file key (docs/chips.md), e.g. for a
 * command-line option that overrides it.  Returns 0, or -1 for no such key. */
int chip_key_range(const char *key, double *min, double *max);

int chip_num_cores(const struct chip_desc *c); /* of every board */
int chip_num_tiles(const struct chip_desc *c);
int chip_tiles_per_board(const struct chip_desc *c);
int chip_board_of_core(const struct chip_desc *c, int core);
int chip_num_mcs(const struct chip_desc *c); /* of every board: n_mc x boards */
struct chip_core_pos chip_core_pos(const struct chip_desc *c, int core);
int chip_core_id(const struct chip_desc *c, int x, int y, int z);
int chip_tile_of_core(const struct chip_desc *c, int core);

/* Routers crossed between two cores' tiles under XY routing (0 on one tile);
 * between boards, those to the system interface on both boards. */
int chip_mesh_hops(const struct chip_desc *c, int core_a, int core_b);
/* Hops from a core's tile to a memory controller's router. */
int chip_mc_hops(const struct chip_desc *c, int core, int mc);
/* The memory controller of the core's board closest to it (ties: lowest index). */
int chip_nearest_mc(const struct chip_desc *c, int core);

int chip_num_voltage_domains(const struct chip_desc *c);
int chip_voltage_domain(const struct chip_desc *c, int core);
int chip_frequency_domain(const struct chip_desc *c, int core); /* = tile */

int chip_tile_mhz(const struct chip_desc *c, int divider);
/* Lowest voltage level whose frequency cap admits the divider, or -1. */
int chip_vlevel_for_divider(const struct chip_desc *c, int divider);

/* Latency model (chip_latency.c), in core cycles at tile_mhz. */
double chip_mesh_round_trip_cycles(const struct chip_desc *c, int hops, int tile_mhz);
/* One word read by `core` from the MPB of `owner`. */
double chip_mpb_read_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz);
/* One line written by `core` to the MPB of `owner`. */
double chip_mpb_write_line_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz);
/* One uncached word read by `core` through memory controller `mc`. */
double chip_ddr_read_cycles(const struct chip_desc *c, int core, int mc, int tile_mhz);
/* How much later than the writer's stall a line written by `core` is there
 * at `owner`: 0 on one board (chip_mpb_write_line_cycles is the whole write). */
double chip_write_arrival_cycles(const struct chip_desc *c, int core, int owner, int tile_mhz);

/* Routes (chip_route.c).  Link id = tile x CHIP_LINK_DIRECTIONS + direction
 * of the router's outgoing link; with several boards, then one link per
 * board: its system interface's way out (chip_board_link). */
enum { CHIP_LINK_EAST, CHIP_LINK_WEST, CHIP_LINK_NORTH, CHIP_LINK_SOUTH, CHIP_LINK_DIRECTIONS };
int chip_num_links(const struct chip_desc *c);
int chip_board_link(const struct chip_desc *c, int board);
/* The links a line crosses from tile `from` to tile `to` (numbered across
 * boards): XY on one board; else to the system interface, out of it, and
 * from the other board's interface on; returns how many (<= max). */
int chip_route(const struct chip_desc *c, int from, int to, int *links, int max);
/* The same to memory controller mc's router. */
int chip_mc_route(const struct chip_desc *c, int from, int mc, int *links, int max);
/* The longest route chip_route or chip_mc_route gives. */
int chip_max_route(const struct chip_desc *c);
/* The memory controller behind byte `offset` of the off-chip shared region
 * (board 0's controllers: the boards share no memory, [SCC-2BOARD] sec. VII). */
int chip_shared_mc(const struct chip_desc *c, unsigned long long offset);

/* Power model (chip_power.c). */
/* One core's dynamic power in W at volts and tile_mhz with the given activity (0..1). */
double chip_core_power(const struct chip_desc *c, double volts, int tile_mhz, double activity);
/* One voltage domain's static power in W at volts. */
double chip_domain_static_power(const struct chip_desc *c, double volts);
/* The uncore's power in W, of every board. */
double chip_uncore_power(const struct chip_desc *c);

#endif

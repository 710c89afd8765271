/*
 * hw layer: the job's settings -- what rccerun's options and environment
 * knobs (launch/option_table.c) decide for every UE of the job.  The
 * launcher fills one of these in the job parameters; the segment header
 * carries a copy that every UE reads.  hw stores the values; each layer
 * reads the ones that concern it.
 */
#ifndef OPENSCC_HW_SETTINGS_H
#define OPENSCC_HW_SETTINGS_H

#include <stdint.h>

/* rccerun --flags: by default (AUTO) short messages of the basic interface
 * ride in the sent flag's line natively when the program uses big flags
 * ([SCC-2BOARD] sec. V (docs/references.md)); model mode keeps RCCE 1.0.13's protocol, whose
 * steps it charges. */
enum hw_tagged { HW_TAGGED_AUTO = 0, HW_TAGGED_OFF = 1, HW_TAGGED_ON = 2 };
/* Communication scheme of the basic interface ([SCC-2BOARD] sec. IV). */
enum hw_scheme { HW_SCHEME_LPRG = 0, HW_SCHEME_RPLG = 1 };

/* Boards a job may spread over hosts (chip.h's CHIP_MAX_BOARDS, checked in hosts.c). */
#define HW_MAX_HOST_BOARDS 8

struct hw_settings {
  int32_t debug;           /* print RCCE errors */
  int32_t spin_limit;      /* polls before yielding or sleeping */
  int32_t yield_limit;     /* sched_yield calls before sleeping */
  int32_t wait_adaptive;   /* budgets adapt to host load (wait.c); 0: fixed (OPENSCC_SPIN/OPENSCC_YIELD) */
  int32_t single_copy;     /* large messages copied once (native mode) */
  int32_t oversubscribed;  /* more UEs than host CPUs */
  int32_t asym_fence;      /* writers skip the fence; sleepers use membarrier (wait.h) */
  int32_t tagged_flags;    /* enum hw_tagged: short messages ride in the sent flag's line */
  int32_t scheme;          /* enum hw_scheme */
  int32_t model;           /* virtual clocks and the power model (rccerun --model) */
  int32_t mailbox_irq;     /* mailboxes ring doorbells (rccerun --mailbox irq), else polling */
  int32_t svm_check;       /* lazy-release pages behave like the SCC's caches (rccerun --svm-check) */
  int32_t trace_level;     /* enum hw_trace_level (trace.h): what the job directory records */
  int32_t initial_divider; /* every tile's clock divider at the start */
  /* rccerun --mpi-channel: HW_MPI_CHANNEL_NONE in jobs started without --mpi,
   * else a value of enum mpi_channel_kind (mpi/channel.h, which hw does not
   * include): 0 rckmpi, 1 rckmpi-original. */
  int32_t mpi_channel;
  /* rccerun --mpi: 0 none, 1 Open MPI, 2 MPICH (launch/options.h's enum
   * launch_mpi): whose own work a counted build charges per message call. */
  int32_t mpi_library;
  /* rccerun --copy-cores: the job's last copy_cores UEs run the copy service
   * (copy layer, scc_copy.h), not the program; RCCE's world is the others. */
  int32_t copy_cores;
  /* rccerun --hosts (hw/hosts.h): how many hosts run the job's boards (1:
   * this one alone), which of them this segment's replica is on, and the host
   * of each board. */
  int32_t hosts;
  int32_t host;
  int32_t board_host[HW_MAX_HOST_BOARDS];
  /* The job's number on every host (the head rccerun's pid; 0 on one host,
   * where the segment's launcher_pid serves): MPI addresses carry it. */
  int32_t hosts_job;
};

/* The UEs that run the program (RCCE's world): all but the copy cores. */
#define HW_PROGRAM_UES(h) ((int)(h)->nue - (int)(h)->set.copy_cores)

#define HW_MPI_CHANNEL_NONE (-1)

#endif

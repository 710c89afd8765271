/*
 * rccerun --mpi: which launcher, with which settings (docs/rccerun.md "MPI
 * jobs").  The launcher starts `openscc-rank PROGRAM ARGS` once per rank; the
 * MPI library in each rank loads OpenSCC's libfabric provider (FI_PROVIDER_PATH,
 * FI_PROVIDER) and is kept off every path of its own that would move bytes
 * between ranks around the provider: shared-memory transports, shared-memory
 * collectives and one-sided components, single-copy IPC.  A rank whose library
 * fell back to one of them anyway never attaches to the job, which rccerun
 * reports (supervise.c).
 */
#define _GNU_SOURCE
#include "mpi_launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../hw/wait.h"
#include "own_dir.h"

#ifndef OPENSCC_SOURCE_VENV
#error "CMake passes the source tree's .venv (the MPICH wheel installed by scripts/install-deps.sh)"
#endif

/* Open MPI 4.1 (ompi_info lists the components): the cm PML over the ofi
 * MTL on our provider (tagged messages: the provider matches, as a network
 * would); only the self BTL (no vader, tcp or openib for the components that
 * still open BTLs); one-sided through pt2pt messages over the PML (osc sm
 * would share memory; osc rdma, even over the ofi BTL and the provider's
 * FI_RMA, keeps its lock words -- and MPI_Win_allocate's windows -- in a
 * shared-memory segment for ranks on one node: docs/mpi-provider.md "The MPI
 * libraries on it"); no shared-memory collectives (coll sm; hcoll where an
 * Open MPI has it).  Not ob1 with the ofi BTL: Open MPI 4.1.4's osc pt2pt
 * hangs on it in passive-target compare-and-swap at 8 ranks (docs/mpi.md
 * "Limits").  Ranks may outnumber the host's CPUs, and are not bound:
 * OpenSCC's UEs share the CPUs. */
static const char *const openmpi_options[] = {
    "--bind-to", "none",  "--mca", "pml",  "cm",    "--mca", "mtl",   "ofi",   "--mca", "mtl_ofi_provider_include",
    "openscc",   "--mca", "btl",   "self", "--mca", "osc",   "pt2pt", "--mca", "coll",  "^sm,hcoll",
    NULL};

/* MPICH 5 (ch4): the ofi netmod on our provider (FI_PROVIDER names it: ch4
 * no longer reads MPIR_CVAR_OFI_USE_PROVIDER), every rank treated as on
 * another node (no POSIX shared-memory transport or shared-memory
 * collectives), no CMA or XPMEM single copy. */
static const char *const mpich_environment[][2] = {{"MPIR_CVAR_CH4_NETMOD", "ofi"},
                                                   {"MPIR_CVAR_NOLOCAL", "1"},
                                                   {"MPIR_CVAR_CH4_CMA_ENABLE", "0"},
                                                   {"MPIR_CVAR_CH4_XPMEM_ENABLE", "0"},
                                                   {NULL, NULL}};

static int executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first of the directories of PATH holding an executable `name`. */
static int find_on_path(const char *name, char *out, size_t len) {
  const char *path = getenv("PATH");
  char *copy = strdup(path ? path : ""), *save = NULL;
  int found = 0;
  for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
    snprintf(out, len, "%s/%s", dir, name);
    found = executable(out);
  }
  free(copy);
  return found;
}

/* mpi_command_build adds at most 14 entries (MPICH with --model and --mpi-spawn-ues; Open MPI natively oversubscribed as root): running past
 * MPI_LAUNCH_MAX_ENV is a bug, stopped here rather than losing a setting. */
static void add_env(struct mpi_command *c, const char *name, const char *value) {
  if (c->nenv >= MPI_LAUNCH_MAX_ENV) {
    fprintf(stderr, "rccerun: internal error: more than %d launcher environment variables\n", MPI_LAUNCH_MAX_ENV);
    abort();
  }
  c->env[c->nenv][0] = name;
  c->env[c->nenv][1] = value;
  c->nenv++;
}

int mpi_find_openmpi_launcher(char *out, size_t len) {
  return find_on_path("mpirun.openmpi", out, len) || find_on_path("mpirun", out, len);
}

static int find_openmpi(struct mpi_command *c) {
  c->name = "mpirun";
  snprintf(c->mpi4py_libmpi, sizeof c->mpi4py_libmpi, "libmpi.so.40"); /* Debian's, by its soname */
  if (mpi_find_openmpi_launcher(c->launcher, sizeof c->launcher)) return 0;
  fprintf(stderr, "rccerun: --mpi openmpi needs Open MPI's launcher, but neither mpirun.openmpi nor mpirun is on "
                  "PATH (install openmpi-bin: scripts/install-deps.sh)\n");
  return -1;
}

/* MPICH's prefix: $OPENSCC_MPICH_PREFIX, else the source tree's .venv. */
static const char *mpich_prefix(void) {
  const char *prefix = getenv("OPENSCC_MPICH_PREFIX");
  return prefix ? prefix : OPENSCC_SOURCE_VENV;
}

static int find_mpich(struct mpi_command *c) {
  const char *prefix = getenv("OPENSCC_MPICH_PREFIX");
  c->name = "mpiexec";
  snprintf(c->launcher, sizeof c->launcher, "%s/bin/mpiexec", mpich_prefix());
  snprintf(c->mpi4py_libmpi, sizeof c->mpi4py_libmpi, "%s/lib/libmpi.so.12", mpich_prefix());
  if (executable(c->launcher)) return 0;
  if (prefix)
    fprintf(stderr, "rccerun: --mpi mpich: OPENSCC_MPICH_PREFIX is '%s', which has no executable bin/mpiexec\n",
            prefix);
  else
    fprintf(stderr,
            "rccerun: --mpi mpich needs MPICH's mpiexec, not found at %s (run scripts/install-deps.sh to install "
            "the mpich wheel there, or set OPENSCC_MPICH_PREFIX to an MPICH installation)\n",
            c->launcher);
  return -1;
}

/* The provider flavour the library loads (CMake builds both): libfabric API 1.x
 * for Debian's Open MPI, 2.x for the MPICH wheel's libfabric. */
static int find_provider(struct mpi_command *c, const char *bin, int flavour) {
  char so[sizeof c->provider_dir + 32];
  snprintf(c->provider_dir, sizeof c->provider_dir, "%s/../lib/openscc-fi-%d", bin, flavour);
  snprintf(so, sizeof so, "%s/libopenscc-fi.so", c->provider_dir);
  if (access(so, R_OK) == 0) return 0;
  fprintf(stderr, "rccerun: --mpi needs OpenSCC's libfabric provider %s: %s\n", so, strerror(errno));
  return -1;
}

/* The libfabric.so.1 of the MPICH at prefix: lib/mpich (the wheel's, which
 * its libmpi's RUNPATH names), else lib; "" when neither holds one. */
static void mpich_libfabric(const char *prefix, char *out, size_t len) {
  static const char *const dirs[] = {"lib/mpich", "lib"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(out, len, "%s/%s/libfabric.so.1", prefix, dirs[i]);
    if (access(out, R_OK) == 0) return;
  }
  out[0] = '\0';
}

/* Model mode: openscc-rank preloads the provider flavour into the program
 * (LD_PRELOAD, from OPENSCC_RANK_PRELOAD), so that its MPI_Wtime family and
 * the hooks of counted builds come first in the lookup order; libfabric's
 * dlopen of the same file later gets the same object (src/mpi/prov_wtime.c).
 * The provider needs libfabric.so.1: for MPICH the wheel's own (in
 * PREFIX/lib/mpich, found through libmpi's RUNPATH, not the system's 1.x),
 * preloaded before it, or the provider's dependency would bind the system's
 * library under the soname libmpi then also gets.  A user's LD_PRELOAD follows. */
static void model_preload(struct mpi_command *c, int openmpi) {
  char fabric[4096 + 32] = "";
  if (!openmpi) mpich_libfabric(mpich_prefix(), fabric, sizeof fabric);
  const char *user = getenv("LD_PRELOAD");
  snprintf(c->preload, sizeof c->preload, "%s%s%s/libopenscc-fi.so%s%s", fabric, fabric[0] ? ":" : "", c->provider_dir,
           user && *user ? ":" : "", user && *user ? user : "");
  add_env(c, "OPENSCC_RANK_PRELOAD", c->preload);
}

static int find_wrapper(struct mpi_command *c, const char *bin) {
  snprintf(c->wrapper, sizeof c->wrapper, "%s/openscc-rank", bin);
  if (executable(c->wrapper)) return 0;
  fprintf(stderr, "rccerun: --mpi needs the rank wrapper %s (built and installed with rccerun)\n", c->wrapper);
  return -1;
}

/* The universe (MPI_UNIVERSE_SIZE: the world and the spare UEs of
 * --mpi-spawn-ues) and how every rank, the spawned ones too, runs under
 * openscc-rank.  Open MPI: the node has exactly that many slots (so a spawn
 * beyond them fails in MPI_Comm_spawn with MPI_ERR_SPAWN; ranks may outnumber
 * the host's CPUs), and its daemon starts every process, MPI_Comm_spawn's
 * too, through the fork agent.  MPICH: hydra's universe size (only with
 * spare UEs: hydra's default is its own); hydra execs spawned programs itself
 * (docs/mpi.md "Dynamic processes"), so only the world's command names the
 * wrapper. */
static int launch_arguments(const struct launch_options *o, struct mpi_command *c, int openmpi, const char **out) {
  snprintf(c->universe, sizeof c->universe, openmpi ? "localhost:%d" : "%d", o->job.nue);
  int n = 0;
  if (c->across_hosts && !openmpi) { /* hydra: NAME:RANKS places a block per host; it passes the environment on */
    out[n++] = "-hosts";
    out[n++] = c->host_list;
  } else if (c->across_hosts) { /* each host's ranks, a block at a time (mpi_hosts.c) */
    out[n++] = "--host";
    out[n++] = c->host_list;
    out[n++] = "--map-by";
    out[n++] = "slot";
    n += mpi_hosts_exports(c, out + n, MPI_HOSTS_MAX_EXPORTS);
  } else if (openmpi || o->mpi_spawn_ues > 0) {
    out[n++] = openmpi ? "--host" : "-usize";
    out[n++] = c->universe;
  }
  if (openmpi) {
    out[n++] = "--mca";
    out[n++] = "orte_fork_agent";
  } else if (c->spawn_preload[0]) { /* the world's wrappers without it (see mpich_spawn_preload) */
    out[n++] = "/usr/bin/env";
    out[n++] = c->user_preload[0] ? c->user_preload : "-uLD_PRELOAD";
  }
  out[n++] = c->wrapper; /* Open MPI: the fork agent's value; MPICH: the world's command */
  return n;
}

/* MPICH with spare UEs: hydra execs spawned programs itself, so everything
 * it starts gets libopenscc-spawn.so preloaded, whose constructor re-executes
 * a spawned process under openscc-rank before main (rank/spawn_preload.c).
 * The world's openscc-rank is started through env without it (an
 * AddressSanitizer build refuses a preload ahead of its runtime), with the
 * user's LD_PRELOAD as it was. */
static int mpich_spawn_preload(struct mpi_command *c, const char *bin) {
  snprintf(c->spawn_preload, sizeof c->spawn_preload, "%s/../lib/libopenscc-spawn.so", bin);
  if (access(c->spawn_preload, R_OK) != 0) {
    fprintf(stderr, "rccerun: --mpi mpich --mpi-spawn-ues needs %s: %s\n", c->spawn_preload, strerror(errno));
    return -1;
  }
  const char *user = getenv("LD_PRELOAD");
  if (user && *user) snprintf(c->user_preload, sizeof c->user_preload, "LD_PRELOAD=%s", user);
  snprintf(c->preload_all, sizeof c->preload_all, "%s%s%s", c->spawn_preload, user && *user ? ":" : "",
           user && *user ? user : "");
  add_env(c, "LD_PRELOAD", c->preload_all);
  add_env(c, "OPENSCC_SPAWN_PRELOAD", c->spawn_preload);
  add_env(c, "OPENSCC_SPAWN_WRAPPER", c->wrapper);
  return 0;
}

/* Open MPI natively on an oversubscribed host (more UEs than CPUs): the
 * linear barrier (coll tuned's algorithm 1: every rank to rank 0, then rank
 * 0 to every rank) instead of Open MPI's choice by size (recursive doubling
 * or Bruck, one wait per round).  With ranks outnumbering CPUs a barrier
 * costs its wake-ups, and there each rank is woken once (RCCE_barrier's
 * shape: one gather, one release); measured on 2 CPUs at 48 ranks, 442 ->
 * 123 us, and Open MPI's own vader 253 -> 116 us (docs/mpi.md "Collectives
 * on an oversubscribed host").  Model mode keeps Open MPI's choice: its
 * times are the SCC's, where every rank had a core.  A user's own
 * OMPI_MCA_coll_tuned_* setting wins. */
extern char **environ;
static void oversubscribed_collectives(const struct launch_options *o, struct mpi_command *c) {
  if (o->job.set.model || (int)o->job.nue <= hw_usable_cpus()) return;
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "OMPI_MCA_coll_tuned_", 20) == 0) return;
  add_env(c, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1"); /* else a forced algorithm is ignored */
  add_env(c, "OMPI_MCA_coll_tuned_barrier_algorithm", "1");
}

/* launcher -n N [the library's options] [universe, wrapper] PROGRAM ARGS */
static int build_argv(const struct launch_options *o, struct mpi_command *c, int openmpi) {
  static char nue[16];
  snprintf(nue, sizeof nue, "%d", o->mpi_world);
  const char *const *lib_options = openmpi ? openmpi_options : NULL;
  size_t n = 0, nlib = 0, napp = 0;
  while (lib_options && lib_options[nlib]) nlib++;
  while (o->app_argv[napp]) napp++;
  /* launch_arguments: at most 5, across hosts 5 + the exports; NULL */
  c->argv = calloc(3 + nlib + 5 + MPI_HOSTS_MAX_EXPORTS + napp + 1, sizeof *c->argv);
  if (!c->argv) {
    fprintf(stderr, "rccerun: out of memory\n");
    return -1;
  }
  c->argv[n++] = c->launcher;
  c->argv[n++] = "-n";
  c->argv[n++] = nue;
  for (size_t i = 0; i < nlib; i++) c->argv[n++] = (char *)lib_options[i];
  n += (size_t)launch_arguments(o, c, openmpi, (const char **)&c->argv[n]);
  c->argv[n++] = (char *)o->app; /* the path rccerun resolved */
  for (size_t i = 1; i < napp; i++) c->argv[n++] = o->app_argv[i];
  return 0;
}

/* The launcher's private temporary directories: TMPDIR/openscc-mpi-UID-PID-XXXXXX,
 * PID being rccerun's (so one left by a killed rccerun is recognised). */
#define TMPDIR_PREFIX "openscc-mpi-"

static const char *tmp_base(void) {
  const char *t = getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path); /* what cannot go stays; the directory's removal then fails quietly */
  return 0;
}

static void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

void mpi_remove_stale_tmpdirs(void) {
  const char *base = tmp_base();
  DIR *d = opendir(base);
  if (!d) return;
  char prefix[64];
  snprintf(prefix, sizeof prefix, TMPDIR_PREFIX "%u-", (unsigned)geteuid());
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int pid;
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || sscanf(e->d_name + strlen(prefix), "%d-", &pid) != 1 ||
        pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[4096 + 256];
    snprintf(path, sizeof path, "%s/%s", base, e->d_name);
    remove_tree(path);
  }
  closedir(d);
}

/* A killed Open MPI leaves its session directory (ompi.HOST.UID/, many MB)
 * and PMIx rendezvous files in its temporary directory, hydra its hwloc
 * topology file: the launcher works in a directory of the job's own, which
 * rccerun removes once the job is over (docs/rccerun.md "MPI jobs"). */
static int make_tmpdir(struct mpi_command *c, int openmpi) {
  const char *base = tmp_base();
  snprintf(c->tmpdir, sizeof c->tmpdir, "%s/" TMPDIR_PREFIX "%u-%d-XXXXXX", base, (unsigned)geteuid(), (int)getpid());
  if (!mkdtemp(c->tmpdir)) {
    fprintf(stderr, "rccerun: cannot create the MPI launcher's temporary directory %s: %s\n", c->tmpdir,
            strerror(errno));
    c->tmpdir[0] = '\0';
    return -1;
  }
  add_env(c, "TMPDIR", c->tmpdir); /* hydra, PMIx and Open MPI's default (opal_tmp_directory) */
  if (openmpi) {
    add_env(c, "OMPI_MCA_orte_tmpdir_base", c->tmpdir); /* the session directory's root */
    add_env(c, "PMIX_SYSTEM_TMPDIR", c->tmpdir);        /* PMIx's system-level rendezvous */
    add_env(c, "PMIX_SERVER_TMPDIR", c->tmpdir);
  }
  return 0;
}

/* MPICH's segments of this job in /dev/shm whose ranks were killed.  Under
 * MPIR_CVAR_NOLOCAL each rank is a node of its own and still creates a
 * node-local segment /dev/shm/mpich_shm_HASH_RANK in MPI_Init (seen with
 * strace; the name is MPICH's and cannot be redirected), unlinked in
 * MPI_Finalize only: a rank killed before that leaves it.  Taken are files of
 * this user created since the job started that no process has open or mapped
 * any more. */
#define SHM_DIR "/dev/shm"

static int is_mpich_segment(const char *name) {
  return strncmp(name, "mpich_shm_", 10) == 0 || strncmp(name, "mpich_vci_", 10) == 0;
}

static int newer_than(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* Whether any process has /dev/shm/NAME open or mapped: its descriptors are
 * read before its mappings (the library maps a segment, then closes it). */
static int segment_in_use(const char *name) {
  char target[512];
  snprintf(target, sizeof target, SHM_DIR "/%s", name);
  DIR *proc = opendir("/proc");
  if (!proc) return 1;
  int used = 0;
  struct dirent *p;
  while (!used && (p = readdir(proc)) != NULL) {
    if (p->d_name[0] < '1' || p->d_name[0] > '9') continue;
    char path[512], link[512];
    snprintf(path, sizeof path, "/proc/%s/fd", p->d_name);
    DIR *fds = opendir(path);
    struct dirent *f;
    while (fds && !used && (f = readdir(fds)) != NULL) {
      char fd_path[sizeof path + sizeof f->d_name + 1];
      snprintf(fd_path, sizeof fd_path, "%s/%s", path, f->d_name);
      ssize_t n = readlink(fd_path, link, sizeof link - 1);
      if (n > 0) link[n] = '\0';
      used = n > 0 && strcmp(link, target) == 0;
    }
    if (fds) closedir(fds);
    snprintf(path, sizeof path, "/proc/%s/maps", p->d_name);
    FILE *maps = used ? NULL : fopen(path, "r");
    char line[1024];
    while (maps && !used && fgets(line, sizeof line, maps)) used = strstr(line, target) != NULL;
    if (maps) fclose(maps);
  }
  closedir(proc);
  return used;
}

void mpi_job_files_since(struct timespec *since) {
  clock_gettime(CLOCK_REALTIME, since);
  since->tv_sec -= 1;
}

int mpi_remove_orphaned_mpich_segments(const struct timespec *since) {
  DIR *d = opendir(SHM_DIR);
  if (!d) return 0;
  int in_use = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    if (!is_mpich_segment(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        st.st_uid != geteuid() || !newer_than(&st.st_ctim, since))
      continue;
    if (segment_in_use(e->d_name)) in_use++;
    else unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
  return in_use;
}

int mpi_command_build(const struct launch_options *o, struct mpi_command *c) {
  memset(c, 0, sizeof *c);
  char bin[4096];
  if (launch_own_directory(bin, sizeof bin) != 0) {
    fprintf(stderr, "rccerun: cannot find its own executable (/proc/self/exe): %s\n", strerror(errno));
    return -1;
  }
  int openmpi = o->mpi == LAUNCH_MPI_OPENMPI;
  if ((openmpi ? find_openmpi(c) : find_mpich(c)) || find_provider(c, bin, openmpi ? 1 : 2) || find_wrapper(c, bin))
    return -1;
  add_env(c, "FI_PROVIDER_PATH", c->provider_dir);
  add_env(c, "FI_PROVIDER", "openscc");
  /* mpi4py 4 loads an MPI library at import, by default the first it finds
   * (the .venv's MPICH before Debian's Open MPI): name the job's (docs/mpi.md
   * "mpi4py"); mpi4py's MPI4PY_MPIABI would override it, so exec drops it. */
  add_env(c, "MPI4PY_LIBMPI", c->mpi4py_libmpi);
  /* openscc-rank takes the rank from the variable this launcher sets, not
   * from one another launcher (around rccerun) may have left in the environment. */
  add_env(c, "OPENSCC_RANK_VAR", openmpi ? "OMPI_COMM_WORLD_RANK" : "PMI_RANK");
  /* The world's ranks take UEs 0..N-1; a rank MPI_Comm_spawn started claims
   * one of the spare UEs after them (rank/openscc_rank.c). */
  snprintf(c->world, sizeof c->world, "%d", o->mpi_world);
  add_env(c, "OPENSCC_MPI_WORLD", c->world);
  /* mpi4py asks for MPI_THREAD_MULTIPLE, which Open MPI 4.1's osc pt2pt (the
   * one-sided component here) refuses at the first window: ask for
   * serialized, unless the user chose a level (docs/mpi.md "mpi4py"). */
  if (openmpi && !getenv("MPI4PY_RC_THREAD_LEVEL")) add_env(c, "MPI4PY_RC_THREAD_LEVEL", "serialized");
  if (openmpi && geteuid() == 0) { /* Open MPI refuses root without both */
    add_env(c, "OMPI_ALLOW_RUN_AS_ROOT", "1");
    add_env(c, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
  }
  for (int i = 0; !openmpi && mpich_environment[i][0]; i++)
    add_env(c, mpich_environment[i][0], mpich_environment[i][1]);
  if (o->job.set.model) model_preload(c, openmpi);
  if (openmpi) oversubscribed_collectives(o, c);
  if (!openmpi && o->mpi_spawn_ues > 0 && mpich_spawn_preload(c, bin) != 0) return -1;
  c->across_hosts = o->job.set.hosts > 1;
  char err[512]; /* launch_hosts_read checked the blocks already */
  if (c->across_hosts && mpi_hosts_list(o, c->host_list, sizeof c->host_list, err, sizeof err) != 0) {
    fprintf(stderr, "rccerun: %s\n", err);
    return -1;
  }
  mpi_job_files_since(&c->started);
  if (build_argv(o, c, openmpi) != 0 || make_tmpdir(c, openmpi) != 0) {
    mpi_command_free(c);
    return -1;
  }
  c->mpich = !openmpi;
  return 0;
}

void mpi_command_exec(const struct mpi_command *c, const char *shm_name, int nue) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", nue);
  if (c->across_hosts) mpi_hosts_forget_enclosing_job(); /* before the settings below */
  else setenv("OPENSCC_SHM_NAME", shm_name, 1);          /* across hosts: OPENSCC_SHM_PATHS, set by the agent */
  setenv("OPENSCC_NUE", buf, 1);
  unsetenv("MPI4PY_MPIABI");
  for (int i = 0; i < c->nenv; i++) setenv(c->env[i][0], c->env[i][1], 1);
  execv(c->launcher, c->argv);
  fprintf(stderr, "rccerun: cannot execute %s: %s\n", c->launcher, strerror(errno));
  _exit(127);
}

void mpi_command_free(struct mpi_command *c) {
  if (c->tmpdir[0]) remove_tree(c->tmpdir);
  c->tmpdir[0] = '\0';
  if (c->mpich && c->argv) mpi_remove_orphaned_mpich_segments(&c->started);
  free(c->argv);
  c->argv = NULL;
}

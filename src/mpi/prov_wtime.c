/* MPI_Wtime and MPI_Wtick on the virtual clock (docs/mpi.md "Model mode").
 *
 * Under rccerun --mpi --model the rank wrapper preloads this library into the
 * program (LD_PRELOAD, set by openscc-rank from OPENSCC_RANK_PRELOAD), so
 * these definitions come before the MPI library's in the lookup order: the
 * program's MPI_Wtime / PMPI_Wtime, the Fortran bindings' and mpi4py's calls
 * through the library's entry points arrive here.  libfabric's later dlopen
 * of FI_PROVIDER_PATH's libopenscc-fi.so finds the same file already loaded
 * and gets the same object: there is one copy of the provider and of the
 * timing layer in the process.
 *
 * Once the provider has attached the process to a model-mode job (its first
 * fabric, in MPI_Init), MPI_Wtime returns the UE's virtual seconds -- what
 * RCCE_wtime returns in an RCCE program, frozen at MPI_Finalize -- after
 * charging the computation since the last provider call.  Otherwise (native
 * mode, before MPI_Init) it is the MPI library's own function, found after
 * this library in the lookup order (RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

#include "../openscc_api.h"
#include "provider.h"

typedef double (*prov_clock_fn)(void);

/* The rank's clock is the job's virtual clock. */
static int virtual_clock(void) { return prov_g.attached && prov_g.job.hdr->set.model; }

static double host_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The MPI library's definition of `name` (host time); CLOCK_MONOTONIC in a
 * process without one. */
static double library_clock(const char *name, prov_clock_fn *cache) {
  prov_clock_fn f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!f) {
    f = (prov_clock_fn)dlsym(RTLD_NEXT, name);
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  }
  return f ? f() : host_seconds();
}

/* Virtual seconds now: the scope charges the computation since the last
 * provider call (timing_enter), as any provider entry does. */
static double virtual_seconds(void) {
  PROV_TIMING_SCOPE();
  return timing_wtime();
}

static prov_clock_fn mpi_wtime_next, pmpi_wtime_next, mpi_wtick_next, pmpi_wtick_next;

OPENSCC_API double MPI_Wtime(void);
OPENSCC_API double PMPI_Wtime(void);
OPENSCC_API double MPI_Wtick(void);
OPENSCC_API double PMPI_Wtick(void);

double MPI_Wtime(void) { return virtual_clock() ? virtual_seconds() : library_clock("MPI_Wtime", &mpi_wtime_next); }
double PMPI_Wtime(void) { return virtual_clock() ? virtual_seconds() : library_clock("PMPI_Wtime", &pmpi_wtime_next); }

/* The virtual clock counts picoseconds. */
#define VIRTUAL_TICK 1e-12
double MPI_Wtick(void) { return virtual_clock() ? VIRTUAL_TICK : library_clock("MPI_Wtick", &mpi_wtick_next); }
double PMPI_Wtick(void) { return virtual_clock() ? VIRTUAL_TICK : library_clock("PMPI_Wtick", &pmpi_wtick_next); }

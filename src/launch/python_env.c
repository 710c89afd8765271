/* Python programs as UEs (python_env.h, docs/python.md): `rccerun -nue N
 * python3 prog.py` runs the interpreter as every UE; `import openscc.rcce`
 * then loads this rccerun's librcce.so, the same runtime C programs link
 * statically, from the package next to it: the source tree's python/ for a
 * build tree, share/openscc/python once installed. */
#define _GNU_SOURCE
#include "python_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "own_dir.h"

#ifndef OPENSCC_SOURCE_PYTHON
#error "CMake passes the source tree's python/ (the openscc package of a build tree)"
#endif

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void launch_python_env(void) {
  char bin[4096], path[4096 + 64];
  if (launch_own_directory(bin, sizeof bin) != 0) return; /* the binding then says what is missing */
  snprintf(path, sizeof path, "%s/../lib/openscc/librcce.so", bin);
  setenv("OPENSCC_LIBRCCE", path, 0);
  snprintf(path, sizeof path, "%s/../share/openscc/python", bin);
  const char *package = is_dir(path) ? path : OPENSCC_SOURCE_PYTHON;
  const char *old = getenv("PYTHONPATH");
  char *value = NULL;
  if (asprintf(&value, "%s%s%s", package, old && *old ? ":" : "", old && *old ? old : "") < 0) return;
  setenv("PYTHONPATH", value, 1);
  free(value);
}

#!/bin/sh
# Install what the build and tests need on a fresh Debian 12 machine.
# Skips everything already present, so it is cheap to run every time.
#   install-deps.sh          build + tests (cmake, gcc, g++, make, chromium, clang-format, valgrind, pytest; matplotlib, Jinja2, jsonschema, cffi for python/openscc;
#                            the MPI layer: Open MPI, libfabric headers, gfortran, Debian's hpcc, netpipe-openmpi and scalapack-mpi-test, and the
#                            virtual environment .venv with the PyPI mpich, mpi4py and numpy; docs/mpi.md "Dependencies" says
#                            why each is needed)
#   install-deps.sh --bench  also the benchmark peer Debian MPICH
# OPENSCC_VENV overrides the virtual environment's directory (the tests use it; rccerun expects <repo>/.venv).
# OPENSCC_DEPS_ROOT prefixes the system files checked for (default: none, i.e. /): the tests point it at a tree of their own.
# The package managers' output goes to a log file (OPENSCC_DEPS_LOG, default build/install-deps.log);
# the terminal gets one line per step, and the log's path and tail if a step fails.
set -e
log=${OPENSCC_DEPS_LOG:-build/install-deps.log}
venv=${OPENSCC_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv}
root=${OPENSCC_DEPS_ROOT:-}
venv_reqs="mpich>=5,<6 mpi4py>=4.1,<5 numpy"  # kept in step with venv_complete below
# exists PATTERN: a file matches the glob PATTERN (no process started, so the checks below stay instant).
exists() {
  for f in $1; do
    [ -e "$f" ] && return 0
  done
  return 1
}
# venv_complete: the virtual environment has its Python, MPICH's launcher and compiler wrapper, and the
# three wheels at the pinned versions (pip's dist-info directories; mpi4py 4.1 or later: 4.[1-9]* also matches 4.10).
venv_complete() {
  site="$venv/lib/python3*/site-packages"
  [ -x "$venv/bin/python" ] && [ -x "$venv/bin/mpiexec" ] && [ -x "$venv/bin/mpicc" ] &&
    exists "$site/mpich-5.*.dist-info" && exists "$site/mpi4py-4.[1-9]*.dist-info" && exists "$site/numpy-*.dist-info"
}
need=""
if [ "${1:-}" = "--bench" ]; then
  command -v mpicc.mpich >/dev/null 2>&1 || need="$need mpich libmpich-dev"
fi
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v g++ >/dev/null 2>&1 || need="$need g++"  # rccec++ (C++ RCCE programs)
command -v make >/dev/null 2>&1 || need="$need make"
command -v chromium >/dev/null 2>&1 || need="$need chromium"  # the report's browser test (python/tests)
command -v clang-format >/dev/null 2>&1 || need="$need clang-format"  # scripts/check-format.sh (make test)
command -v ip >/dev/null 2>&1 || need="$need iproute2"  # namespaced "hosts": tests/integration/test_hosts.py, bench/hosts_bench.py
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"  # callgrind: the A/B group's counted row, make mpi-library-cost, their tests
# The MPI layer (docs/mpi.md "Dependencies").
{ command -v mpicc.openmpi >/dev/null 2>&1 && exists "$root/usr/lib/*/openmpi/include/mpi.h"; } ||
  need="$need openmpi-bin libopenmpi-dev"
command -v gfortran >/dev/null 2>&1 || need="$need gfortran"  # mpif90.openmpi runs gfortran
# Debian's MPI applications the tests run unmodified (tests/integration/test_mpi_apps.py).
command -v hpcc >/dev/null 2>&1 || need="$need hpcc"
command -v NPopenmpi >/dev/null 2>&1 || need="$need netpipe-openmpi"
exists "$root/usr/lib/*/scalapack/openmpi-tests/xcgsep" || need="$need scalapack-mpi-test"
exists "$root/usr/include/rdma/fabric.h" || need="$need libfabric-dev"
venv_step=""
if ! venv_complete; then
  venv_step=yes
  # python3 -m venv needs ensurepip, which Debian's own python3 has only with python3-venv.
  [ -x "$venv/bin/python" ] || python3 -c 'import ensurepip' >/dev/null 2>&1 || need="$need python3-venv"
fi
# One Python start for the five modules: find_spec locates a package without importing it. If python3
# itself fails, all five count as missing and the pip step below shows why.
pyneed=$(python3 -c '
import importlib.util
print(" ".join(m for m in ("pytest", "matplotlib", "jinja2", "jsonschema", "cffi") if importlib.util.find_spec(m) is None))') ||
  pyneed="pytest matplotlib jinja2 jsonschema cffi"
pyneed=${pyneed:+ $pyneed}
[ -z "$need$pyneed$venv_step" ] && exit 0

mkdir -p "$(dirname "$log")"
: >"$log"
# step TITLE COMMAND...: one line on the terminal, the command's output in the log.
step() {
  title=$1
  shift
  echo "install-deps: $title (log: $log)"
  echo "== $title: $*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    echo "install-deps: $title failed; the last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
}
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing$need; install them (e.g. sudo apt-get install$need)" >&2
    exit 1
  fi
  step "apt-get update" apt-get update
  step "apt-get install$need" env DEBIAN_FRONTEND=noninteractive apt-get install -y $need
fi
if [ -n "$pyneed" ]; then
  step "pip install$pyneed" python3 -m pip install $pyneed
fi
if [ -n "$venv_step" ]; then
  # --clear: a venv whose interpreter is gone (Python upgraded or removed) is made anew.
  [ -x "$venv/bin/python" ] || step "python3 -m venv $venv" python3 -m venv --clear "$venv"
  step "pip install $venv_reqs (into $venv)" "$venv/bin/python" -m pip install $venv_reqs
fi

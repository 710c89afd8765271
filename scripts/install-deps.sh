#!/bin/sh
# Install what the build and tests need on a fresh Debian 12 machine.
# Skips everything already present, so it is cheap to run every time.
#   install-deps.sh          build + tests (cmake, gcc, g++, make, chromium, clang-format, pytest; matplotlib, Jinja2, jsonschema for python/openscc)
#   install-deps.sh --bench  also the benchmark peers (MPICH, Open MPI)
# The package managers' output goes to a log file (OPENSCC_DEPS_LOG, default build/install-deps.log);
# the terminal gets one line per step, and the log's path and tail if a step fails.
set -e
log=${OPENSCC_DEPS_LOG:-build/install-deps.log}
need=""
if [ "${1:-}" = "--bench" ]; then
  command -v mpicc.mpich >/dev/null 2>&1 || need="$need mpich libmpich-dev"
  command -v mpicc.openmpi >/dev/null 2>&1 || need="$need openmpi-bin libopenmpi-dev"
fi
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v g++ >/dev/null 2>&1 || need="$need g++"  # rccec++ (C++ RCCE programs)
command -v make >/dev/null 2>&1 || need="$need make"
command -v chromium >/dev/null 2>&1 || need="$need chromium"  # the report's browser test (python/tests)
command -v clang-format >/dev/null 2>&1 || need="$need clang-format"  # scripts/check-format.sh (make test)
pyneed=""
python3 -c 'import pytest' >/dev/null 2>&1 || pyneed="$pyneed pytest"
python3 -c 'import matplotlib' >/dev/null 2>&1 || pyneed="$pyneed matplotlib"
python3 -c 'import jinja2' >/dev/null 2>&1 || pyneed="$pyneed jinja2"
python3 -c 'import jsonschema' >/dev/null 2>&1 || pyneed="$pyneed jsonschema"
[ -z "$need$pyneed" ] && exit 0

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

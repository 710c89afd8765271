#!/bin/sh
# Install what the build and tests need on a fresh Debian 12 machine.
# Skips everything already present, so it is cheap to run every time.
#   install-deps.sh          build + tests (cmake, gcc, make, chromium, pytest; matplotlib, Jinja2, jsonschema for python/openscc)
#   install-deps.sh --bench  also the benchmark peers (MPICH, Open MPI)
set -e
need=""
if [ "${1:-}" = "--bench" ]; then
  command -v mpicc.mpich >/dev/null 2>&1 || need="$need mpich libmpich-dev"
  command -v mpicc.openmpi >/dev/null 2>&1 || need="$need openmpi-bin libopenmpi-dev"
fi
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v chromium >/dev/null 2>&1 || need="$need chromium"  # the report's browser test (python/tests)
pyneed=""
python3 -c 'import pytest' >/dev/null 2>&1 || pyneed="$pyneed pytest"
python3 -c 'import matplotlib' >/dev/null 2>&1 || pyneed="$pyneed matplotlib"
python3 -c 'import jinja2' >/dev/null 2>&1 || pyneed="$pyneed jinja2"
python3 -c 'import jsonschema' >/dev/null 2>&1 || pyneed="$pyneed jsonschema"
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
  else
    echo "install-deps: missing$need; install them (e.g. sudo apt-get install$need)" >&2
    exit 1
  fi
fi
if [ -n "$pyneed" ]; then
  python3 -m pip install -q $pyneed || { echo "install-deps: cannot install$pyneed" >&2; exit 1; }
fi

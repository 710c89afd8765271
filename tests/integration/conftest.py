"""Fixtures of the OpenSCC integration tests.

Builds under test: OPENSCC_BUILDS (comma-separated build dirs, relative to
the repository or absolute), default "build,build-asan" keeping those that
exist.  Every test that takes the `build` fixture runs once per build.

    python3 -m pytest -q tests/integration
    OPENSCC_BUILDS=build python3 -m pytest -q tests/integration -k stress
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading

import pytest

import openscc_testlib as lib

BUILDS = lib.selected_builds()


def pytest_report_header(config):
    lines = [f"openscc session dir: {lib.SESSION_DIR}"]
    for b in BUILDS:
        lines.append(f"openscc build: {b.dir}{' (ASan+UBSan)' if b.asan else ''}")
    if not BUILDS:
        lines.append("openscc: no build found (run `make build` and `make test-asan-build`)")
    return lines


def pytest_collection_modifyitems(config, items):
    if not BUILDS:
        skip = pytest.mark.skip(reason="no OpenSCC build (make build / make test-asan-build)")
        for item in items:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    lib.kill_session_processes()
    if not os.environ.get("OPENSCC_KEEP_TMP"):
        shutil.rmtree(lib.SESSION_DIR, ignore_errors=True)


@pytest.fixture(scope="session", params=BUILDS, ids=[b.name for b in BUILDS])
def build(request) -> lib.Build:
    b = request.param
    b.work.mkdir(parents=True, exist_ok=True)
    return b


class Compiler:
    """Compiles tests/programs/*.c with a build's rccecc, once per build+flags."""

    def __init__(self):
        self._cache: dict[tuple, object] = {}
        self._lock = threading.Lock()

    def __call__(self, build: lib.Build, program: str, *flags: str):
        key = (build.dir, program, flags)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            src = lib.PROGRAMS / f"{program}.c"
            suffix = "".join("_" + re.sub(r"[^A-Za-z0-9]+", "", f).lower() for f in flags)
            out = build.work / "programs" / f"{program}{suffix}"
            out.parent.mkdir(parents=True, exist_ok=True)
            cmd = [str(build.rccecc), "-O2", "-g", "-Wall", "-Wextra", "-Werror", *flags, str(src), "-o", str(out)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=lib.HARD_TIMEOUT)
            if p.returncode != 0:
                pytest.fail(f"compiling {src.name} failed:\n{' '.join(cmd)}\n{p.stdout}{p.stderr}")
            self._cache[key] = out
            return out


@pytest.fixture(scope="session")
def compile_program() -> Compiler:
    """compile_program(build, "stress", "-DSINGLEBITFLAGS") -> path of the binary."""
    return Compiler()


@pytest.fixture
def scratch(request, build) -> "os.PathLike":
    """A per-test directory inside the session directory."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)[:80]
    d = build.work / "scratch" / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


@pytest.fixture(autouse=True)
def no_leftovers():
    """After every test: no process of this session still runs (pgrep -f on
    the session directory, which every program path contains), and no new
    /dev/shm/openscc-<uid>-* segment of a launcher this session started is
    left behind (other jobs on the machine are not ours to judge)."""
    before = lib.shm_segments()
    yield
    problems = []
    pids = lib.session_pids()
    if pids:
        problems.append("processes left running after the test:\n" + lib.describe_pids(pids))
        lib.kill_session_processes()
    left = lib.leftover_segments(before)
    if left:
        problems.append("shared-memory segments left in /dev/shm: " + ", ".join(left))
        for name in left:  # do not let one failure cascade into the next tests
            try:
                os.unlink(lib.SHM_DIR / name)
            except OSError:
                pass
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)

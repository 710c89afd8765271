"""scripts/install-deps.sh (make demo, make test, CI): one line per step, package-manager output in a log;
the project's virtual environment (.venv) made when missing or incomplete; scripts/fetch-libfabric-headers.sh:
idempotent, clear errors (the download itself needs the network: the provider's build runs it)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import openscc_testlib as lib

SCRIPT = lib.REPO / "scripts" / "install-deps.sh"
# What the script (and the python3 stub: chmod) runs besides the package managers (real ones, from /usr/bin
# or wherever they are).
TOOLS = ("sh", "dirname", "mkdir", "tail", "env", "id", "seq", "chmod")
# What it checks for: stubs, so that the test sees only what it sets up (cmake is left out where
# the script must install something).  python3 is a stub that finds every Python package (it prints no
# missing module) and makes a virtual environment whose python logs its arguments.
CHECKED = ("cc", "g++", "make", "chromium", "clang-format", "ip", "valgrind", "gfortran", "mpicc.openmpi", "hpcc",
           "NPopenmpi")
PYTHON3 = """if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$4/bin" && printf '#!/bin/sh\\necho "venv python $*"\\n' >"$4/bin/python" && chmod +x "$4/bin/python"
fi
"""
# What a complete virtual environment holds (scripts/install-deps.sh venv_complete).
WHEELS = ("mpich-5.0.2", "mpi4py-4.1.2", "numpy-2.4.6")
REQS = "mpich>=5,<6 mpi4py>=4.1,<5 numpy"


def stub(path: Path, text: str) -> None:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)


def fake_path(tmp_path: Path, apt_rc: int, with_cmake: bool = False, absent: tuple[str, ...] = ()) -> str:
    """A PATH of stubs: without cmake (unless with_cmake), and with an apt-get that prints 300 lines of
    progress and exits apt_rc."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for tool in [t for t in CHECKED if t not in absent] + (["cmake"] if with_cmake else []):
        stub(bin_dir / tool, "exit 0\n")
    stub(bin_dir / "python3", PYTHON3)
    stub(bin_dir / "apt-get", f"for i in $(seq 300); do echo \"progress line $i\"; done\nexit {apt_rc}\n")
    return str(bin_dir)


def make_venv(venv: Path, wheels: tuple[str, ...] = WHEELS) -> None:
    """A virtual environment with stub executables and the dist-info directories of WHEELS."""
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "mpiexec", "mpicc"):
        stub(venv / "bin" / tool, 'echo "venv python $*"\n')
    for wheel in wheels:
        (venv / "lib" / "python3.11" / "site-packages" / f"{wheel}.dist-info").mkdir(parents=True)


# The system files the script checks for (under OPENSCC_DEPS_ROOT): Open MPI's and libfabric's headers,
# and one of ScaLAPACK's test programs.
SYSTEM_FILES = ("usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h", "usr/include/rdma/fabric.h",
                "usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xcgsep")


def make_root(root: Path, files: tuple[str, ...]) -> None:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")


def run_script(tmp_path: Path, apt_rc: int, with_cmake: bool = False, wheels: tuple[str, ...] | None = WHEELS,
               absent: tuple[str, ...] = (),
               system_files: tuple[str, ...] = SYSTEM_FILES) -> tuple[subprocess.CompletedProcess, Path]:
    """Runs the script with the stub PATH and a system tree holding system_files (not the host's);
    wheels=None: no virtual environment at all."""
    log = tmp_path / "deps.log"
    venv = tmp_path / "venv"
    if wheels is not None:
        make_venv(venv, wheels)
    make_root(tmp_path / "root", system_files)
    env = dict(os.environ, PATH=fake_path(tmp_path, apt_rc, with_cmake, absent), OPENSCC_DEPS_LOG=str(log),
               OPENSCC_VENV=str(venv), OPENSCC_DEPS_ROOT=str(tmp_path / "root"))
    p = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=60)
    return p, log


as_root = pytest.mark.skipif(os.getuid() != 0, reason="install-deps installs packages only as root")


@as_root
def test_steps_print_one_line_each(tmp_path):
    p, log = run_script(tmp_path, 0)
    assert p.returncode == 0, p
    lines = (p.stdout + p.stderr).splitlines()
    assert lines[0] == f"install-deps: apt-get update (log: {log})", p
    assert lines[1] == f"install-deps: apt-get install cmake (log: {log})", p
    assert all(line.startswith("install-deps: ") for line in lines), p
    assert log.read_text().count("progress line") == 600  # both steps' output went to the log


@as_root
def test_failed_step_names_the_log_and_shows_its_tail(tmp_path):
    p, log = run_script(tmp_path, 100)
    assert p.returncode == 1, p
    assert p.stdout == f"install-deps: apt-get update (log: {log})\n", p
    err = p.stderr.splitlines()
    assert err[0] == f"install-deps: apt-get update failed; the last lines of {log}:", p
    assert err[1:] == [f"progress line {i}" for i in range(281, 301)], p


def test_nothing_printed_when_everything_is_there(tmp_path):
    p, log = run_script(tmp_path, 1, with_cmake=True)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", ""), p
    assert not log.exists()


def test_missing_venv_is_made_with_the_pinned_wheels(tmp_path):
    p, log = run_script(tmp_path, 1, with_cmake=True, wheels=None)
    venv = tmp_path / "venv"
    assert p.returncode == 0, p
    assert p.stdout.splitlines() == [f"install-deps: python3 -m venv {venv} (log: {log})",
                                     f"install-deps: pip install {REQS} (into {venv}) (log: {log})"], p
    assert f"venv python -m pip install {REQS}\n" in log.read_text()


@pytest.mark.parametrize("wheels", [WHEELS[1:], ("mpich-4.3.0",) + WHEELS[1:], WHEELS[:2],
                                    (WHEELS[0], "mpi4py-4.0.1", WHEELS[2])],
                         ids=["no-mpich", "mpich-4", "no-numpy", "mpi4py-4.0"])
def test_incomplete_venv_gets_the_wheels_installed(tmp_path, wheels):
    p, log = run_script(tmp_path, 1, with_cmake=True, wheels=wheels)
    venv = tmp_path / "venv"
    assert (p.returncode, p.stderr) == (0, ""), p
    assert p.stdout == f"install-deps: pip install {REQS} (into {venv}) (log: {log})\n", p
    assert f"venv python -m pip install {REQS}\n" in log.read_text()


@as_root
@pytest.mark.parametrize("present, packages", [(SYSTEM_FILES[:1] + SYSTEM_FILES[2:], "libfabric-dev"),
                                               (SYSTEM_FILES[1:], "openmpi-bin libopenmpi-dev")],
                         ids=["no-libfabric-headers", "no-openmpi-headers"])
def test_missing_system_headers_get_their_packages(tmp_path, present, packages):
    p, log = run_script(tmp_path, 0, with_cmake=True, system_files=present)
    assert p.returncode == 0, p
    assert p.stdout.splitlines()[1] == f"install-deps: apt-get install {packages} (log: {log})", p


@as_root
def test_missing_mpi_applications_get_their_packages(tmp_path):
    """Debian's hpcc, NetPIPE (NPopenmpi) and ScaLAPACK's tests for tests/integration/test_mpi_apps.py."""
    p, log = run_script(tmp_path, 0, with_cmake=True, absent=("hpcc", "NPopenmpi"), system_files=SYSTEM_FILES[:2])
    assert p.returncode == 0, p
    assert p.stdout.splitlines()[1] == (f"install-deps: apt-get install hpcc netpipe-openmpi scalapack-mpi-test "
                                        f"(log: {log})"), p


@as_root
def test_missing_valgrind_gets_its_package(tmp_path):
    """callgrind counts the A/B group's round trip (tests/integration/test_bench_ab.py runs it)."""
    p, log = run_script(tmp_path, 0, with_cmake=True, absent=("valgrind",))
    assert p.returncode == 0, p
    assert p.stdout.splitlines()[1] == f"install-deps: apt-get install valgrind (log: {log})", p


FETCH = lib.REPO / "scripts" / "fetch-libfabric-headers.sh"


def run_fetch(*args: str, mirror: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if mirror:
        env["OPENSCC_DEBIAN_MIRROR"] = mirror
    return subprocess.run(["sh", str(FETCH), *args], capture_output=True, text=True, env=env, timeout=120)


def write_header(dest: Path, major: int) -> None:
    header = dest / "usr" / "include" / "rdma" / "fabric.h"
    header.parent.mkdir(parents=True)
    header.write_text(f"#define FI_MAJOR_VERSION {major}\n#define FI_MINOR_VERSION 1\n")


def test_fetch_headers_does_nothing_when_they_are_there(tmp_path):
    write_header(tmp_path, 2)
    p = run_fetch(str(tmp_path))
    assert (p.returncode, p.stdout, p.stderr) == (0, "", ""), p
    assert not (tmp_path / "apt").exists()


def test_fetch_headers_refuses_other_headers_in_dest(tmp_path):
    write_header(tmp_path, 1)
    p = run_fetch(str(tmp_path))
    header = tmp_path / "usr" / "include" / "rdma" / "fabric.h"
    assert p.returncode == 1, p
    assert p.stderr == (f"fetch-libfabric-headers: {tmp_path}/usr holds libfabric headers of another major version "
                        f"than 2 ({header}); remove {tmp_path}/usr and rerun\n"), p


def test_fetch_headers_usage():
    p = run_fetch()
    assert (p.returncode, p.stderr) == (2, "usage: fetch-libfabric-headers.sh DEST\n"), p


def test_fetch_headers_offline_fails_with_a_clear_message(tmp_path):
    """A mirror that refuses connections stands for no network: exit 1, the reason, apt's own lines."""
    mirror = "http://127.0.0.1:9/debian"  # the discard port: nothing listens there
    p = run_fetch(str(tmp_path), mirror=mirror)
    log = tmp_path / "apt" / "fetch.log"
    assert p.returncode == 1, p
    err = p.stderr.splitlines()
    assert err[0] == (f"fetch-libfabric-headers: cannot fetch Debian trixie's package lists from {mirror} (offline?); "
                      f"the last lines of {log}:"), p
    assert any("127.0.0.1:9" in line and line.startswith(("E:", "Err:")) for line in err[1:]), p
    assert not (tmp_path / "usr").exists()

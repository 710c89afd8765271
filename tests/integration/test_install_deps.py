"""scripts/install-deps.sh (make demo, make test, CI): one line per step, package-manager output in a log."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import openscc_testlib as lib

SCRIPT = lib.REPO / "scripts" / "install-deps.sh"
# What the script runs besides the package managers (real ones, from /usr/bin or wherever they are).
TOOLS = ("sh", "dirname", "mkdir", "tail", "env", "id", "seq")
# What it checks for: stubs, so that the test sees only what it sets up (cmake is left out where
# the script must install something).  python3 is a stub that finds every Python package.
CHECKED = ("cc", "g++", "make", "chromium", "clang-format", "python3")


def stub(path: Path, text: str) -> None:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)


def fake_path(tmp_path: Path, apt_rc: int, with_cmake: bool = False) -> str:
    """A PATH of stubs: without cmake (unless with_cmake), and with an apt-get that prints 300 lines of
    progress and exits apt_rc."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for tool in CHECKED + (("cmake",) if with_cmake else ()):
        stub(bin_dir / tool, "exit 0\n")
    stub(bin_dir / "apt-get", f"for i in $(seq 300); do echo \"progress line $i\"; done\nexit {apt_rc}\n")
    return str(bin_dir)


def run_script(tmp_path: Path, apt_rc: int, with_cmake: bool = False) -> tuple[subprocess.CompletedProcess, Path]:
    log = tmp_path / "deps.log"
    env = dict(os.environ, PATH=fake_path(tmp_path, apt_rc, with_cmake), OPENSCC_DEPS_LOG=str(log))
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

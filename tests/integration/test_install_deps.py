"""scripts/install-deps.sh (make demo, make test, CI): one line per step, package-manager output in a log."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import openscc_testlib as lib

SCRIPT = lib.REPO / "scripts" / "install-deps.sh"
# What the script itself runs; cmake is left out so that it must install something.
TOOLS = ("sh", "dirname", "mkdir", "tail", "env", "id", "python3", "cc", "make", "chromium")


def fake_path(tmp_path: Path, apt_rc: int) -> str:
    """A PATH without cmake and with an apt-get that prints 300 lines of progress and exits apt_rc."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        real = shutil.which(tool)
        if real:
            (bin_dir / tool).symlink_to(real)
    apt = bin_dir / "apt-get"
    apt.write_text(f"#!/bin/sh\nfor i in $(seq 300); do echo \"progress line $i\"; done\nexit {apt_rc}\n")
    apt.chmod(0o755)
    (bin_dir / "seq").symlink_to(shutil.which("seq"))
    return str(bin_dir)


def run_script(tmp_path: Path, apt_rc: int) -> tuple[subprocess.CompletedProcess, Path]:
    log = tmp_path / "deps.log"
    env = dict(os.environ, PATH=fake_path(tmp_path, apt_rc), OPENSCC_DEPS_LOG=str(log))
    p = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=60)
    return p, log


as_root = pytest.mark.skipif(os.getuid() != 0, reason="install-deps installs packages only as root")


@as_root
def test_steps_print_one_line_each(tmp_path):
    p, log = run_script(tmp_path, 0)
    assert p.returncode == 0, p
    lines = (p.stdout + p.stderr).splitlines()
    assert lines[0] == f"install-deps: apt-get update (log: {log})", p
    assert lines[1].startswith("install-deps: apt-get install cmake"), p
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


def test_nothing_printed_when_everything_is_there():
    p = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", ""), p

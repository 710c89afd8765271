"""Fixtures of the openscc package's tests: job directories recorded by a real
rccerun run (build/ by default, OPENSCC_BUILD to choose another build tree)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
BUILD = Path(os.environ.get("OPENSCC_BUILD", REPO / "build"))
if not BUILD.is_absolute():
    BUILD = REPO / BUILD


def record(tmp: Path, name: str, nue: int, app: str, *args: str, opts=()) -> Path:
    job = tmp / name
    cmd = [str(BUILD / "bin" / "rccerun"), "-nue", str(nue), "--job-dir", str(job), *opts, str(BUILD / app), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return job


@pytest.fixture(scope="session")
def native_run(tmp_path_factory) -> Path:
    """4 UEs of stencil at the timeline level."""
    if not (BUILD / "bin" / "rccerun").exists():
        pytest.skip(f"no OpenSCC build in {BUILD} (make build)")
    return record(tmp_path_factory.mktemp("runs"), "native", 4, "apps/stencil", "8", "5", opts=["--trace", "timeline"])


@pytest.fixture(scope="session")
def model_run(tmp_path_factory) -> Path:
    """8 UEs of a counted stencil in model mode at the sizes level."""
    if not (BUILD / "bin" / "rccerun").exists():
        pytest.skip(f"no OpenSCC build in {BUILD} (make build)")
    return record(tmp_path_factory.mktemp("runs"), "model", 8, "model-apps/stencil", "8", "5",
                  opts=["--trace", "sizes", "--model", "scc"])

"""Host information recorded with every benchmark run."""
from __future__ import annotations

import datetime as dt
import os
import platform
import re
import shutil
import socket
import subprocess
from pathlib import Path

from .paths import ROOT


def cmd_output(cmd: list[str], timeout: float = 20) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (p.stdout + p.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable ({e.__class__.__name__}: {e})"


def loadavg() -> list[str] | None:
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return None


def record_loadavg(info: dict, key: str) -> None:
    """Stores the load average under key, when /proc/loadavg can be read."""
    avg = loadavg()
    if avg is not None:
        info[key] = avg


def host_info() -> dict:
    info: dict = {"hostname": socket.gethostname(),
                  "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  "nproc": None, "cpu_model": None,
                  "kernel": platform.release(), "os": None,
                  "python": platform.python_version()}
    nproc = cmd_output(["nproc"])
    info["nproc"] = int(nproc) if nproc.isdigit() else os.cpu_count()
    info["cpu_count_total"] = os.cpu_count()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                info["os"] = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    record_loadavg(info, "loadavg_start")
    mv = cmd_output(["mpichversion"]) if shutil.which("mpichversion") else \
        cmd_output(["mpirun.mpich", "--version"])
    m = re.search(r"MPICH Version:\s*(\S+)", mv) or re.search(r"Version:\s*(\S+)", mv)
    info["mpich_version"] = m.group(1) if m else mv.splitlines()[0] if mv else None
    dev = re.search(r"MPICH Device:\s*(\S+)", mv)
    if dev:
        info["mpich_device"] = dev.group(1)
    ov = cmd_output(["mpirun.openmpi", "--version"])
    m = re.search(r"\(Open(?:RTE| MPI)\)\s*(\S+)", ov)
    info["openmpi_version"] = m.group(1) if m else (ov.splitlines()[0] if ov else None)
    info["gcc_version"] = cmd_output(["gcc", "-dumpfullversion"])
    info["euid"] = os.geteuid()
    info["env"] = {k: v for k, v in sorted(os.environ.items())
                   if k.startswith(("OMPI_", "UCX_", "MPIR_", "MPICH_", "HYDRA_", "FI_", "PMIX_"))}
    git = cmd_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"])
    info["git_head"] = git if re.fullmatch(r"[0-9a-f]{40}", git) else None
    return info

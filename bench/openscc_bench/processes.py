"""Launchers, and running one command in its own process group with a timeout."""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from pathlib import Path


def rccerun(rcce_bin: str, nue: int) -> list[str]:
    """The OpenSCC launch command of the tree whose tools are in rcce_bin."""
    return [str(Path(rcce_bin) / "rccerun"), "-nue", str(nue)]


def launcher(args, impl: str, nue: int) -> list[str]:
    if impl == "openscc":
        return rccerun(args.rcce_bin, nue)
    if impl == "mpich":
        return ["mpirun.mpich", "-n", str(nue)]
    if impl == "openmpi":
        return ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(nue)]
    return []  # floor: runs by itself (forks its peer)


def launcher_config(args, impls: list[str]) -> dict[str, str]:
    """The launch command of every launched implementation, as recorded in the JSON config."""
    return {i: shlex.join(launcher(args, i, 0)[:-1]) + " N" for i in impls if i != "floor"}


def kill_group(p: subprocess.Popen) -> None:
    """End the process group we created for this run (and only that)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=3)
            # the leader is gone; stragglers in the group still get SIGKILL
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_cmd(cmd: list[str], cwd: Path, timeout: float, env: dict | None = None) -> dict:
    """Run one command in its own process group (environment env, default
    ours); wall clock by perf_counter."""
    rec = {"cmd": shlex.join(cmd), "rc": None, "wall_s": None, "timeout": False,
           "stdout": "", "stderr": ""}
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, start_new_session=True, env=env)
    except OSError as e:
        rec["error"] = f"cannot start: {e}"
        return rec
    try:
        out, err = p.communicate(timeout=timeout)
        rec["wall_s"] = time.perf_counter() - t0
        rec["rc"] = p.returncode
    except subprocess.TimeoutExpired:
        kill_group(p)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out, err = "", "(output lost: pipes still open after kill)"
        rec["wall_s"] = time.perf_counter() - t0
        rec["rc"] = p.returncode
        rec["timeout"] = True
        rec["error"] = f"timed out after {timeout:g} s"
    except BaseException:
        kill_group(p)
        raise
    # a run may leave children in its group (e.g. a crashed launcher)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec["stdout"] = out[-20000:]
    rec["stderr"] = err[-4000:]
    if "error" not in rec and rec["rc"] != 0:
        rec["error"] = f"exit status {rec['rc']}"
    return rec

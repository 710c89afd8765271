"""Compiling the benchmark programs into BUILD/bench/<impl>/."""
from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from .paths import BENCH
from .progress import log


def compilers(args) -> dict[str, list[str] | None]:
    rccecc = Path(args.rcce_bin) / "rccecc"
    return {
        "openscc": [str(rccecc), "-O2"] if rccecc.exists() else None,
        "mpich": ["mpicc.mpich", "-O2"] if shutil.which("mpicc.mpich") else None,
        "openmpi": ["mpicc.openmpi", "-O2"] if shutil.which("mpicc.openmpi") else None,
        "floor": ["gcc", "-std=c11", "-O2"] if shutil.which("gcc") else None,
    }


def build(args, impls: list[str], programs: dict) -> dict:
    """Compiles every program of programs ({impl: {kind: (source, name)}}) for impls;
    returns {impl: {"ok", "programs": {kind: path | None}, "commands", "errors"}}."""
    cc = compilers(args)
    builds: dict = {}
    for impl in impls:
        if impl not in programs:
            continue
        entry = {"ok": True, "programs": {}, "commands": [], "errors": []}
        builds[impl] = entry
        outdir = args.bench_dir / impl
        outdir.mkdir(parents=True, exist_ok=True)
        for kind, (src, name) in programs[impl].items():
            if cc[impl] is None:
                why = {"openscc": f"{Path(args.rcce_bin) / 'rccecc'} not found (OpenSCC runtime not built)",
                       "mpich": "mpicc.mpich not found", "openmpi": "mpicc.openmpi not found",
                       "floor": "gcc not found"}[impl]
                entry["ok"] = False
                entry["errors"].append(why)
                entry["programs"][kind] = None
                continue
            out = outdir / name
            cmd = cc[impl] + [str(BENCH / src), "-o", str(out)]
            entry["commands"].append(shlex.join(cmd))
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                ok = p.returncode == 0 and out.exists()
                err = (p.stdout + p.stderr).strip()
            except (OSError, subprocess.SubprocessError) as e:
                ok, err = False, f"{e.__class__.__name__}: {e}"
            if ok:
                entry["programs"][kind] = str(out)
                log(f"  built {impl:8s} {name}")
            else:
                entry["ok"] = False
                entry["errors"].append(f"build of {src} failed: {err[-2000:]}")
                entry["programs"][kind] = None
                log(f"  BUILD FAILED {impl} {src}: {err.splitlines()[-1] if err else '?'}")
    return builds

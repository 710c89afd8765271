#!/usr/bin/env python3
"""Monitoring overhead per trace level (issue 5, make bench), like [FURST-2011] Figs. 2-3 (docs/references.md).

Runs stencil and shift at 2 and 48 UEs with every --trace level, R times each
(interleaved), and reports per level the median execution time the program
measures itself (its timed loop, as [FURST-2011] measured the benchmarks) and its
ratio to --trace off; the launcher's wall time (which adds writing the job
directory) is kept in the JSON.  Targets: targets <= 1.05x, sizes <= 1.20x.
Writes bench/results/trace.{json,md}.
"""
from __future__ import annotations

import pathlib
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import standalone

LEVELS = ("off", "counters", "messages", "targets", "sizes", "timeline")
TARGETS = {"targets": 1.05, "sizes": 1.20}
WORKLOADS = [  # name, UEs, arguments (about 0.2 s or more natively)
    ("stencil", 2, ["32", "100000"]),
    ("stencil", 48, ["32", "3000"]),
    ("shift", 2, ["200000", "128"]),
    ("shift", 48, ["2000", "128"]),
]


def run_once(build: pathlib.Path, level: str, nue: int, program: str, args: list[str]) -> tuple[float, float]:
    """(the program's own timed seconds, the launcher's wall seconds)."""
    with tempfile.TemporaryDirectory() as job:
        cmd = [str(build / "bin" / "rccerun"), "-nue", str(nue), "--trace", level, "--job-dir", job,
               str(build / "apps" / program), *args]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
    timed = re.search(r"(\d+\.\d+) s\b", p.stdout)
    if p.returncode != 0 or not timed:
        raise SystemExit(f"{shlex.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return float(timed[1]), wall


def markdown(rows: list[dict], command: str, repeat: int) -> str:
    out = ["# Monitoring overhead per trace level", "",
           f"`{command}` on {platform.node()} ({repeat} runs per cell, interleaved; median of the program's own "
           "timed loop, ratio to `--trace off`). Targets: "
           + ", ".join(f"`{k}` <= {v:.2f}x" for k, v in TARGETS.items()) + ".", "",
           "| workload | UEs | off s | " + " | ".join(LEVELS[1:]) + " |",
           "| --- | ---: | ---: | " + " | ".join("---:" for _ in LEVELS[1:]) + " |"]
    for r in rows:
        cells = []
        for lvl in LEVELS[1:]:
            ratio = r["ratio"][lvl]
            over = lvl in TARGETS and ratio > TARGETS[lvl]
            cells.append(f"{ratio:.3f}x{' (above target)' if over else ''}")
        out.append(f"| {r['name']} {' '.join(r['args'])} | {r['nue']} | {r['median']['off']:.3f} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main() -> int:
    a, build, command = standalone.options(__doc__, 9, "trace")
    rows = []
    for name, nue, args in WORKLOADS:
        timed = {lvl: [] for lvl in LEVELS}
        walls = {lvl: [] for lvl in LEVELS}
        for _ in range(a.repeat):
            for lvl in LEVELS:
                t, w = run_once(build, lvl, nue, name, args)
                timed[lvl].append(t)
                walls[lvl].append(w)
        median = {lvl: statistics.median(v) for lvl, v in timed.items()}
        row = {"name": name, "nue": nue, "args": args, "timed": timed, "walls": walls, "median": median,
               "ratio": {lvl: median[lvl] / median["off"] for lvl in LEVELS}}
        print(f"{name} {nue} UEs: off {median['off']:.3f} s; " +
              ", ".join(f"{lvl} {row['ratio'][lvl]:.3f}x" for lvl in LEVELS[1:]), flush=True)
        rows.append(row)
    standalone.write(a.out, {"schema": "openscc-trace-bench-1", "command": command, "repeat": a.repeat, "rows": rows},
                     markdown(rows, command, a.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())

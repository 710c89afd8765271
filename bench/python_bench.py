#!/usr/bin/env python3
"""Remote method calls of the Python binding (openscc.remote) beside [RUBY-2011] Table III (make bench).

apps/python/remote_calls.py times calls of a method that returns its argument (0, 64 and 256 bytes)
from UE 1 to an object served by UE 0, natively (host time) and in model mode (virtual time, the
interpreter's work charged as host-time computation, docs/python.md).  [RUBY-2011] Table III measured
DRb over RCCE in CRuby on the SCC: 3.44, 3.62 and 4.33 ms.  Every configuration runs R times; the table
shows medians.  Writes bench/results/python.{json,md}.
"""
from __future__ import annotations

import datetime
import os
import platform
import re
import statistics
import subprocess
import sys

import standalone

ROOT = standalone.ROOT
PUBLISHED_MS = {0: 3.44, 64: 3.62, 256: 4.33}  # [RUBY-2011] Table III, DRb over RCCE
MODES = (("native", [], 2000), ("model", ["--model", "scc"], 50))  # mode, rccerun options, calls per size
LINE = re.compile(r"remote_calls: (\d+) B argument: (\S+) ms per call")


def run(build, options: list, calls: int) -> dict:
    cmd = [str(build / "bin" / "rccerun"), "-nue", "2", *options, sys.executable,
           str(ROOT / "apps" / "python" / "remote_calls.py"), str(calls)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return {int(size): float(ms) for size, ms in LINE.findall(p.stdout)}


def main() -> int:
    a, build, cmdline = standalone.options(__doc__, 5, "python")
    runs = {mode: [] for mode, _, _ in MODES}
    for rep in range(a.repeat):
        for mode, options, calls in MODES:
            runs[mode].append(run(build, options, calls))
            print(f"[{rep + 1}/{a.repeat}] {mode}: {runs[mode][-1]}", flush=True)
    med = {mode: {size: statistics.median(r[size] for r in rs) for size in PUBLISHED_MS} for mode, rs in runs.items()}
    lines = ["# Remote method calls from Python (openscc.remote) beside DRb on the SCC\n",
             f"Produced by `{cmdline}` (run from the repository root) on "
             f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}: {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}; medians of {a.repeat} runs of `apps/python/remote_calls.py` "
             "(2000 calls per size natively, 50 in model mode); ms per call.\n",
             "| argument | native (host time) | model mode (virtual time) | [RUBY-2011] Table III (DRb over RCCE, SCC) "
             "| model / published |", "|---:|---:|---:|---:|---:|"]
    for size, published in PUBLISHED_MS.items():
        lines.append(f"| {size} B | {med['native'][size]:.4f} | {med['model'][size]:.3f} | {published:.2f} | "
                     f"{med['model'][size] / published:.2f}x |")
    doc = {"schema": "openscc-python-bench-1", "command": cmdline, "repeat": a.repeat, "published_ms": PUBLISHED_MS,
           "medians_ms": med, "runs": runs}
    standalone.write(a.out, doc, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

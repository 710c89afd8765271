#!/usr/bin/env python3
"""make calibrate: the computation constants of the timing model for this host.

Runs the 160 x 160 matrix-matrix kernel of [PERFPOWER-2011],
whose inner loop body takes 43 P54C cycles (the paper's MAQAO figure), so the
kernel takes 160^3 x 43 cycles on an SCC core:
  - natively (an uninstrumented build), timing it on the host:
        time_compute_slowdown = SCC time at 533 MHz / host time (median of runs);
  - instrumented without rccecc's block prices (-fsanitize-coverage=trace-pc alone), in model mode
    with 1 cycle per basic block:
        time_compute_bb_cycles = 160^3 x 43 / basic blocks,
    the flat cost of blocks that carry no price of their own (docs/model.md "Computation").
Prints a chip file to use with rccerun --chip (docs/model.md "Calibration").
"""
from __future__ import annotations

import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
P54C_CYCLES = 160 ** 3 * 43  # [PERFPOWER-2011] (docs/references.md): mat-mat body 43 cycles, unroll 1
REF_MHZ = 533                 # the scc preset's time_compute_ref_mhz (tile clock at divider 3)


def kernel_seconds(cmd: list[str]) -> float:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    m = re.search(r"kernel matmat seconds (\S+)", p.stdout)
    if p.returncode != 0 or not m:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    return float(m[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    b = pathlib.Path(a.build)
    rccerun = str(b / "bin" / "rccerun")
    host = statistics.median(
        kernel_seconds([rccerun, "-nue", "1", str(b / "validate" / "divider_kernels_native"), "matmat"])
        for _ in range(a.runs))
    slowdown = P54C_CYCLES / (REF_MHZ * 1e6) / host
    with tempfile.TemporaryDirectory() as d:
        chip = pathlib.Path(d, "one-cycle.chip")
        chip.write_text("base = scc\ntime_compute_bb_cycles = 1\n")
        flat = pathlib.Path(d, "divider_kernels_flat")
        subprocess.run([str(b / "bin" / "rccecc"), "-O2", "-fsanitize-coverage=trace-pc",
                        str(ROOT / "validate" / "programs" / "divider_kernels.c"), "-o", str(flat)], check=True)
        virtual = kernel_seconds([rccerun, "-nue", "1", "--model", "scc", "--chip", str(chip), "--job-dir", d,
                                  str(flat), "matmat"])
    blocks = virtual * REF_MHZ * 1e6
    print(f"# make calibrate: [PERFPOWER-2011] mat-mat kernel, {P54C_CYCLES} P54C cycles")
    print(f"#   host: {host * 1e3:.3f} ms (median of {a.runs}); counted: {blocks:.0f} basic blocks")
    print("base = scc")
    print(f"time_compute_slowdown = {slowdown:.1f}")
    print(f"time_compute_bb_cycles = {P54C_CYCLES / blocks:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
And the power model's constants (docs/model.md "Power model"): Share at 24 pairs in model mode
gives the activity of its cores (their dynamic energy over their time at full activity); with it
  - ref 4 "Share power": 46 more Share cores add 50.768 - 31.616 W at 0.8 V / 533 MHz, which
    fixes power_core_dynamic;
  - the rest of 31.616 W (one pair, idle cores) is the domains' static power and the uncore,
    split so that 48 executing cores at 1.3 V / 800 MHz draw 125 W (ref 1 "chip power").
Prints a chip file to use with rccerun --chip (docs/model.md "Calibration").
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
P54C_CYCLES = 160 ** 3 * 43  # [PERFPOWER-2011] (docs/references.md): mat-mat body 43 cycles, unroll 1
REF_MHZ = 533                 # the scc preset's time_compute_ref_mhz (tile clock at divider 3)
SHARE_W = {2: 31.616, 48: 50.768}  # ref 4 "Share power" at 0.8 V, 533 MHz tile
SHARE_VOLTS, TOP_W, TOP_VOLTS, TOP_MHZ, DOMAINS = 0.8, 125.0, 1.3, 800, 6  # ref 1 "chip power", "voltage"
IDLE_ACTIVITY = 0           # the scc preset's power_idle_activity
KNOWN_CORE_DYNAMIC = 0.001  # the fit's run measures activity against this


def kernel_seconds(cmd: list[str]) -> float:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    m = re.search(r"kernel matmat seconds (\S+)", p.stdout)
    if p.returncode != 0 or not m:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    return float(m[1])


def power_fit(b: pathlib.Path) -> dict:
    """power_core_dynamic, power_domain_static and power_uncore from Share's activity in the model
    (the scc preset's activities of stalls and polls; idle cores at IDLE_ACTIVITY)."""
    with tempfile.TemporaryDirectory() as d:
        chip = pathlib.Path(d, "known.chip")
        chip.write_text(f"base = scc\npower_core_dynamic = {KNOWN_CORE_DYNAMIC}\n")
        p = subprocess.run([str(b / "bin" / "rccerun"), "-nue", "48", "--model", "scc", "--chip", str(chip),
                            "--job-dir", d, str(b / "model-apps" / "share"), "20", "1024", "--pairs"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"share failed:\n{p.stderr}")
        ues = json.loads(pathlib.Path(d, "summary.json").read_text())["ues"]
    full = KNOWN_CORE_DYNAMIC * SHARE_VOLTS ** 2 * REF_MHZ  # one core at activity 1
    share = statistics.fmean(u["dynamic_j"] / (full * u["seconds"]) for u in ues)
    idle = IDLE_ACTIVITY
    core_dynamic = (SHARE_W[48] - SHARE_W[2]) / 46 / (SHARE_VOLTS ** 2 * REF_MHZ * (share - idle))
    core = lambda volts, mhz, a: core_dynamic * volts ** 2 * mhz * a  # noqa: E731
    rest = SHARE_W[2] - 2 * core(SHARE_VOLTS, REF_MHZ, share) - 46 * core(SHARE_VOLTS, REF_MHZ, idle)
    top_rest = TOP_W - 48 * core(TOP_VOLTS, TOP_MHZ, 1.0)
    # rest = DOMAINS x static + uncore, top_rest = DOMAINS x static x TOP_VOLTS / SHARE_VOLTS + uncore
    static = (top_rest - rest) / (DOMAINS * (TOP_VOLTS / SHARE_VOLTS - 1))
    if static < 0:
        raise SystemExit(f"Share's cores run at activity {share:.3f}: 48 executing cores at {TOP_VOLTS} V would "
                         f"draw more than {TOP_W} W; raise power_stall_activity / power_poll_activity")
    return {"share_activity": share, "power_core_dynamic": core_dynamic, "power_domain_static": static,
            "power_uncore": rest - DOMAINS * static}


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
    power = power_fit(b)
    print(f"#   Share at 24 pairs: activity {power.pop('share_activity'):.4f} of an executing core")
    print("base = scc")
    print(f"time_compute_slowdown = {slowdown:.1f}")
    print(f"time_compute_bb_cycles = {P54C_CYCLES / blocks:.2f}")
    for key, value in power.items():
        print(f"{key} = {value:.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Model mode's own cost and repeatability (issue 4, make bench).

For pingpong and stencil at 2 and 48 UEs and the stand-ins for NAS LU (validate/programs/ssor_lu.c)
at 2 and 32 and BT (adi_bt.c) at 4 and 36, runs each program R times
  - native:         the plain build, rccerun without the model;
  - model:          the plain build under rccerun --model scc (computation from host time);
  - counted-native: the rccecc --model-build binary without the model;
  - counted:        the rccecc --model-build binary under --model scc (computation counted
                    in basic blocks, shared-memory accesses charged);
and reports medians of the launcher's wall time, the model's own cost (counted /
counted-native, the same binary with and without the model; target <= 1.3), what the
instrumentation costs (counted-native / native), what a counted model run costs against the
plain native run (counted / native; issue 15's target <= 5), host-time model mode against the
plain build (model / native), and the spread of the predicted virtual time over the runs,
(max - min) / median (target <= 1 %).  Writes bench/results/model.{json,md}.
"""
from __future__ import annotations

import json
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import standalone

# name, UEs, the plain and the counted binary in the build tree, arguments (runs of about 0.2 s or
# more natively)
WORKLOADS = [
    ("pingpong", 2, "apps/pingpong", "model-apps/pingpong", ["262144", "400"]),
    ("pingpong", 48, "apps/pingpong", "model-apps/pingpong", ["65536", "100"]),
    ("stencil", 2, "apps/stencil", "model-apps/stencil", ["32", "100000"]),
    ("stencil", 48, "apps/stencil", "model-apps/stencil", ["32", "3000"]),
    ("ssor_lu", 2, "validate/ssor_lu_native", "validate/ssor_lu", ["33", "5"]),
    ("ssor_lu", 32, "validate/ssor_lu_native", "validate/ssor_lu", ["33", "5"]),
    ("adi_bt", 4, "validate/adi_bt_native", "validate/adi_bt", ["24", "5"]),
    ("adi_bt", 36, "validate/adi_bt_native", "validate/adi_bt", ["24", "5"]),
]
MODES = ("native", "model", "counted-native", "counted")
RATIO_TARGET, SPREAD_TARGET, COUNTED_TARGET = 1.3, 0.01, 5.0


def run_once(build: pathlib.Path, mode: str, nue: int, binaries: tuple[str, str], args: list[str]) -> dict:
    binary = build / binaries[mode.startswith("counted")]
    with tempfile.TemporaryDirectory() as job:
        cmd = [str(build / "bin" / "rccerun"), "-nue", str(nue)]
        if mode in ("model", "counted"):
            cmd += ["--model", "scc", "--job-dir", job]
        cmd += [str(binary), *args]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise SystemExit(f"{shlex.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        virtual = None
        if mode in ("model", "counted"):
            virtual = json.loads(pathlib.Path(job, "summary.json").read_text())["chip_totals"]["seconds"]
    return {"wall_s": wall, "virtual_s": virtual}


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def markdown(rows: list[dict], command: str) -> str:
    out = ["# Model mode: cost and repeatability", "",
           f"`{command}` on {platform.node()} ({len(rows[0]['runs']['native'])} runs each, medians of the "
           f"launcher's wall time). Targets: the model's own cost (a counted binary with / without "
           f"`--model scc`) <= {RATIO_TARGET}x, virtual-time spread over the runs <= {SPREAD_TARGET:.0%}.", "",
           "| workload | UEs | native s | counted build, native s | counted, model s | **model's own cost** | "
           f"instrumentation | **counted model / native** (target {COUNTED_TARGET:g}x) | **spread, counted** | "
           "host-time model s | host-time model / native | spread, host time |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        m, q, s = r["median"], r["ratio"], r["spread"]
        def flag(ok: bool) -> str:
            return "" if ok else " (above target)"
        out.append(
            f"| {r['name']} {' '.join(r['args'])} | {r['nue']} | {m['native']:.3f} | {m['counted-native']:.3f} | "
            f"{m['counted']:.3f} | {q['own']:.2f}x{flag(q['own'] <= RATIO_TARGET)} | {q['instrumentation']:.2f}x | "
            f"{q['counted']:.2f}x{flag(q['counted'] <= COUNTED_TARGET)} | "
            f"{s['counted']:.2%}{flag(s['counted'] <= SPREAD_TARGET)} | {m['model']:.3f} | {q['model']:.2f}x | "
            f"{s['model']:.2%} |")
    return "\n".join(out) + "\n"


def main() -> int:
    a, build, command = standalone.options(__doc__, 5, "model")
    rows = []
    for name, nue, plain, counted, args in WORKLOADS:
        runs = {mode: [] for mode in MODES}
        for _ in range(a.repeat):  # interleaved, so load changes hit every mode alike
            for mode in MODES:
                runs[mode].append(run_once(build, mode, nue, (plain, counted), args))
        median = {mode: statistics.median(r["wall_s"] for r in runs[mode]) for mode in MODES}
        row = {"name": name, "nue": nue, "args": args, "runs": runs, "median": median,
               "ratio": {"own": median["counted"] / median["counted-native"],
                         "instrumentation": median["counted-native"] / median["native"],
                         "counted": median["counted"] / median["native"],
                         "model": median["model"] / median["native"]},
               "spread": {m: spread([r["virtual_s"] for r in runs[m]]) for m in ("model", "counted")}}
        print(f"{name} {nue} UEs: native {median['native']:.3f} s; model's own cost x{row['ratio']['own']:.2f}, "
              f"instrumentation x{row['ratio']['instrumentation']:.2f}, host-time model x{row['ratio']['model']:.2f}; "
              f"virtual spread {row['spread']['counted']:.2%} counted / {row['spread']['model']:.2%} host time",
              flush=True)
        rows.append(row)
    standalone.write(a.out, {"schema": "openscc-model-bench-1", "command": command, "rows": rows},
                     markdown(rows, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())

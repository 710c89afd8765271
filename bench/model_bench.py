#!/usr/bin/env python3
"""Model mode's own cost and repeatability (issue 4, make bench).

For pingpong and stencil at 2 and 48 UEs, runs each program R times
  - native:  rccerun without the model (host time);
  - model:   rccerun --model scc, the same binary (computation from host time);
  - counted: rccerun --model scc, the rccecc --model-build binary (computation
             counted in basic blocks, shared-memory accesses charged);
and reports medians of the launcher's wall time, the model/native ratios
(target <= 1.3) and the spread of the predicted virtual time over the runs,
(max - min) / median (target <= 1 %).  Writes bench/results/model.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKLOADS = [  # name, UEs, program, arguments (runs of about 0.2 s or more natively)
    ("pingpong", 2, "pingpong", ["262144", "400"]),
    ("pingpong", 48, "pingpong", ["65536", "100"]),
    ("stencil", 2, "stencil", ["32", "100000"]),
    ("stencil", 48, "stencil", ["32", "3000"]),
]
MODES = ("native", "model", "counted")
RATIO_TARGET, SPREAD_TARGET = 1.3, 0.01


def run_once(build: pathlib.Path, mode: str, nue: int, program: str, args: list[str]) -> dict:
    binary = build / ("model-apps" if mode == "counted" else "apps") / program
    with tempfile.TemporaryDirectory() as job:
        cmd = [str(build / "bin" / "rccerun"), "-nue", str(nue)]
        if mode != "native":
            cmd += ["--model", "scc", "--job-dir", job]
        cmd += [str(binary), *args]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise SystemExit(f"{shlex.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        virtual = None
        if mode != "native":
            virtual = json.loads(pathlib.Path(job, "summary.json").read_text())["chip_totals"]["seconds"]
    return {"wall_s": wall, "virtual_s": virtual}


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def markdown(rows: list[dict], command: str) -> str:
    out = ["# Model mode: cost and repeatability", "",
           f"`{command}` on {platform.node()} ({len(rows[0]['runs']['native'])} runs each, medians; "
           f"targets: model / native <= {RATIO_TARGET}, virtual-time spread <= {SPREAD_TARGET:.0%}).", "",
           "| workload | UEs | native wall s | model wall s | model / native | counted wall s | counted / native "
           "| virtual spread, model | virtual spread, counted |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        m = r["median"]
        def flag(ok: bool) -> str:
            return "" if ok else " (above target)"
        out.append(
            f"| {r['name']} {' '.join(r['args'])} | {r['nue']} | {m['native']:.3f} | {m['model']:.3f} | "
            f"{r['ratio']['model']:.2f}{flag(r['ratio']['model'] <= RATIO_TARGET)} | {m['counted']:.3f} | "
            f"{r['ratio']['counted']:.2f}{flag(r['ratio']['counted'] <= RATIO_TARGET)} | "
            f"{r['spread']['model']:.2%}{flag(r['spread']['model'] <= SPREAD_TARGET)} | "
            f"{r['spread']['counted']:.2%}{flag(r['spread']['counted'] <= SPREAD_TARGET)} |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--repeat", "-r", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "model"), help="writes OUT.json and OUT.md")
    a = ap.parse_args()
    build = pathlib.Path(a.build)
    command = "python3 " + shlex.join([str(pathlib.Path(sys.argv[0]).resolve().relative_to(ROOT))] + sys.argv[1:])
    rows = []
    for name, nue, program, args in WORKLOADS:
        runs = {mode: [] for mode in MODES}
        for _ in range(a.repeat):  # interleaved, so load changes hit every mode alike
            for mode in MODES:
                runs[mode].append(run_once(build, mode, nue, program, args))
        median = {mode: statistics.median(r["wall_s"] for r in runs[mode]) for mode in MODES}
        row = {"name": name, "nue": nue, "args": args, "runs": runs, "median": median,
               "ratio": {m: median[m] / median["native"] for m in ("model", "counted")},
               "spread": {m: spread([r["virtual_s"] for r in runs[m]]) for m in ("model", "counted")}}
        print(f"{name} {nue} UEs: native {median['native']:.3f} s, model x{row['ratio']['model']:.2f}, "
              f"counted x{row['ratio']['counted']:.2f}; virtual spread {row['spread']['model']:.2%} / "
              f"{row['spread']['counted']:.2%}", flush=True)
        rows.append(row)
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"schema": "openscc-model-bench-1", "command": command,
                                                    "rows": rows}, indent=1) + "\n")
    page = markdown(rows, command)
    out.with_suffix(".md").write_text(page)
    print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())

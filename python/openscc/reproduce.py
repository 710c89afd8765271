"""`openscc reproduce furst2012`: the experiments of [FURST-2011] (Furst & Coskun,
"Performance and Power Analysis of RCCE Message Passing on the Intel SCC") in
model mode with the example apps, as counted builds (repeatable predictions):

  hops      Stencil, one pair, 0/1/2/3/8 hops                     (paper Fig. 5)
  pairs     Share, Shift, Stencil with 1..24 pairs at 3 hops       (Figs. 6-7)
  bcast     Bcast from one core to N = 1..47 cores                 (Figs. 8-9)
  power     Share/Shift/Stencil/Pingpong, 24 pairs, 0 hops: power and EDP; Share 1 pair (Figs. 10-11)
  logging   overhead of each trace level on the programs' timed loops, natively (Figs. 2-3)

Writes figures, results.json, table.md (against the paper's numbers where it
gives them) and index.html into the output directory.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .files import OutputDir, PathError
from .jobdir import load_summary, measured
from .placement import three_hop_pairs

EXPERIMENTS = ("hops", "pairs", "bcast", "power", "logging")
HOP_PARTNER = {0: 1, 1: 2, 2: 4, 3: 6, 8: 47}  # core paired with core 0 (paper Section III)
# The paper's numbers ([FURST-2011] sec. IV; docs/references.md ref 4).
PUBLISHED = {"share_1_pair_w": 31.616, "share_24_pairs_w": 50.768, "stencil_targets_overhead": 0.0021}


@dataclass
class Settings:
    build: Path
    quick: bool
    out: Path
    runs: int = 0
    log: list = field(default_factory=list)

    def size(self, full, quick):
        return quick if self.quick else full


def run(s: Settings, app: str, nue: int, args: list, cores=None, opts=(), counted=True, label="") -> dict:
    """One rccerun job; returns its summary.json plus the launcher's wall time and
    the time the program measured itself (its timed loop), when it prints one."""
    s.runs += 1
    with tempfile.TemporaryDirectory() as job:
        cmd = [str(s.build / "bin" / "rccerun"), "-nue", str(nue), "--job-dir", job, *opts]
        if cores:
            cmd += ["--cores", ",".join(map(str, cores))]
        cmd += [str(s.build / ("model-apps" if counted else "apps") / app), *map(str, args)]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        written = Path(job, "summary.json")  # not for a native run without --trace
        summary = load_summary(Path(job)) if written.exists() else {}
    summary["wall_s"] = wall
    timed = re.search(r"(\d+\.\d+) s\b", p.stdout)
    summary["timed_s"] = float(timed[1]) if timed else None
    print(f"  [{s.runs}] {label or app}: {nue} UEs, {wall:.2f} s", flush=True)
    return summary


def model(s: Settings, app: str, nue: int, args: list, cores=None, label="") -> dict:
    return run(s, app, nue, args, cores, ["--model", "scc"], label=label)


def hops(s: Settings) -> dict:
    args = [32, s.size(200, 50)]
    t = {h: measured(model(s, "stencil", 2, args, [0, c], f"stencil {h} hops"))["seconds"]
         for h, c in HOP_PARTNER.items()}
    return {"args": args, "seconds": t}


def pairs(s: Settings) -> dict:
    counts = s.size([1, 2, 3, 4, 5, 6, 12, 18, 24], [1, 2, 4, 6, 12, 24])
    apps = {"share": [s.size(20, 5), 1024, "--pairs"], "shift": [s.size(2000, 300), 128, "--pairs"],
            "stencil": [32, s.size(100, 30), 8, "--pairs"]}
    res = {}
    for app, args in apps.items():
        res[app] = {n: measured(model(s, app, 2 * n, args, three_hop_pairs(n), f"{app} {n} pairs"))["seconds"]
                    for n in counts}
    return {"pairs": counts, "seconds": res}


def bcast(s: Settings) -> dict:
    ns = s.size(list(range(1, 48)), [1, 2, 4, 8, 12, 16, 24, 32, 40, 47])
    args = [s.size(4096, 1024), s.size(10, 2)]
    t = {n: measured(model(s, "bcast", n + 1, args, label=f"bcast to {n}"))["seconds"] for n in ns}
    return {"args": args, "seconds": t}


def power(s: Settings) -> dict:
    apps = {"share": [s.size(20, 5), 1024, "--pairs"], "shift": [s.size(2000, 300), 128, "--pairs"],
            "stencil": [32, s.size(100, 30), 8, "--pairs"], "pingpong": [s.size(65536, 4096), s.size(20, 3)]}
    res = {}
    for app, args in apps.items():
        t = measured(model(s, app, 48, args, label=f"{app} 24 pairs"))
        res[app] = {"seconds": t["seconds"], "average_w": t["average_w"], "energy_j": t["energy_j"], "edp_js": t["edp_js"]}
    one = measured(model(s, "share", 2, apps["share"], label="share 1 pair"))
    return {"24_pairs": res, "share_1_pair_w": one["average_w"], "share_24_pairs_w": res["share"]["average_w"]}


def logging(s: Settings) -> dict:
    levels = ("off", "counters", "messages", "targets", "sizes")
    # Two UEs, one per host CPU: with more, host scheduling noise swamps the effect.
    repeats = s.size(9, 5)
    apps = {"stencil": (2, [32, s.size(200000, 50000)]), "shift": (2, [s.size(200000, 50000), 128])}
    res = {}
    for app, (nue, args) in apps.items():
        walls = {lvl: [] for lvl in levels}
        for _ in range(repeats):
            for lvl in levels:
                opts = [] if lvl == "off" else ["--trace", lvl]
                walls[lvl].append(run(s, app, nue, args, opts=opts, counted=False, label=f"{app} --trace {lvl}")["timed_s"])
        med = {lvl: sorted(v)[len(v) // 2] for lvl, v in walls.items()}
        res[app] = {lvl: med[lvl] / med["off"] - 1 for lvl in levels[1:]}
    return {"repeats": repeats, "overhead": res}


def table_rows(results: dict) -> list[tuple[str, str, str, str]]:
    """(figure, the paper's value, ours, error) where the paper gives a number or a trend."""
    rows = []
    if "power" in results:
        for key, label in (("share_1_pair_w", "Share power, 1 pair (W)"), ("share_24_pairs_w", "Share power, 24 pairs (W)")):
            ours, paper = results["power"][key], PUBLISHED[key]
            rows.append((label, f"{paper}", f"{ours:.3f}", f"{abs(ours - paper) / paper:.1%}"))
    if "logging" in results:
        over = results["logging"]["overhead"]
        rows.append(("Stencil, message-target logging overhead", f"{PUBLISHED['stencil_targets_overhead']:.2%}",
                     f"{over['stencil']['targets']:+.2%} (host time)", "-"))
        for app, paper in (("stencil", "> 200 %"), ("shift", "> 600 %")):
            rows.append((f"{app.title()}, message-size logging overhead", paper, f"{over[app]['sizes']:+.1%}", "-"))
    if "hops" in results:
        t = results["hops"]["seconds"]
        rows.append(("Stencil time grows with hops (Fig. 5)", "linear trend",
                     f"0 hops {t[0] * 1e3:.3f} ms .. 8 hops {t[8] * 1e3:.3f} ms", "-"))
    if "pairs" in results:
        r = results["pairs"]["seconds"]
        rows.append(("24 pairs vs 1 pair at 3 hops (Figs. 6-7)", "Share slower, Shift and Stencil not",
                     ", ".join(f"{a} {v[max(v)] / v[min(v)]:.3f}x" for a, v in r.items()), "-"))
    return rows


def markdown(rows: list[tuple[str, str, str, str]]) -> str:
    lines = ["| figure | paper | OpenSCC model | error |", "| --- | --- | --- | --- |"]
    lines += [f"| {' | '.join(r)} |" for r in rows]
    return "\n".join(lines) + "\n"


RUNNERS = {"hops": hops, "pairs": pairs, "bcast": bcast, "power": power, "logging": logging}


def reproduce(build: Path, out: Path, quick: bool, experiments: list[str]) -> Path:
    s = Settings(build=build, quick=quick, out=out)
    if not (build / "bin" / "rccerun").is_file() or not (build / "model-apps").is_dir():
        raise PathError(build, "no OpenSCC build with bin/rccerun and model-apps/ (run make build)")
    with OutputDir(out) as d:
        return _reproduce(s, experiments, d)


def _reproduce(s: Settings, experiments: list[str], out: OutputDir) -> Path:
    results = {"quick": s.quick, "experiments": experiments}
    t0 = time.perf_counter()
    for name in experiments:
        print(f"{name}:", flush=True)
        results[name] = RUNNERS[name](s)
    results["runs"], results["elapsed_s"] = s.runs, time.perf_counter() - t0
    out.write("results.json", json.dumps(results, indent=1) + "\n")
    rows = table_rows(results)
    out.write("table.md", "# furst2012 reproduction (OpenSCC model mode)\n\n" + markdown(rows))
    from . import reproduce_plots  # matplotlib takes most of a second to import: only to draw

    figures = reproduce_plots.draw(results, out)
    index = reproduce_plots.page(results, rows, figures, out)
    print(f"{s.runs} runs in {results['elapsed_s']:.0f} s", file=sys.stderr)
    return index

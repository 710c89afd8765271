#!/usr/bin/env python3
"""Mailboxes and shared virtual memory (issue 6, make bench): [SVM-2012] sec. 7 (docs/references.md) on OpenSCC.

  - Laplace (Fig. 9): apps/laplace in its three variants (mp: iRCCE message passing;
    strong and lazy: SVM) at 1, 2, 4, 8, 16, 32 and 48 UEs, the program's own timed
    iterations;
  - Table 1: apps/svm_table1 on cores 0 and 30, natively and in model mode (the counted
    build from model-apps/ under rccerun --model scc: virtual SCC microseconds);
  - mailbox latency vs distance (Fig. 6): apps/mailbox_pingpong between cores 0 and k,
    1..8 hops, with doorbells (--mailbox irq) and polling (--mailbox poll);
  - mailbox latency vs active cores (Fig. 7): UE 0 on core 0, UE 1 on core 30, 2..48
    UEs: irq, poll, and irq with the other UEs mailing each other (--background);
  - Laplace and both mailbox experiments once more in model mode (counted builds, run once).
Every configuration runs R times, interleaved (repeat -> configuration), so load changes
hit all alike; tables show medians over the runs.  A failed run is recorded and the
cell shows how many failed.  Writes bench/results/svm.{json,md}.
"""
from __future__ import annotations

import datetime
import os
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

LAPLACE_UES = (1, 2, 4, 8, 16, 32, 48)
LAPLACE_VARIANTS = ("mp", "strong", "lazy")
# 1000 iterations of the 1024 x 512 grid: about 0.5 s per run natively on 1 UE (the paper
# ran 5000 on 533 MHz P54C cores); the whole script stays near 10 minutes on 2 CPUs.
LAPLACE_ITERATIONS = 1000
# Model mode (counted builds, the same virtual time every run: one run each): 10 iterations.
LAPLACE_MODEL_ITERATIONS = 10
HOP_CORES = {1: 2, 2: 4, 3: 6, 4: 8, 5: 10, 6: 22, 7: 34, 8: 46}  # core k at h XY hops from core 0
ACTIVE_UES = (2, 4, 8, 16, 32, 48)
PINGPONG_ARGS = ["2000", "100"]  # round trips, warm-up
TIMEOUT = 300
TABLE1_KEYS = ("alloc_4mb", "page_alloc", "page_map", "page_permission")
TABLE1_TITLES = ("allocation of 4 MByte (us)", "physical allocation of a page frame (us)",
                 "mapping of a page frame (us)", "retrieve the access permission of a page frame (us)")
# [SVM-2012] Table 1 (docs/references.md) (533 MHz cores, 800 MHz mesh and memory), for comparison.
PAPER_TABLE1 = {"strong": (741.0, 112.301, 10.198, 8.990), "lazy": (741.0, 112.296, 2.418, None)}

LAPLACE_LINE = re.compile(r"^laplace: variant=(\w+) ues=(\d+) .* time_s=(\d+\.\d+) checksum=\S+ bits=0x([0-9a-f]+) "
                          r"hash=0x([0-9a-f]+)$", re.M)
TABLE1_LINE = re.compile(r"^table1: model=(strong|lazy) row=(\w+) us=(\S+)", re.M)
PINGPONG_LINE = re.compile(r"^mailbox_pingpong: ues=(\d+) hops=(\d+) .* latency_us=(\d+\.\d+) median_us=(\d+\.\d+) "
                           r"background_mails=(\d+)$", re.M)


def cores_active(nue: int) -> str:
    """UE 0 on core 0, UE 1 on core 30, the others on the remaining cores in order."""
    rest = [c for c in range(48) if c not in (0, 30)]
    return ",".join(map(str, [0, 30] + rest[:nue - 2]))


def configurations(build: pathlib.Path, iterations: int) -> list[dict]:
    """Every run of one repeat: its section, key, rccerun arguments and program."""
    apps = build / "apps"
    out = []
    for nue in LAPLACE_UES:
        for v in LAPLACE_VARIANTS:
            out.append({"section": "laplace", "key": [v, nue],
                        "args": ["-nue", str(nue)], "program": [str(apps / "laplace"), v, str(iterations)]})
    out.append({"section": "table1", "key": ["native"], "args": ["-nue", "2", "--cores", "0,30"],
                "program": [str(apps / "svm_table1")]})
    out.append({"section": "table1", "key": ["model"], "args": ["-nue", "2", "--cores", "0,30", "--model", "scc"],
                "program": [str(build / "model-apps" / "svm_table1")]})
    for hops, core in HOP_CORES.items():
        for mode in ("irq", "poll"):
            out.append({"section": "hops", "key": [mode, hops],
                        "args": ["-nue", "2", "--cores", f"0,{core}", "--mailbox", mode],
                        "program": [str(apps / "mailbox_pingpong"), *PINGPONG_ARGS]})
    for nue in ACTIVE_UES:
        for mode, extra in (("irq", []), ("poll", []), ("irq+background", ["--background"])):
            out.append({"section": "active", "key": [mode, nue],
                        "args": ["-nue", str(nue), "--cores", cores_active(nue), "--mailbox", mode.split("+")[0]],
                        "program": [str(apps / "mailbox_pingpong"), *PINGPONG_ARGS, *extra]})
    return out + model_configurations(build)


def model_configurations(build: pathlib.Path) -> list[dict]:
    """The same experiments in model mode with the counted builds; deterministic, so run once."""
    apps, model = build / "model-apps", ["--model", "scc"]
    out = []
    for nue in LAPLACE_UES:
        for v in LAPLACE_VARIANTS:
            out.append({"section": "laplace_model", "key": [v, nue], "once": True, "args": ["-nue", str(nue), *model],
                        "program": [str(apps / "laplace"), v, str(LAPLACE_MODEL_ITERATIONS)]})
    for hops, core in HOP_CORES.items():
        for mode in ("irq", "poll"):
            out.append({"section": "hops_model", "key": [mode, hops], "once": True,
                        "args": ["-nue", "2", "--cores", f"0,{core}", "--mailbox", mode, *model],
                        "program": [str(apps / "mailbox_pingpong"), *PINGPONG_ARGS]})
    for nue in ACTIVE_UES:
        for mode, extra in (("irq", []), ("poll", []), ("irq+background", ["--background"])):
            out.append({"section": "active_model", "key": [mode, nue], "once": True,
                        "args": ["-nue", str(nue), "--cores", cores_active(nue), "--mailbox", mode.split("+")[0], *model],
                        "program": [str(apps / "mailbox_pingpong"), *PINGPONG_ARGS, *extra]})
    return out


def parse(section: str, out: str) -> dict | None:
    section = section.removesuffix("_model")
    if section == "laplace":
        m = LAPLACE_LINE.search(out)
        return m and {"time_s": float(m[3]), "bits": m[4], "hash": m[5]}
    if section == "table1":
        cells = {f"{model}/{row}": (None if us == "n/a" else float(us)) for model, row, us in TABLE1_LINE.findall(out)}
        return cells if len(cells) == 8 else None
    m = PINGPONG_LINE.search(out)
    return m and {"hops": int(m[2]), "mean_us": float(m[3]), "median_us": float(m[4]), "mails": int(m[5])}


def run_once(build: pathlib.Path, cfg: dict) -> dict:
    with tempfile.TemporaryDirectory() as job:
        cmd = [str(build / "bin" / "rccerun"), *cfg["args"]]
        if "--model" in cfg["args"]:
            cmd += ["--job-dir", job]
        cmd += cfg["program"]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", str(e.stdout or ""), str(e.stderr or "")
        wall = time.perf_counter() - t0
    shown = shlex.join([pathlib.Path(cmd[0]).name, *cfg["args"], *cfg["program"]])
    value = parse(cfg["section"], out) if rc == 0 else None
    run = {"command": shown, "rc": rc, "wall_s": round(wall, 4), "value": value}
    if value is None:
        run["output_tail"] = (out + err)[-2000:]
    return run


def median_of(runs: list[dict], field) -> tuple[float | None, int]:
    """Median of field(value) over the runs that worked, and how many failed."""
    ok = [field(r["value"]) for r in runs if r["value"] is not None]
    ok = [v for v in ok if v is not None]
    return (statistics.median(ok) if ok else None), len(runs) - len(ok)


def cell(runs: list[dict], field, fmt: str = "{:.3f}") -> str:
    value, failed = median_of(runs, field)
    if value is None:
        return "failed"
    return fmt.format(value) + (f" ({failed}/{len(runs)} failed)" if failed else "")


def markdown(doc: dict, runs: dict) -> str:
    r = doc["repeat"]
    def get(section, *key):
        return runs.get((section, *key), [])
    def laplace_table(section, fmt, ratio_digits):
        rows = ["| UEs | mp (iRCCE) s | strong s | lazy release s | strong / mp | lazy / mp |",
                "| ---: | ---: | ---: | ---: | ---: | ---: |"]
        for nue in LAPLACE_UES:
            t = {v: median_of(get(section, v, nue), lambda x: x["time_s"])[0] for v in LAPLACE_VARIANTS}
            ratio = lambda v: f"{t[v] / t['mp']:.{ratio_digits}f}x" if t[v] and t["mp"] else ""
            rows.append(f"| {nue} | " + " | ".join(cell(get(section, v, nue), lambda x: x["time_s"], fmt)
                                                  for v in LAPLACE_VARIANTS) + f" | {ratio('strong')} | {ratio('lazy')} |")
        return rows

    out = ["# Mailboxes and shared virtual memory ([SVM-2012] sec. 7)", "",
           f"`{doc['command']}` on {doc['host']['node']} ({doc['host']['cpus']} CPUs), {doc['date']}; "
           f"{r} runs per cell, interleaved; medians. Native times are host time, model-mode times virtual SCC "
           "time (`rccerun --model scc`, counted build).", ""]

    out += ["## Laplace ([SVM-2012] Fig. 9)", "",
            f"`rccerun -nue N laplace VARIANT {doc['laplace_iterations']}`: 1024 x 512 doubles, "
            f"{doc['laplace_iterations']} iterations (the paper: 5000), the program's timed iterations in seconds "
            "(maximum over UEs). All runs of all variants and UE counts gave the same checksum bits: "
            f"**{'yes' if doc['laplace_checksums_agree'] else 'NO'}**.", "",
            *laplace_table("laplace", "{:.4f}", 2)]

    model_sums = {r["value"]["bits"] for (sec, *_), rs in runs.items() if sec == "laplace_model" for r in rs if r["value"]}
    out += ["", f"Model mode: the counted build, `rccerun -nue N --model scc laplace VARIANT {LAPLACE_MODEL_ITERATIONS}`, "
            "virtual SCC seconds of the timed iterations, one run each: counted builds predict the same time every "
            "run for mp and lazy; the strong model's time varies from run to run, because how often two neighbours "
            "take a boundary page from each other depends on the order they touch it on the host (docs/svm.md). "
            f"All variants and UE counts gave the same checksum bits: **{'yes' if len(model_sums) == 1 else 'NO'}**.",
            "", *laplace_table("laplace_model", "{:.6f}", 3)]

    out += ["", "## Table 1: average overhead of the SVM system ([SVM-2012] sec. 7.2.1)", "",
            "`rccerun -nue 2 --cores 0,30 svm_table1` (native) and the counted build with `--model scc` (model). "
            "The allocation row is the whole svm_alloc call, the others are per page. The paper's values "
            "(533 MHz cores) are for comparison.", "",
            "| | strong, native | lazy, native | strong, model | lazy, model | strong, paper | lazy, paper |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for i, (key, title) in enumerate(zip(TABLE1_KEYS, TABLE1_TITLES)):
        cells = []
        for mode in ("native", "model"):
            for model in ("strong", "lazy"):
                cells.append("-" if (model, key) == ("lazy", "page_permission")
                             else cell(get("table1", mode), lambda x, k=f"{model}/{key}": x[k]))
        paper = [PAPER_TABLE1[m][i] for m in ("strong", "lazy")]
        cells += [f"{v:.3f}" if v is not None else "-" for v in paper]
        out.append(f"| {title} | " + " | ".join(cells) + " |")

    mean = lambda x: x["mean_us"]
    med = lambda x: x["median_us"]
    out += ["", "## Mailbox latency vs distance ([SVM-2012] Fig. 6)", "",
            f"`rccerun -nue 2 --cores 0,K --mailbox irq|poll mailbox_pingpong {' '.join(PINGPONG_ARGS)}`: half round "
            "trip of a 28-byte mail in us; per run the mean (the paper's average) and the median over the round "
            "trips, then the median over the runs.", "",
            "| hops | cores | irq mean | irq median | poll mean | poll median | model irq | model poll |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for hops, core in HOP_CORES.items():
        out.append(f"| {hops} | 0, {core} | " + " | ".join(
            [cell(get("hops", mode, hops), f) for mode in ("irq", "poll") for f in (mean, med)] +
            [cell(get("hops_model", mode, hops), mean) for mode in ("irq", "poll")]) + " |")

    out += ["", "## Mailbox latency vs active cores ([SVM-2012] Fig. 7)", "",
            f"`rccerun -nue N --cores 0,30,... --mailbox irq|poll mailbox_pingpong {' '.join(PINGPONG_ARGS)} "
            "[--background]`: UEs 0 and 1 on cores 0 and 30 (5 hops); the other UEs wait in mailbox_recv, or with "
            "`--background` mail each other in pairs. Mean (median) half round trip in us. On this host the "
            f"{doc['host']['cpus']} CPUs are shared by all N UEs, so from N > {doc['host']['cpus']} on the "
            "numbers include the host's scheduling of the other UEs.", "",
            "Model columns: virtual SCC time of the counted build (`--model scc`), the mean.", "",
            "| UEs | irq | poll | irq + background | background mails (median) | model irq | model poll | model irq + background |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for nue in ACTIVE_UES:
        cells = [f"{cell(get('active', mode, nue), mean)} ({cell(get('active', mode, nue), med)})"
                 for mode in ("irq", "poll", "irq+background")]
        mails = cell(get("active", "irq+background", nue), lambda x: x["mails"], "{:.0f}")
        model = [cell(get("active_model", mode, nue), mean) for mode in ("irq", "poll", "irq+background")]
        out.append(f"| {nue} | " + " | ".join(cells) + f" | {mails} | " + " | ".join(model) + " |")
    if doc["failures"]:
        out += ["", "## Failed runs", ""] + [f"- `{f['command']}`: exit {f['rc']}" for f in doc["failures"]]
    return "\n".join(out) + "\n"


def main() -> int:
    a, build, command = standalone.options(__doc__, 5, "svm")
    configs = configurations(build, LAPLACE_ITERATIONS)
    runs: dict[tuple, list[dict]] = {}
    t_start = time.perf_counter()
    for rep in range(a.repeat):
        for cfg in configs:
            if cfg.get("once") and rep > 0:
                continue
            run = run_once(build, cfg)
            runs.setdefault((cfg["section"], *cfg["key"]), []).append(run)
            shown = run["value"] if run["value"] is not None else f"FAILED (exit {run['rc']})"
            print(f"[{rep + 1}/{a.repeat}] {run['command']}: {shown}", flush=True)
    laplace_results = {(r["value"]["bits"], r["value"]["hash"]) for k, rs in runs.items() if k[0] == "laplace"
                       for r in rs if r["value"]}
    model_results = {r["value"]["bits"] for k, rs in runs.items() if k[0] == "laplace_model" for r in rs if r["value"]}
    failures = [r for rs in runs.values() for r in rs if r["value"] is None]
    hop_mismatch = [r["command"] for (s, *key), rs in runs.items() if s == "hops" for r in rs
                    if r["value"] and r["value"]["hops"] != key[1]]
    if hop_mismatch:
        print(f"warning: hop counts differ from the intended ones: {hop_mismatch}", file=sys.stderr)
    doc = {"schema": "openscc-svm-bench-1", "command": command, "repeat": a.repeat,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "host": {"node": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
           "laplace_iterations": LAPLACE_ITERATIONS, "pingpong_args": PINGPONG_ARGS,
           "laplace_checksums_agree": len(laplace_results) == 1, "failures": failures,
           "duration_s": round(time.perf_counter() - t_start, 1),
           "runs": [{"section": k[0], "key": list(k[1:]), "runs": rs} for k, rs in runs.items()]}
    standalone.write(a.out, doc, markdown(doc, runs))
    return 0 if not failures and doc["laplace_checksums_agree"] and len(model_results) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())

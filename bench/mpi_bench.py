#!/usr/bin/env python3
"""MPI through OpenSCC's provider vs the MPI libraries' own shared memory (issue 14, make bench).

bench/mpi/mpi_bench.c, built with each library's own mpicc, measures OSU-style latency (half round
trip: 8 B, 1 KiB, 64 KiB, 1 MiB) and bandwidth (64 KiB messages, windows of 64) between ranks 0 and
1, and the 48-rank MPI_Barrier and 8-byte MPI_Allreduce (SKaMPI-style: the slowest rank's time per
operation), each under four set-ups side by side:
  - openscc-openmpi: `rccerun --mpi openmpi` (Open MPI 4.1 over the provider and the rckmpi channel);
  - openmpi-vader: Debian's Open MPI with its own shared-memory transport (pml ob1, btl self,vader);
    at 48 ranks oversubscribed, as it runs on 2 CPUs;
  - openscc-mpich: `rccerun --mpi mpich` (the PyPI MPICH 5 wheel over the provider);
  - mpich-shm: the same wheel on its own (ch4 with its POSIX shared-memory transport between ranks).
rccerun gives Open MPI the linear barrier natively when ranks outnumber CPUs; one more barrier row runs
the Open MPI pair only, vader with that barrier too.  Every configuration runs R times, interleaved (repeat -> configuration), so load changes hit all
alike; tables show medians.  The issue's targets: 8 B <= 2x vader; 1 MiB <= 1.0x vader; 48-rank
barrier <= 0.5x Open MPI oversubscribed.  Writes bench/results/mpi.{json,md}.
"""
from __future__ import annotations

import datetime
import os
import pathlib
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

import standalone

ROOT = standalone.ROOT
VENV = pathlib.Path(os.environ.get("OPENSCC_MPICH_PREFIX") or ROOT / ".venv")
TIMEOUT = 300
# (label, test, size, iterations, ranks)
TESTS = (
    ("latency 8 B", "latency", 8, 20000, 2),
    ("latency 1 KiB", "latency", 1024, 10000, 2),
    ("latency 64 KiB", "latency", 65536, 2000, 2),
    ("latency 1 MiB", "latency", 1 << 20, 200, 2),
    ("bandwidth 64 KiB", "bandwidth", 65536, 100, 2),
    ("barrier, 48 ranks", "barrier", 0, 200, 48),
    ("barrier, 48 ranks, vader with the linear barrier too", "barrier", 0, 200, 48),
    ("allreduce 8 B, 48 ranks", "allreduce", 8, 200, 48),
)
SETUPS = ("openscc-openmpi", "openmpi-vader", "openscc-mpich", "mpich-shm")
# rccerun gives Open MPI the linear barrier natively when ranks outnumber CPUs (docs/mpi.md "Collectives on
# an oversubscribed host"); this row gives vader the same, to show the transports' part of the difference.
LINEAR_ROW = "barrier, 48 ranks, vader with the linear barrier too"
LINEAR_MCA = ["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_barrier_algorithm", "1"]


def setups_of(label: str) -> tuple:
    return SETUPS[:2] if label == LINEAR_ROW else SETUPS
LINE = re.compile(r"^mpi_bench test=(\w+) size=(\d+) ranks=(\d+) usec=(\S+)(?: mbps=(\S+))?$", re.M)
# (row label, numerator set-up, denominator set-up, limit): the targets.
TARGETS = (("latency 8 B", "openscc-openmpi", "openmpi-vader", 2.0),
           ("latency 1 MiB", "openscc-openmpi", "openmpi-vader", 1.0),
           ("barrier, 48 ranks", "openscc-openmpi", "openmpi-vader", 0.5))


def build_programs(work: pathlib.Path) -> dict[str, pathlib.Path]:
    """mpi_bench built with Open MPI's and the MPICH wheel's mpicc."""
    src = ROOT / "bench" / "mpi" / "mpi_bench.c"
    out = {}
    for lib, mpicc in (("openmpi", shutil.which("mpicc.openmpi")), ("mpich", str(VENV / "bin" / "mpicc"))):
        exe = work / f"mpi_bench-{lib}"
        subprocess.run([mpicc, "-O2", str(src), "-o", str(exe)], check=True)
        out[lib] = exe
    return out


def command(setup: str, build: pathlib.Path, programs: dict, label: str, test: str, size: int, iters: int,
            ranks: int) -> list:
    args = [test, str(size), str(iters)]
    if setup == "openscc-openmpi":
        return [str(build / "bin" / "rccerun"), "--mpi", "openmpi", "-nue", str(ranks), str(programs["openmpi"]), *args]
    if setup == "openscc-mpich":
        return [str(build / "bin" / "rccerun"), "--mpi", "mpich", "-nue", str(ranks), str(programs["mpich"]), *args]
    if setup == "openmpi-vader":
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        linear = LINEAR_MCA if label == LINEAR_ROW else []
        return ["mpirun.openmpi", *root, "--oversubscribe", "--bind-to", "none", "-n", str(ranks), "--mca", "pml",
                "ob1", "--mca", "btl", "self,vader", *linear, str(programs["openmpi"]), *args]
    return [str(VENV / "bin" / "mpiexec"), "-n", str(ranks), str(programs["mpich"]), *args]


def run_once(cmd: list) -> dict:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", f"timeout after {TIMEOUT} s"
    m = LINE.search(out)
    value = None
    if rc == 0 and m:
        value = {"usec": float(m.group(4)), "mbps": float(m.group(5)) if m.group(5) else None}
    return {"command": " ".join(cmd), "rc": rc, "value": value, "wall_s": round(time.perf_counter() - t0, 2),
            "stderr_tail": err[-400:] if value is None else ""}


def field_of(label: str) -> str:
    return "mbps" if label.startswith("bandwidth") else "usec"


def median(runs: list[dict], field: str) -> float | None:
    vals = [r["value"][field] for r in runs if r["value"] and r["value"][field] is not None]
    return statistics.median(vals) if vals else None


def repeat_ratios(runs: dict, label: str, num: str, den: str) -> list[float]:
    """num / den measured in the same repeat (back to back), one per repeat."""
    f = field_of(label)
    pairs = zip(runs.get((label, num), []), runs.get((label, den), []))
    return [a["value"][f] / b["value"][f] for a, b in pairs if a["value"] and b["value"] and b["value"][f]]


def paired_ratio(runs: dict, label: str, num: str, den: str) -> float | None:
    """The median of repeat_ratios: the host's speed changes from minute to minute, so ratios of
    separate medians would mix its states."""
    ratios = repeat_ratios(runs, label, num, den)
    return statistics.median(ratios) if ratios else None


def markdown(doc: dict, med: dict, runs: dict) -> str:
    lines = [f"# MPI through OpenSCC's provider vs the libraries' own shared memory\n",
             f"Produced by `{doc['command']}` (run from the repository root) on {doc['date']}: "
             f"{doc['host']['cpus']} CPUs, kernel {doc['host']['kernel']}; medians of {doc['repeat']} runs, "
             "interleaved; ratios are medians of the ratios within each repeat. Latency: half round trip; "
             "barrier and allreduce: the slowest rank's time per operation; times from MPI_Wtime (host time).\n",
             "| test | OpenSCC + Open MPI | Open MPI (vader) | ratio | OpenSCC + MPICH | MPICH (shm) | ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]

    def fmt(v, setup=None, label=None):
        if setup not in setups_of(label):
            return "—"
        return "failed" if v is None else (f"{v:.3f}" if v < 100 else f"{v:.1f}")

    def ratio(label, num, den):
        r = paired_ratio(runs, label, num, den)
        return "" if r is None else f"{r:.2f}x"

    for label, *_ in TESTS:
        unit = "MB/s" if field_of(label) == "mbps" else "µs"
        v = {s: med.get((label, s)) for s in SETUPS}
        cell = {s: fmt(v[s], s, label) for s in SETUPS}
        lines.append(f"| {label} ({unit}) | {cell['openscc-openmpi']} | {cell['openmpi-vader']} | "
                     f"{ratio(label, 'openscc-openmpi', 'openmpi-vader')} | {cell['openscc-mpich']} | "
                     f"{cell['mpich-shm']} | {ratio(label, 'openscc-mpich', 'mpich-shm')} |")
    lines += ["", "| target | measured (median) | per repeat | limit | met |", "|---|---:|---|---:|---|"]
    for t in doc["targets"]:
        shown = "failed" if t["ratio"] is None else f"{t['ratio']:.2f}x"
        each = ", ".join(f"{r:.2f}x" for r in t["per_repeat"])
        lines.append(f"| {t['label']}: {t['num']} / {t['den']} | {shown} | {each} | {t['limit']:.1f}x | "
                     f"{'yes' if t['met'] else 'no'} |")
    if doc["failures"]:
        lines += ["", f"{len(doc['failures'])} run(s) failed: see `failures` in the JSON file."]
    return "\n".join(lines) + "\n"


def main() -> int:
    a, build, cmdline = standalone.options(__doc__, 5, "mpi")
    work = build / "bench" / "mpi"
    work.mkdir(parents=True, exist_ok=True)
    programs = build_programs(work)
    runs: dict[tuple, list[dict]] = {}
    t_start = time.perf_counter()
    for rep in range(a.repeat):
        for label, test, size, iters, ranks in TESTS:
            for setup in setups_of(label):
                run = run_once(command(setup, build, programs, label, test, size, iters, ranks))
                runs.setdefault((label, setup), []).append(run)
                shown = run["value"] if run["value"] else f"FAILED (exit {run['rc']})"
                print(f"[{rep + 1}/{a.repeat}] {label} {setup}: {shown}", flush=True)
    med = {k: median(rs, field_of(k[0])) for k, rs in runs.items()}
    targets = []
    for label, num, den, limit in TARGETS:
        r = paired_ratio(runs, label, num, den)
        targets.append({"label": label, "num": num, "den": den, "limit": limit, "ratio": r,
                        "per_repeat": repeat_ratios(runs, label, num, den),
                        "met": r is not None and r <= limit})
    failures = [r for rs in runs.values() for r in rs if r["value"] is None]
    doc = {"schema": "openscc-mpi-bench-1", "command": cmdline, "repeat": a.repeat,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "host": {"node": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
           "tests": [list(t) for t in TESTS], "targets": targets, "failures": failures,
           "medians": [{"test": k[0], "setup": k[1], "median": v} for k, v in med.items()],
           "duration_s": round(time.perf_counter() - t_start, 1),
           "runs": [{"test": k[0], "setup": k[1], "runs": rs} for k, rs in runs.items()]}
    standalone.write(a.out, doc, markdown(doc, med, runs))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())

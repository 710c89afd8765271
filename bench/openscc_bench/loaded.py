"""The load group: waiting policies on an idle and on a loaded host, and a
polling iRCCE ring; written to load.{json,md} (issue 12 items 19 and 20).

A "loaded" run starts LOAD_PROCS busy processes (pure Python loops, each
ending by itself after the run's timeout and killed right after the run)
before the launcher, so the UEs share the CPUs with them.  OpenSCC runs with
its default (adaptive) waiting and with fixed policies (OPENSCC_SPIN /
OPENSCC_YIELD, docs/rccerun.md); MPICH and Open MPI run the same pingpong
under the same load.  Repeats are round-robin and every cell is a median."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .building import build
from .documents import write_results
from .processes import kill_group, launcher, run_cmd
from .progress import log
from .result_lines import parse_lines
from .targets import verdict

LOAD_PROCS = 2
LOAD_PROGRAMS = {
    "openscc": {"pingpong": ("rcce/pingpong_bench.c", "pingpong_bench"),
                "stress": ("../tests/programs/stress.c", "stress"),
                "ring": ("ircce/ring_bench.c", "ring_bench")},
    "mpich": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi")},
    "openmpi": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi")},
}
# column -> environment of the OpenSCC run (None: an MPI peer)
POLICIES = {
    "adaptive": {},
    "spin": {"OPENSCC_SPIN": "100000", "OPENSCC_YIELD": "0"},
    "short": {"OPENSCC_SPIN": "2048", "OPENSCC_YIELD": "4"},
    "sleep": {"OPENSCC_SPIN": "4", "OPENSCC_YIELD": "4"},
}
POLICY_HEADINGS = {"adaptive": "adaptive (default)", "spin": "fixed 100000 / 0", "short": "fixed 2048 / 4",
                   "sleep": "fixed 4 / 4", "mpich": "MPICH", "openmpi": "Open MPI"}
STRESS_ARGS = ["3", "3000", "20000"]  # seed, rounds, largest message: 6119 messages, 33 MB
RING_MESSAGES = 1000
RING_UES = 8


def busy_processes(n: int, limit_s: float) -> list[subprocess.Popen]:
    """n CPU-bound processes that end by themselves after limit_s at the latest."""
    code = f"import time\nend = time.monotonic() + {limit_s}\nwhile time.monotonic() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(n)]


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        kill_group(p)


def rows() -> list[dict]:
    """The policy table: (load, program) rows, each with its columns."""
    out = []
    for load in ("idle", "loaded"):
        out.append({"id": f"{load}_pingpong", "load": load, "program": "pingpong", "unit": "us",
                    "label": f"{load}: 2-UE pingpong half RTT, 8 B (µs)",
                    "columns": list(POLICIES) + ["mpich", "openmpi"]})
        out.append({"id": f"{load}_stress", "load": load, "program": "stress", "unit": "s",
                    "label": f"{load}: 2-UE stress {' '.join(STRESS_ARGS)} (s)", "columns": list(POLICIES)})
    return out


def runs_of_row(args, row: dict, progs: dict) -> list[tuple[str, list[str], dict]]:
    """(column, command, extra environment) of every run of a row."""
    out = []
    for col in row["columns"]:
        impl = "openscc" if col in POLICIES else col
        prog = progs.get(impl, {}).get(row["program"])
        if not prog:
            continue
        if row["program"] == "pingpong":
            cmd = launcher(args, impl, 2) + [prog, "-t", f"{args.time_box:g}", "-i", str(args.min_iters), "-m", "8"]
        else:
            cmd = launcher(args, impl, 2) + [prog] + STRESS_ARGS
        out.append((col, cmd, POLICIES.get(col, {})))
    return out


def value(row: dict, rec: dict) -> float | None:
    """The pingpong's 8 B half RTT, or the wall time of a stress run."""
    if rec.get("rc") != 0:
        return None
    if row["program"] == "stress":
        return rec["wall_s"] if "stress: OK" in rec["stdout"] else None
    for obj in parse_lines(rec["stdout"]):
        if obj.get("bench") == "pingpong" and obj.get("size") == 8 and obj.get("valid"):
            return float(obj["half_rtt_us"])
    return None


def one_run(args, cmd: list[str], env_extra: dict, loaded: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENSCC_SPIN", "OPENSCC_YIELD")}
    env.update(env_extra)
    time.sleep(args.settle)
    hogs = busy_processes(LOAD_PROCS, args.timeout + 5) if loaded else []
    try:
        time.sleep(0.2 if loaded else 0)  # the busy processes are running
        rec = run_cmd(cmd, Path.cwd(), args.timeout, env)
    finally:
        stop(hogs)
    rec["env"] = env_extra
    rec["busy_processes"] = len(hogs)
    return rec


def ring_value(rec: dict) -> float | None:
    if rec.get("rc") != 0:
        return None
    for obj in parse_lines(rec["stdout"]):
        if obj.get("bench") == "ring" and obj.get("valid"):
            return float(obj["elapsed_s"])
    return None


def median_cell(values: list) -> dict:
    ok = [v for v in values if v is not None]
    return {"values": values, "median": statistics.median(ok) if ok else None,
            "failed": len(values) - len(ok)}


def run_group(args, impls: list[str], session: dict, prefix: Path) -> tuple[Path, Path]:
    builds = build(args, [i for i in impls if i in LOAD_PROGRAMS], LOAD_PROGRAMS)
    progs = {impl: b["programs"] for impl, b in builds.items()}
    table = rows()
    values: dict = {r["id"]: {} for r in table}
    ring: dict = {"poll": [], "wait": []}
    runs = []
    for rep in range(args.repeat):
        for row in table:
            for col, cmd, env in runs_of_row(args, row, progs):
                rec = one_run(args, cmd, env, row["load"] == "loaded")
                v = value(row, rec)
                values[row["id"]].setdefault(col, []).append(v)
                runs.append({"row": row["id"], "column": col, "repeat": rep, **rec})
                log(f"  [load {rep + 1}/{args.repeat}] {row['id']:16s} {col:9s} -> {v}")
        ring_prog = progs.get("openscc", {}).get("ring")
        for mode in ("poll", "wait") if ring_prog else ():
            cmd = launcher(args, "openscc", RING_UES) + [ring_prog, mode, str(RING_MESSAGES)]
            rec = one_run(args, cmd, {}, False)
            ring[mode].append(ring_value(rec))
            runs.append({"row": "ring", "column": mode, "repeat": rep, **rec})
            log(f"  [load {rep + 1}/{args.repeat}] ring {mode:4s} -> {ring[mode][-1]}")
    for row in table:
        row["results"] = {col: median_cell(values[row["id"]].get(col, [])) for col in row["columns"]}
    ring_results = {mode: median_cell(v) for mode, v in ring.items()}
    doc = {"schema": "openscc-bench-load/1", **session, "busy_processes": LOAD_PROCS, "policies": POLICIES,
           "repeat": args.repeat, "builds": builds, "rows": table,
           "ring": {"ues": RING_UES, "messages": RING_MESSAGES, "results": ring_results},
           "targets": targets(table, ring_results), "runs": runs}
    return write_results(prefix, doc, page)


def best_fixed(row: dict) -> float | None:
    fixed = [row["results"][c]["median"] for c in POLICIES if c != "adaptive"]
    fixed = [v for v in fixed if v is not None]
    return min(fixed) if fixed else None


def openscc_verdict(cell_: dict, limit: float | None) -> str:
    """targets.verdict on a cell: "not measured" when OpenSCC never ran, "failed" when no run gave a value."""
    status = "not measured" if not cell_["values"] else "failed" if cell_["median"] is None else "ok"
    return verdict(status, cell_["median"], limit)


def targets(table: list[dict], ring: dict) -> list[dict]:
    out = []
    for row in table:
        v, best = row["results"]["adaptive"]["median"], best_fixed(row)
        limit = None if best is None else 1.5 * best
        out.append({"target": f"{row['label']}: adaptive <= 1.5 x the best fixed policy", "value": v,
                    "limit": limit, "status": openscc_verdict(row["results"]["adaptive"], limit)})
    w = ring["wait"]["median"]
    limit = None if w is None else 2 * w
    out.append({"target": f"{RING_UES}-UE iRCCE ring, {RING_MESSAGES} messages: polling <= 2 x blocking waits",
                "value": ring["poll"]["median"], "limit": limit, "status": openscc_verdict(ring["poll"], limit)})
    return out


def cell(c: dict, unit: str) -> str:
    m = c["median"]
    if m is None:
        return "failed" if c["values"] else ""
    s = f"{m:.3g}" if unit == "us" else f"{m:.3f}"
    return s + (f" ({c['failed']}/{len(c['values'])} failed)" if c["failed"] else "")


def page(doc: dict) -> str:
    cols = list(POLICIES) + ["mpich", "openmpi"]
    lines = ["# OpenSCC waiting under host load", "",
             f"Produced by `{doc['command']}` on {doc['host'].get('date', '?')} "
             f"({doc['host'].get('nproc', '?')} CPUs). Every cell is the median of {doc['repeat']} runs. "
             f"**loaded** rows run with {doc['busy_processes']} busy processes on the host (started before "
             "the launcher, killed after it); OpenSCC columns are `rccerun`'s default adaptive waiting and "
             "fixed `OPENSCC_SPIN` / `OPENSCC_YIELD` policies, the MPI peers run the same pingpong under "
             "the same load.", "",
             "| Test | " + " | ".join(POLICY_HEADINGS[c] for c in cols) + " | adaptive / best fixed |",
             "|---|" + "---:|" * (len(cols) + 1)]
    for row in doc["rows"]:
        best = best_fixed(row)
        a = row["results"]["adaptive"]["median"]
        ratio = f"{a / best:.2f}x" if a is not None and best else ""
        lines.append(f"| {row['label']} | " + " | ".join(
            cell(row["results"][c], row["unit"]) if c in row["results"] else "" for c in cols) + f" | {ratio} |")
    r = doc["ring"]["results"]
    pw = (f"{r['poll']['median'] / r['wait']['median']:.2f}x"
          if r["poll"]["median"] is not None and r["wait"]["median"] else "")
    lines += ["", f"## iRCCE ring, {doc['ring']['ues']} UEs, {doc['ring']['messages']} messages each (s, idle host)",
              "", "| spinning on iRCCE_isend_test / irecv_test | iRCCE_isend_wait / irecv_wait | poll / wait |",
              "|---:|---:|---:|", f"| {cell(r['poll'], 's')} | {cell(r['wait'], 's')} | {pw} |", "",
              "## Targets", ""]
    for t in doc["targets"]:
        lines.append(f"- {t['target']}: **{t['status']}**")
    return "\n".join(lines) + "\n"

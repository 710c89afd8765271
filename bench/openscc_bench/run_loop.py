"""The round-robin run loop: repeat -> job -> implementation, so slow drift on
a noisy machine affects every implementation alike."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .host import loadavg
from .host_state import probe
from .measurements import Measurement, file_not_run, file_run
from .processes import launcher, rccerun, run_cmd
from .progress import log
from .result_lines import parse_lines


@dataclass
class Group:
    """A benchmark group as the loop sees it."""
    builds: dict  # building.build(): the programs of every implementation
    measurements: Callable[[dict, str], list[Measurement]]  # what a job's run by an impl fills
    runs: list[dict] = field(default_factory=list)  # every run, for the JSON file
    # OpenSCC trees by column (the A/B group's current and baseline): the directory of their rccerun
    rcce_bins: dict[str, str] = field(default_factory=dict)


def run_once(args, group: Group, job: dict, impl: str, rep: int, progress: str) -> None:
    """One run of job by impl: its record goes to group.runs, its values to the slots."""
    built = group.builds[impl]
    prog = built["programs"].get(job["kind"])
    run = {"job": job["name"], "impl": impl, "repeat": rep, "loadavg_before": loadavg()}
    group.runs.append(run)
    expected = group.measurements(job, impl)
    if prog is None:
        err = "; ".join(built["errors"]) or "not built"
        run["error"] = f"not built: {err.splitlines()[0][:300]}"
        for m in expected:
            file_not_run(m, rep, run["error"])
        log(f"{progress} skipped: not built")
        return
    rcce_bin = group.rcce_bins.get(impl, args.rcce_bin if impl == "openscc" else None)
    extra = job.get("rcce_opts", []) if rcce_bin else []
    start = rccerun(rcce_bin, job["ues"]) if rcce_bin else launcher(args, impl, job["ues"])
    cmd = start + extra + [prog] + job["args"]
    if args.settle > 0:
        time.sleep(args.settle)
    probed = job["ues"] == 2 and impl != "floor"  # host_state.py
    before = probe(args, group.builds) if probed else None
    rec = run_cmd(cmd, args.bench_dir / impl, args.timeout)
    if probed:
        rec["host_floor_us"], rec["host_floor_after_us"] = before, probe(args, group.builds)
    run.update(rec)
    lines = parse_lines(rec["stdout"])
    run["measurements"] = lines
    got = [shown for shown in (file_run(m, rep, rec, lines) for m in expected) if shown is not None]
    status = "ok" if "error" not in rec else "ERROR " + rec["error"]
    log(f"{progress} {rec['wall_s'] or 0:6.2f}s {status}: {', '.join(got) if got else '-'}")
    if "error" in rec:
        for ln in rec["stderr"].strip().splitlines()[-3:]:
            log(f"      stderr: {ln[:200]}")


def run_all(args, jobs: list[tuple[Group, dict]]) -> None:
    """Runs every (group, job) for each of its implementations, args.repeat times."""
    repeat = args.repeat
    total = repeat * sum(len(j["impls"]) for _, j in jobs)
    log(f"running {len(jobs)} jobs x {repeat} repeats ({total} runs, timeout {args.timeout:g} s each)")
    k = 0
    for rep in range(repeat):
        for group, job in jobs:
            # an alternating job (the A/B group) runs its sides ABBA: neither side always follows
            # the other's runs (and the 48-process runs before them)
            impls = job["impls"][::-1] if job.get("alternate") and rep % 2 else job["impls"]
            for impl in impls:
                k += 1
                progress = f"[{k}/{total}] rep {rep + 1}/{repeat} {job['name']:14s} {impl:8s}"
                run_once(args, group, job, impl, rep, progress)

"""The A/B group: the foundation rows of this tree ("current") against a baseline revision, in
one run.  The baseline is exported with `git archive` into a scratch directory under the build
tree (no worktree, nothing in the repository changes), configured with the current build's
compiler and flags, and both trees' rccerun run the same benchmark programs alternately
(repeat -> job -> current, baseline; the order reversed on every other repeat), with the foundation group's host-state probes around every
2-process run (host_state.py).  Written to ab.{json,md}; see bench/README.md "The A/B group"."""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import time
from argparse import Namespace
from pathlib import Path

from . import ab_instructions
from .ab_markdown import ab_page
from .building import build
from .documents import document, launch_config, loop_config, write_results
from .foundation import PROGRAMS, make_jobs, make_tests, measurements
from .host_state import MIN_STATE_RUNS, state_medians, threshold
from .paths import BENCH, ROOT
from .progress import log
from .run_loop import Group, run_all
from .slots import new_slot, take_medians

SIDES = ["current", "baseline"]
AB_GROUPS = ["pingpong", "collective", "launch"]  # the foundation rows OpenSCC runs
BASELINE_FILE = BENCH / "ab-baseline"
BOUND_TEST = "pingpong_8"  # issue 13: 8-byte latency may not regress by more than 3 %
BOUND = 0.03
# the current build's settings the baseline is configured with (same compiler, same flags)
CACHE_KEYS = ["CMAKE_BUILD_TYPE", "CMAKE_C_COMPILER", "CMAKE_C_FLAGS", "OPENSCC_SANITIZE"]


class Skip(Exception):
    """The A/B group cannot run; the message is the one line the log shows."""


def baseline_from_file(text: str) -> str | None:
    """The revision named by bench/ab-baseline: the first word of its first line that is
    neither empty nor a comment (#)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line.split()[0]
    return None


def default_baseline() -> str:
    try:
        rev = baseline_from_file(BASELINE_FILE.read_text())
    except OSError as e:
        raise Skip(f"cannot read {os.path.relpath(BASELINE_FILE, ROOT)}: {e.strerror}") from None
    if rev is None:
        raise Skip(f"{os.path.relpath(BASELINE_FILE, ROOT)} names no revision")
    return rev


def git(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *argv], capture_output=True, text=True)


def resolve_baseline(rev: str, root: Path = ROOT) -> str:
    """The full commit id of rev in root's repository; Skip when there is no git, root is not
    a git checkout or rev names no commit there."""
    if shutil.which("git") is None:
        raise Skip("git not found")
    p = git(root, "rev-parse", "--git-dir")
    if p.returncode != 0:
        raise Skip(f"{root} is not a git checkout ({p.stderr.strip().splitlines()[0] if p.stderr.strip() else 'git failed'})")
    p = git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if p.returncode != 0:
        raise Skip(f"unknown revision {rev!r}")
    return p.stdout.strip()


def cache_settings(text: str) -> dict[str, str]:
    """The CACHE_KEYS entries of a CMakeCache.txt ("KEY:TYPE=VALUE" lines)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"([A-Za-z_0-9]+):[A-Z]+=(.*)$", line)
        if m and m.group(1) in CACHE_KEYS:
            out[m.group(1)] = m.group(2)
    return out


def export_tree(sha: str, dest: Path, root: Path = ROOT) -> None:
    """`git archive sha` unpacked into dest (once: a finished export leaves .exported)."""
    stamp = dest / ".exported"
    if stamp.exists():
        return
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    # Unpacked by tar(1): Python's tarfile needs 3.11.4+ for a safe extraction
    # filter and Debian 12 ships 3.11.2; git archive's own output is trusted.
    git = subprocess.Popen(["git", "-C", str(root), "archive", "--format=tar", sha],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=git.stdout, capture_output=True, text=True)
    git.stdout.close()
    err = git.stderr.read().decode(errors="replace").strip()
    if git.wait() != 0 or tar.returncode != 0:
        raise Skip(f"git archive {sha[:12]} failed: {(err + ' ' + tar.stderr.strip()).strip()[-300:]}")
    stamp.touch()


def run_step(cmd: list[str], what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:  # the first error line names the cause better than make's last line
        out = (p.stdout + p.stderr).strip().splitlines() or ["?"]
        cause = next((ln for ln in out if "error" in ln.lower()), out[-1])
        raise Skip(f"{what} failed: {cause.strip()[:300]}")


def build_baseline(sha: str, scratch: Path, settings: dict[str, str]) -> Path:
    """Exports and builds the baseline's tools under scratch; returns its bin directory."""
    src, bld = scratch / "src", scratch / "build"
    log(f"A/B: baseline {sha[:12]} from git archive into {os.path.relpath(scratch, ROOT)}/")
    export_tree(sha, src)
    defs = [f"-D{k}={v}" for k, v in settings.items()]
    run_step(["cmake", "-S", str(src), "-B", str(bld)] + defs, "configuring the baseline")
    # the whole tree: target names differ between revisions (librcce.a became a prelinked archive)
    run_step(["cmake", "--build", str(bld), "-j2"], "building the baseline")
    return bld / "bin"


def ab_tests(big: int) -> list[dict]:
    """The foundation rows OpenSCC measures, each with a current and a baseline slot."""
    tests = [t for t in make_tests(big) if t["group"] in AB_GROUPS]
    for t in tests:
        t["results"] = {side: new_slot(True) for side in SIDES}
    return tests


def spread(a: float, b: float) -> float:
    """How far apart two positive values are, in either order: max / min - 1."""
    return max(a, b) / min(a, b) - 1


def halves_noise(values: list[float]) -> float | None:
    """An A/A estimate of the noise of one side: the spread of the medians of its odd-numbered
    and even-numbered runs (None with fewer than two runs)."""
    if len(values) < 2:
        return None
    return spread(statistics.median(values[0::2]), statistics.median(values[1::2]))


def state_ratios(t: dict, cut: float | None) -> dict[str, float]:
    """current / baseline of the medians of the runs that stayed in one host state, for each
    state both sides ran at least MIN_STATE_RUNS times (2-process rows only)."""
    if cut is None or t["ues"] != 2:
        return {}
    cur, base = (state_medians(t["results"][s], cut) for s in SIDES)
    return {state: cur[state][0] / base[state][0] for state in ("fast", "slow")
            if min(cur[state][1], base[state][1]) >= MIN_STATE_RUNS and base[state][0]}


def compare(t: dict, cut: float | None) -> dict:
    """One row: both medians, their ratio, the noise, and whether the ratio is within it."""
    cur, base = (t["results"][s] for s in SIDES)
    row = {"test": t["id"], "label": t["label"], "unit": t["unit"],
           "current": cur["median"], "baseline": base["median"], "ratio": None, "noise": None,
           "within_noise": None, "states": {}}
    if cur["status"] != "ok" or base["status"] != "ok" or not base["median"]:
        return row
    noises = [n for n in (halves_noise(cur["values"]), halves_noise(base["values"])) if n is not None]
    row["ratio"] = cur["median"] / base["median"]
    row["noise"] = max(noises) if noises else None
    if row["noise"] is not None:
        row["within_noise"] = spread(row["ratio"], 1.0) <= row["noise"]
    row["states"] = state_ratios(t, cut)
    return row


def bound_verdict(row: dict | None) -> str:
    """The 8-byte row against the 3 % bound, in words, with the row's noise.  When the runs fell
    into both host states, the plain medians mix them: each state is judged on its own ratio."""
    if row is None or row["ratio"] is None:
        return "not measured"
    states = row.get("states") or {}
    if len(states) > 1:
        parts = [f"{state} {(ratio - 1) * 100:+.1f} %" for state, ratio in sorted(states.items())]
        worst = max(states.values()) - 1
        head = "within 3 % in each host state" if worst <= BOUND else f"regressed by {worst * 100:.1f} % in a host state"
        return f"{head} ({', '.join(parts)}; bound 3 %)"
    change = (next(iter(states.values())) if states else row["ratio"]) - 1
    noise = f"; noise ±{row['noise'] * 100:.1f} %" if row["noise"] is not None else ""
    if change <= BOUND:
        return f"within 3 % ({change * 100:+.1f} %{noise})"
    return f"regressed by {change * 100:.1f} % (bound 3 %{noise})"


def rows_of(tests: list[dict]) -> list[dict]:
    cut = threshold(tests)
    return [compare(t, cut) for t in tests]


def baseline_tools(args) -> dict:
    """Resolves, exports and builds the baseline (Skip when it cannot); returns what the JSON
    records of it, with "rcce_bin", the directory of its rccecc and rccerun."""
    revision = args.baseline or default_baseline()
    sha = resolve_baseline(revision)
    build_dir = Path(args.bench_dir).parent
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        raise Skip(f"no CMakeCache.txt in {build_dir} (the baseline is built with the current build's settings)")
    settings = cache_settings(cache.read_text())
    base_bin = build_baseline(sha, build_dir / "ab-baseline" / sha[:12], settings)
    return {"revision": revision, "commit": sha, "cmake": settings, "rcce_bin": str(base_bin)}


def run_group(args, session: dict, prefix: Path) -> tuple[Path, Path] | None:
    """Builds the baseline, runs the A/B rows and writes PREFIX.{json,md}; None (after one log
    line) when the group cannot run."""
    t_start = time.perf_counter()
    try:
        baseline = baseline_tools(args)
    except Skip as e:
        log(f"A/B group skipped: {e}")
        return None
    builds = side_builds(args, Path(baseline["rcce_bin"]))
    tests = ab_tests(args.ues)
    rcce_bins = {"current": Path(args.rcce_bin), "baseline": Path(baseline["rcce_bin"])}
    group = Group(builds, measurements(tests), rcce_bins={side: str(d) for side, d in rcce_bins.items()})
    ab_args = Namespace(**{**vars(args), "repeat": args.ab_repeat})
    for side in SIDES:  # each side's runs start in its own directory
        (args.bench_dir / side).mkdir(parents=True, exist_ok=True)
    run_all(ab_args, [(group, {**j, "alternate": True}) for j in make_jobs(ab_args, SIDES, AB_GROUPS)])
    take_medians(tests)
    log("A/B: counting the instructions of an 8-byte round trip (callgrind)")
    instructions = ab_instructions.measure(
        {side: (rcce_bins[side] / "rccerun", builds[side]["programs"].get("roundtrip")) for side in SIDES},
        args.bench_dir)
    rows = rows_of(tests)
    bound_row = next((r for r in rows if r["test"] == BOUND_TEST), None)
    config = {**loop_config(ab_args), **launch_config(args, SIDES, AB_GROUPS), "ues_large": args.ues,
              "baseline": baseline}
    session = {**session, "elapsed_s": time.perf_counter() - t_start}
    doc = document("openscc-bench-ab/1", session, config, builds, tests=tests, rows=rows,
                   bound={"test": BOUND_TEST, "bound": BOUND, "verdict": bound_verdict(bound_row)},
                   instructions=instructions, runs=group.runs)
    return write_results(prefix, doc, ab_page)


def side_builds(args, base_bin: Path) -> dict:
    """The benchmark programs compiled by each side's rccecc (the same sources), and the floor
    program the host-state probes run."""
    def with_bin(bin_dir, bench_dir):
        return Namespace(**{**vars(args), "rcce_bin": str(bin_dir), "bench_dir": bench_dir})
    rcce = {"openscc": {**{k: v for k, v in PROGRAMS["openscc"].items() if k in AB_GROUPS},
                        "roundtrip": ab_instructions.PROGRAM}}
    return {"current": build(args, ["openscc"], rcce)["openscc"],
            "baseline": build(with_bin(base_bin, base_bin.parent / "bench"), ["openscc"], rcce)["openscc"],
            "floor": build(args, ["floor"], PROGRAMS)["floor"]}

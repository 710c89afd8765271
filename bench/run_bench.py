#!/usr/bin/env python3
"""OpenSCC foundation benchmark driver (Python 3.11, stdlib only).

Builds the benchmark programs into build/bench/, runs every test R times on
OpenSCC (RCCE over build/bin/rccerun), MPICH, Open MPI and the cache-line
floor, takes medians and writes

    bench/results/foundation.json   every run, every repeat, every median
    bench/results/foundation.md     the summary table and the targets

See bench/README.md.  `python3 bench/run_bench.py --help` lists the options.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BUILD = ROOT / "build" / "bench"
RESULTS = BENCH / "results"

IMPLS = ["openscc", "mpich", "openmpi", "floor"]
IMPL_TITLE = {"openscc": "OpenSCC", "mpich": "MPICH", "openmpi": "Open MPI",
              "floor": "cache-line floor"}
PEERS = ["mpich", "openmpi"]
PP_SIZES = [0, 8, 64, 1024, 8192, 65536, 1048576]

# program name per implementation and job kind
PROGRAMS = {
    "openscc": {"pingpong": ("rcce/pingpong_bench.c", "pingpong_bench"),
                "collective": ("rcce/collective_bench.c", "collective_bench"),
                "launch": ("rcce/launch_bench.c", "launch_bench")},
    "mpich": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi"),
              "collective": ("mpi/collective_mpi.c", "collective_mpi"),
              "launch": ("mpi/launch_mpi.c", "launch_mpi")},
    "openmpi": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi"),
                "collective": ("mpi/collective_mpi.c", "collective_mpi"),
                "launch": ("mpi/launch_mpi.c", "launch_mpi")},
    "floor": {"floor": ("floor/cacheline_pingpong.c", "cacheline_pingpong")},
}

TEST_GROUPS = ["pingpong", "collective", "launch", "floor"]


def log(msg: str) -> None:
    print(msg, flush=True)


def size_label(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


# --------------------------------------------------------------------------
# host information
# --------------------------------------------------------------------------

def cmd_output(cmd: list[str], timeout: float = 20) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (p.stdout + p.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable ({e.__class__.__name__}: {e})"


def loadavg() -> list[str] | None:
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return None


def host_info() -> dict:
    info: dict = {"hostname": socket.gethostname(),
                  "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  "nproc": None, "cpu_model": None,
                  "kernel": platform.release(), "os": None,
                  "python": platform.python_version()}
    nproc = cmd_output(["nproc"])
    info["nproc"] = int(nproc) if nproc.isdigit() else os.cpu_count()
    info["cpu_count_total"] = os.cpu_count()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                info["os"] = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    try:
        info["loadavg_start"] = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        pass
    mv = cmd_output(["mpichversion"]) if shutil.which("mpichversion") else \
        cmd_output(["mpirun.mpich", "--version"])
    m = re.search(r"MPICH Version:\s*(\S+)", mv) or re.search(r"Version:\s*(\S+)", mv)
    info["mpich_version"] = m.group(1) if m else mv.splitlines()[0] if mv else None
    dev = re.search(r"MPICH Device:\s*(\S+)", mv)
    if dev:
        info["mpich_device"] = dev.group(1)
    ov = cmd_output(["mpirun.openmpi", "--version"])
    m = re.search(r"\(Open(?:RTE| MPI)\)\s*(\S+)", ov)
    info["openmpi_version"] = m.group(1) if m else (ov.splitlines()[0] if ov else None)
    info["gcc_version"] = cmd_output(["gcc", "-dumpfullversion"])
    info["euid"] = os.geteuid()
    info["env"] = {k: v for k, v in sorted(os.environ.items())
                   if k.startswith(("OMPI_", "UCX_", "MPIR_", "MPICH_", "HYDRA_", "FI_", "PMIX_"))}
    git = cmd_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"])
    info["git_head"] = git if re.fullmatch(r"[0-9a-f]{40}", git) else None
    return info


# --------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------

def compilers(args) -> dict[str, list[str] | None]:
    rccecc = Path(args.rcce_bin) / "rccecc"
    return {
        "openscc": [str(rccecc), "-O2"] if rccecc.exists() else None,
        "mpich": ["mpicc.mpich", "-O2"] if shutil.which("mpicc.mpich") else None,
        "openmpi": ["mpicc.openmpi", "-O2"] if shutil.which("mpicc.openmpi") else None,
        "floor": ["gcc", "-std=c11", "-O2"] if shutil.which("gcc") else None,
    }


def build(args, impls: list[str]) -> dict:
    """Compile every program needed; returns {impl: {prog: path | None, ...}}."""
    cc = compilers(args)
    builds: dict = {}
    for impl in impls:
        entry = {"ok": True, "programs": {}, "commands": [], "errors": []}
        builds[impl] = entry
        outdir = BUILD / impl
        outdir.mkdir(parents=True, exist_ok=True)
        for kind, (src, name) in PROGRAMS[impl].items():
            if cc[impl] is None:
                why = {"openscc": f"{Path(args.rcce_bin) / 'rccecc'} not found (OpenSCC runtime not built)",
                       "mpich": "mpicc.mpich not found", "openmpi": "mpicc.openmpi not found",
                       "floor": "gcc not found"}[impl]
                entry["ok"] = False
                entry["errors"].append(why)
                entry["programs"][kind] = None
                continue
            out = outdir / name
            cmd = cc[impl] + [str(BENCH / src), "-o", str(out)]
            entry["commands"].append(shlex.join(cmd))
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                ok = p.returncode == 0 and out.exists()
                err = (p.stdout + p.stderr).strip()
            except (OSError, subprocess.SubprocessError) as e:
                ok, err = False, f"{e.__class__.__name__}: {e}"
            if ok:
                entry["programs"][kind] = str(out)
                log(f"  built {impl:8s} {name}")
            else:
                entry["ok"] = False
                entry["errors"].append(f"build of {src} failed: {err[-2000:]}")
                entry["programs"][kind] = None
                log(f"  BUILD FAILED {impl} {src}: {err.splitlines()[-1] if err else '?'}")
    return builds


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------

def launcher(args, impl: str, nue: int) -> list[str]:
    if impl == "openscc":
        return [str(Path(args.rcce_bin) / "rccerun"), "-nue", str(nue)]
    if impl == "mpich":
        return ["mpirun.mpich", "-n", str(nue)]
    if impl == "openmpi":
        return ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(nue)]
    return []  # floor: runs by itself (forks its peer)


def kill_group(p: subprocess.Popen) -> None:
    """End the process group we created for this run (and only that)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=3)
            # the leader is gone; stragglers in the group still get SIGKILL
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_cmd(cmd: list[str], cwd: Path, timeout: float) -> dict:
    """Run one command in its own process group; wall clock by perf_counter."""
    rec = {"cmd": shlex.join(cmd), "rc": None, "wall_s": None, "timeout": False,
           "stdout": "", "stderr": ""}
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as e:
        rec["error"] = f"cannot start: {e}"
        return rec
    try:
        out, err = p.communicate(timeout=timeout)
        rec["wall_s"] = time.perf_counter() - t0
        rec["rc"] = p.returncode
    except subprocess.TimeoutExpired:
        kill_group(p)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out, err = "", "(output lost: pipes still open after kill)"
        rec["wall_s"] = time.perf_counter() - t0
        rec["rc"] = p.returncode
        rec["timeout"] = True
        rec["error"] = f"timed out after {timeout:g} s"
    except BaseException:
        kill_group(p)
        raise
    # a run may leave children in its group (e.g. a crashed launcher)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec["stdout"] = out[-20000:]
    rec["stderr"] = err[-4000:]
    if "error" not in rec and rec["rc"] != 0:
        rec["error"] = f"exit status {rec['rc']}"
    return rec


def parse_lines(stdout: str) -> list[dict]:
    found = []
    for line in stdout.splitlines():
        i = line.find("{")
        if i < 0:
            continue
        try:
            obj = json.loads(line[i:])
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "bench" in obj:
            found.append(obj)
    return found


# --------------------------------------------------------------------------
# the test matrix
# --------------------------------------------------------------------------

def make_tests(big: int) -> list[dict]:
    tests = []
    for s in PP_SIZES:
        tests.append({"id": f"pingpong_{s}", "label": f"pingpong half RTT, {size_label(s)}",
                      "group": "pingpong", "bench": "pingpong", "metric": "half_rtt_us",
                      "unit": "us", "ues": 2, "size": s,
                      "floor": s in (0, 8)})
    for op, size in (("barrier", 0), ("allreduce", 8)):
        for n in (2, big):
            lbl = f"barrier, {n} UEs" if op == "barrier" else f"allreduce 8 B, {n} UEs"
            tests.append({"id": f"{op}_{n}", "label": lbl, "group": "collective",
                          "bench": op, "metric": "lat_us", "unit": "us", "ues": n,
                          "size": size, "floor": False})
    # table order: barrier 2, barrier big, allreduce 2, allreduce big
    tests.append({"id": f"launch_{big}", "label": f"launch-to-finish, {big} UEs",
                  "group": "launch", "bench": "launch", "metric": "wall_s", "unit": "s",
                  "ues": big, "size": None, "floor": False})
    return tests


def make_jobs(args, impls: list[str], groups: list[str]) -> list[dict]:
    """One job = one program invocation that yields one or more measurements."""
    big = args.ues
    prog_args = ["-t", f"{args.time_box:g}", "-i", str(args.min_iters)]
    jobs = []
    mpi_like = [i for i in impls if i != "floor"]
    # the floor goes first in every repeat: it is the most sensitive to
    # leftovers of the 48-process runs
    if "floor" in groups and "floor" in impls:
        jobs.append({"name": "floor", "kind": "floor", "ues": 2, "args": prog_args,
                     "impls": ["floor"], "expect": [("floor_pingpong", 2, 8)]})
    if "pingpong" in groups:
        jobs.append({"name": "pingpong", "kind": "pingpong", "ues": 2, "args": prog_args,
                     "impls": mpi_like,
                     "expect": [("pingpong", 2, s) for s in PP_SIZES]})
    if "collective" in groups:
        for n in (2, big):
            jobs.append({"name": f"collective_{n}", "kind": "collective", "ues": n,
                         "args": prog_args, "impls": mpi_like,
                         "expect": [("barrier", n, 0), ("allreduce", n, 8)]})
    if "launch" in groups:
        jobs.append({"name": f"launch_{big}", "kind": "launch", "ues": big, "args": [],
                     "impls": mpi_like, "expect": [("launch", big, None)]})
    return [j for j in jobs if j["impls"]]


def value_of(obj: dict) -> float | None:
    for k in ("half_rtt_us", "lat_us"):
        if k in obj:
            return float(obj[k])
    return None


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "s":
        return f"{v:.3f} s"
    if v < 1:
        return f"{v:.3f}"
    if v < 100:
        return f"{v:.2f}"
    if v < 10000:
        return f"{v:.1f}"
    return f"{v:,.0f}"


def cell(res: dict | None, unit: str) -> str:
    if res is None:
        return "—"
    st = res["status"]
    if st == "skipped":
        return "not run"
    if st == "failed":
        return "failed"
    s = fmt(res["median"], unit)
    nfail = sum(1 for r in res["repeats"] if "error" in r)
    if nfail:
        s += f" ({nfail}/{len(res['repeats'])} failed)"
    return s


def best_peer(test: dict) -> tuple[str | None, float | None]:
    best = (None, None)
    for impl in PEERS:
        r = test["results"].get(impl)
        if r and r["status"] == "ok" and (best[1] is None or r["median"] < best[1]):
            best = (impl, r["median"])
    return best


def evaluate_targets(tests_by_id: dict, big: int) -> list[dict]:
    def med(tid: str, impl: str) -> tuple[str, float | None]:
        t = tests_by_id.get(tid)
        if t is None:
            return "not measured", None
        r = t["results"].get(impl)
        if r is None or r["status"] == "skipped":
            return "not measured", None
        if r["status"] == "failed":
            return "failed", None
        return "ok", r["median"]

    out = []

    def add(name, tid, ref_desc, ref_fn, unit):
        st, v = med(tid, "openscc")
        ref = ref_fn()
        rec = {"target": name, "test": tid, "openscc": v, "reference": ref,
               "reference_desc": ref_desc, "unit": unit}
        if st == "not measured":
            rec["status"] = "not measured"
        elif st == "failed":
            rec["status"] = "not met (OpenSCC failed)"
        elif ref is None:
            rec["status"] = "undetermined (reference not measured or failed)"
        else:
            rec["status"] = "met" if v <= ref else "not met"
        out.append(rec)

    def fastest_mpi_8():
        t = tests_by_id.get("pingpong_8")
        return best_peer(t)[1] if t else None

    def mpich_1m():
        st, v = med("pingpong_1048576", "mpich")
        return 0.6 * v if v is not None else None

    add("8 B half RTT <= fastest MPI peer", "pingpong_8",
        "min(MPICH, Open MPI) 8 B half RTT", fastest_mpi_8, "us")
    add("1 MiB half RTT <= 0.6 x MPICH", "pingpong_1048576",
        "0.6 x MPICH 1 MiB half RTT", mpich_1m, "us")
    add(f"{big}-UE barrier <= 100 us", f"barrier_{big}", "limit", lambda: 100.0, "us")
    add(f"{big}-UE launch-to-finish <= 0.2 s", f"launch_{big}", "limit", lambda: 0.2, "s")
    return out


def write_markdown(path: Path, doc: dict) -> None:
    big = doc["config"]["ues_large"]
    tests = {t["id"]: t for t in doc["tests"]}
    order = [f"pingpong_{s}" for s in PP_SIZES] + \
        ["barrier_2", f"barrier_{big}", "allreduce_2", f"allreduce_{big}", f"launch_{big}"]
    h = doc["host"]
    lines = []
    lines.append("# OpenSCC foundation benchmark")
    lines.append("")
    lines.append(f"Produced by `{doc['command']}` (run from the repository root) on "
                 f"{h.get('date')}: {h.get('nproc')} CPUs ({h.get('cpu_model')}), "
                 f"{h.get('os')}, kernel {h.get('kernel')}, MPICH {h.get('mpich_version')}"
                 f"{' (' + h['mpich_device'] + ')' if h.get('mpich_device') else ''}, "
                 f"Open MPI {h.get('openmpi_version')}.")
    c = doc["config"]
    lines.append("")
    lines.append(f"Every cell is the **median of {c['repeat']} run{'s' if c['repeat'] != 1 else ''}**"
                 f"{' (quick smoke run: not representative)' if c['quick'] else ''}; "
                 f"each run's value is the mean of a time-boxed loop (~{c['time_box_s']:g} s, "
                 f">= {c['min_iters']} iterations). Latencies in microseconds; "
                 f"launch-to-finish is the wall clock of the whole launcher command. "
                 f"Total harness time {doc['elapsed_s']:.0f} s.")
    lines.append("")
    lines.append("| Test | OpenSCC | MPICH | Open MPI | cache-line floor | OpenSCC / best MPI |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for tid in order:
        t = tests.get(tid)
        if t is None:
            continue
        r = t["results"]
        unit = t["unit"]
        label = t["label"] + (" (µs)" if unit == "us" else " (s)")
        floor = cell(r.get("floor"), unit) if t["floor"] else ""
        ratio = "—"
        o = r.get("openscc")
        _, best = best_peer(t)
        if o and o["status"] == "ok" and best:
            q = o["median"] / best
            ratio = f"{q:.2f}x" if q >= 0.1 else f"{q:.4f}x"
        lines.append(f"| {label} | {cell(o, unit)} | {cell(r.get('mpich'), unit)} | "
                     f"{cell(r.get('openmpi'), unit)} | {floor} | {ratio} |")
    lines.append("")
    lines.append("Ratio = OpenSCC median / the lower of the MPICH and Open MPI medians. "
                 "The floor is two forked processes ping-ponging one 64-byte cache line with "
                 "C11 atomics (busy-wait, pinned to two CPUs when possible; each run reports its "
                 "median of 10 sub-loops); the same number serves the 0 B and 8 B rows. RCCE's 0-byte RCCE_send/RCCE_recv return without synchronising, "
                 "so OpenSCC's 0 B row is call overhead, not a message.")
    lines.append("")
    lines.append("## Targets")
    lines.append("")
    for tg in doc["targets"]:
        unit = tg["unit"]
        v = fmt(tg["openscc"], unit) if tg["openscc"] is not None else "—"
        ref = fmt(tg["reference"], unit) if tg["reference"] is not None else "—"
        u = " µs" if unit == "us" else ""
        v += u if tg["openscc"] is not None else ""
        ref += u if tg["reference"] is not None else ""
        lines.append(f"- {tg['target']}: **{tg['status']}** (OpenSCC {v}; "
                     f"{tg['reference_desc']}: {ref})")
    errs = []
    for t in doc["tests"]:
        for impl, r in t["results"].items():
            reasons = sorted({rep["error"] for rep in r["repeats"] if "error" in rep})
            if r["status"] == "skipped":
                continue
            for e in reasons:
                errs.append(f"- {t['id']} / {IMPL_TITLE[impl]}: {e}")
    if errs:
        lines.append("")
        lines.append("## Errors")
        lines.append("")
        lines.extend(errs[:60])
        if len(errs) > 60:
            lines.append(f"- ... {len(errs) - 60} more in the JSON file")
    lines.append("")
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(
        description="OpenSCC foundation benchmark: RCCE on OpenSCC vs MPICH, Open MPI and "
                    "the cache-line floor. Writes bench/results/foundation.{json,md}.")
    ap.add_argument("--repeat", "-r", type=int, default=None,
                    help="runs per test; the table shows medians (default 5, --quick: 1)")
    ap.add_argument("--quick", action="store_true",
                    help="fast smoke run: 1 repeat, 0.02 s time boxes, 2 min iterations; "
                         "writes foundation-quick.{json,md} unless --out is given")
    ap.add_argument("--only-peers", action="store_true",
                    help="skip OpenSCC (measure MPICH, Open MPI and the floor only)")
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help=f"comma list of implementations to run (default {','.join(IMPLS)})")
    ap.add_argument("--tests", default=",".join(TEST_GROUPS),
                    help=f"comma list of test groups (default {','.join(TEST_GROUPS)})")
    ap.add_argument("--ues", type=int, default=48,
                    help="UE count of the large collective and launch tests (default 48)")
    ap.add_argument("--time-box", type=float, default=None,
                    help="seconds per timed loop inside the programs (default 0.2, --quick 0.02)")
    ap.add_argument("--min-iters", type=int, default=None,
                    help="minimum iterations of a timed loop (default 3, --quick 2)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="timeout of one program run in seconds (default 120)")
    ap.add_argument("--settle", type=float, default=0.25,
                    help="pause in seconds before each run, letting the previous one's "
                         "processes drain (default 0.25)")
    ap.add_argument("--rcce-bin", default=str(ROOT / "build" / "bin"),
                    help="directory holding rccecc and rccerun (default build/bin)")
    ap.add_argument("--out", default=None,
                    help="output path prefix; writes PREFIX.json and PREFIX.md "
                         "(default bench/results/foundation, --quick: foundation-quick)")
    args = ap.parse_args()

    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    if repeat < 1:
        ap.error("--repeat must be >= 1")
    args.repeat = repeat
    if args.time_box is None:
        args.time_box = 0.02 if args.quick else 0.2
    if args.min_iters is None:
        args.min_iters = 2 if args.quick else 3
    impls = [i.strip() for i in args.impls.split(",") if i.strip()]
    for i in impls:
        if i not in IMPLS:
            ap.error(f"unknown implementation {i!r} (choose from {IMPLS})")
    if args.only_peers:
        impls = [i for i in impls if i != "openscc"]
    groups = [g.strip() for g in args.tests.split(",") if g.strip()]
    for g in groups:
        if g not in TEST_GROUPS:
            ap.error(f"unknown test group {g!r} (choose from {TEST_GROUPS})")
    out_prefix = Path(args.out) if args.out else \
        RESULTS / ("foundation-quick" if args.quick else "foundation")
    out_prefix.parent.mkdir(parents=True, exist_ok=True)

    t_start = time.perf_counter()
    command = "python3 " + shlex.join([os.path.relpath(sys.argv[0], ROOT)
                                       if Path(sys.argv[0]).exists() else sys.argv[0]]
                                      + sys.argv[1:])
    log(f"OpenSCC foundation benchmark: {command}")
    host = host_info()
    log(f"host: {host['nproc']} CPUs, {host['cpu_model']}; MPICH {host['mpich_version']}, "
        f"Open MPI {host['openmpi_version']}; load {' '.join(host.get('loadavg_start', []))}")

    log("building into " + os.path.relpath(BUILD, ROOT) + "/ ...")
    builds = build(args, impls)

    tests = make_tests(args.ues)
    tests = [t for t in tests if t["group"] in groups or (t["floor"] and "floor" in groups)]
    for t in tests:
        t["results"] = {}
        for impl in IMPLS:
            if impl == "floor" and not t["floor"]:
                continue
            t["results"][impl] = {"status": "skipped" if impl not in impls or
                                  (impl == "floor" and "floor" not in groups) or
                                  (impl != "floor" and t["group"] not in groups) else "pending",
                                  "median": None, "values": [], "repeats": []}
    by_key: dict[tuple, dict] = {}
    for t in tests:
        by_key[(t["bench"], t["ues"], t["size"])] = t
    floor_tests = [t for t in tests if t["floor"]]

    jobs = make_jobs(args, impls, groups)
    runs = []
    total = repeat * sum(len(j["impls"]) for j in jobs)
    k = 0
    log(f"running {len(jobs)} jobs x {repeat} repeats ({total} runs, timeout {args.timeout:g} s each)")
    for rep in range(repeat):
        for job in jobs:
            for impl in job["impls"]:
                k += 1
                prog = builds[impl]["programs"].get(job["kind"])
                run = {"job": job["name"], "impl": impl, "repeat": rep,
                       "loadavg_before": loadavg()}
                if prog is None:
                    err = "; ".join(builds[impl]["errors"]) or "not built"
                    err = err.splitlines()[0][:300]
                    run["error"] = f"not built: {err}"
                    for key in job["expect"]:
                        slot_tests = floor_tests if key[0] == "floor_pingpong" else \
                            [by_key[key]] if key in by_key else []
                        for t in slot_tests:
                            t["results"][impl]["repeats"].append({"repeat": rep,
                                                                  "error": run["error"]})
                    runs.append(run)
                    log(f"[{k}/{total}] rep {rep + 1}/{repeat} {job['name']:14s} {impl:8s} "
                        f"skipped: not built")
                    continue
                cmd = launcher(args, impl, job["ues"]) + [prog] + job["args"]
                if args.settle > 0:
                    time.sleep(args.settle)
                rec = run_cmd(cmd, BUILD / impl, args.timeout)
                run.update(rec)
                runs.append(run)
                lines = parse_lines(rec["stdout"])
                run["measurements"] = lines
                got = []
                for key in job["expect"]:
                    bench, ues, size = key
                    hit = [o for o in lines if o.get("bench") == bench and o.get("ues") == ues
                           and (size is None or o.get("size") == size)]
                    if key[0] == "floor_pingpong":
                        slot_tests = floor_tests
                    else:
                        slot_tests = [by_key[key]] if key in by_key else []
                    for t in slot_tests:
                        slot = t["results"][impl]
                        if bench == "launch":
                            if hit and "error" not in rec:
                                slot["repeats"].append({"repeat": rep, "value": rec["wall_s"]})
                                got.append(f"{rec['wall_s']:.3f}s")
                            else:
                                e = rec.get("error") or f"no output line (ues={ues})"
                                slot["repeats"].append({"repeat": rep, "error": e,
                                                        "wall_s": rec["wall_s"]})
                            continue
                        if hit and hit[-1].get("valid", True) is not False and \
                                value_of(hit[-1]) is not None:
                            o = hit[-1]
                            r = {"repeat": rep, "value": value_of(o), "iters": o.get("iters"),
                                 "line": o}
                            if "error" in rec:
                                r["run_error"] = rec["error"]
                            slot["repeats"].append(r)
                            if t is slot_tests[0]:
                                got.append(f"{bench}{'' if size is None else ' ' + str(size)}="
                                           f"{fmt(value_of(o), 'us')}")
                        elif hit:
                            slot["repeats"].append({"repeat": rep, "error": "invalid result "
                                                    "(data check failed)", "line": hit[-1]})
                        else:
                            e = rec.get("error") or "run succeeded but printed no result line"
                            if rec.get("error"):
                                e += f", no {bench} line printed"
                            slot["repeats"].append({"repeat": rep, "error": e})
                status = "ok" if "error" not in rec else "ERROR " + rec["error"]
                log(f"[{k}/{total}] rep {rep + 1}/{repeat} {job['name']:14s} {impl:8s} "
                    f"{rec['wall_s'] or 0:6.2f}s {status}: {', '.join(got) if got else '-'}")
                if "error" in rec:
                    tail = rec["stderr"].strip().splitlines()[-3:]
                    for ln in tail:
                        log(f"      stderr: {ln[:200]}")

    # medians
    for t in tests:
        for impl, r in t["results"].items():
            if r["status"] == "skipped":
                continue
            r["values"] = [x["value"] for x in r["repeats"] if "value" in x]
            if r["values"]:
                r["status"] = "ok"
                r["median"] = statistics.median(r["values"])
                r["min"] = min(r["values"])
                r["max"] = max(r["values"])
            else:
                r["status"] = "failed"

    tests_by_id = {t["id"]: t for t in tests}
    targets = evaluate_targets(tests_by_id, args.ues)
    try:
        host["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        pass
    elapsed = time.perf_counter() - t_start
    doc = {
        "schema": "openscc-bench-foundation/1",
        "command": command,
        "elapsed_s": elapsed,
        "config": {"repeat": repeat, "quick": args.quick, "time_box_s": args.time_box,
                   "min_iters": args.min_iters, "ues_large": args.ues,
                   "timeout_s": args.timeout, "settle_s": args.settle,
                   "impls": impls, "tests": groups,
                   "rcce_bin": args.rcce_bin,
                   "launchers": {i: shlex.join(launcher(args, i, 0)[:-1]) + " N"
                                 for i in impls if i != "floor"}},
        "host": host,
        "builds": builds,
        "tests": tests,
        "targets": targets,
        "runs": runs,
    }
    jpath = out_prefix.with_suffix(".json")
    mpath = out_prefix.with_suffix(".md")
    jpath.write_text(json.dumps(doc, indent=1) + "\n")
    write_markdown(mpath, doc)
    log("")
    log(mpath.read_text())
    log(f"wrote {os.path.relpath(jpath, Path.cwd())} and {os.path.relpath(mpath, Path.cwd())} "
        f"in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""OpenSCC foundation benchmark driver (Python 3.11, stdlib only).

Builds the benchmark programs into build/bench/, runs every test R times on
OpenSCC (RCCE over build/bin/rccerun), MPICH, Open MPI and the cache-line
floor, takes medians and writes

    bench/results/foundation.json   every run, every repeat, every median
    bench/results/foundation.md     the summary table and the targets
    bench/results/ircce.json        the iRCCE group (pipelined vs blocking,
    bench/results/ircce.md          ping-ping vs MPI, flags, schemes, bursts)

--build DIR takes another build tree (default build/) for both the tools
(DIR/bin) and the compiled benchmark programs (DIR/bench/).

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

TEST_GROUPS = ["pingpong", "collective", "launch", "floor", "ircce"]
FOUNDATION_GROUPS = ["pingpong", "collective", "launch", "floor"]

# ---- the iRCCE group (bench/ircce/; written to bench/results/ircce.*) ----
IRCCE_PROGRAMS = {
    "openscc": {"ircce": ("ircce/ircce_bench.c", "ircce_bench")},
    "mpich": {"pingping": ("ircce/pingping_mpi.c", "pingping_mpi")},
    "openmpi": {"pingping": ("ircce/pingping_mpi.c", "pingping_mpi")},
}
IRCCE_PP_SIZES = [8, 4096, 16384, 65536, 1048576]
IRCCE_NSC_SIZES = [16384, 65536, 1048576]
IRCCE_PINGPING_SIZES = [8, 4096, 65536, 1048576]
IRCCE_FLAG_SIZES = [1, 4, 8, 16, 24, 28, 32]
IRCCE_SCHEME_SIZES = [8, 4096, 65536, 1048576]
IRCCE_RPLG_TAGGED_SIZES = [8]
IRCCE_BURST_SIZES = [8, 1024]
IRCCE_BURST = 16

# One table per section: its rows are sizes, its columns are variants.
# "ratio": (numerator column, denominator column or "best_mpi", title).
IRCCE_SECTIONS = [
    {"key": "pp", "title": "Pingpong half round trip (µs): RCCE blocking vs iRCCE pipelined",
     "sizes": IRCCE_PP_SIZES, "unit": "us",
     "columns": [("rcce", "RCCE_send/recv"), ("ircce", "iRCCE_ssend/srecv")],
     "ratio": ("ircce", "rcce", "pipelined / blocking")},
    {"key": "ppnsc", "title": "Pingpong half round trip with `rccerun --no-single-copy` (µs)",
     "sizes": IRCCE_NSC_SIZES, "unit": "us",
     "columns": [("rcce", "RCCE_send/recv"), ("ircce", "iRCCE_ssend/srecv")],
     "ratio": ("ircce", "rcce", "pipelined / blocking")},
    {"key": "pingping", "title": "Ping-ping, both sides isend + irecv at once: time per exchange (µs)",
     "sizes": IRCCE_PINGPING_SIZES, "unit": "us",
     "columns": [("openscc", "OpenSCC iRCCE"), ("mpich", "MPICH"), ("openmpi", "Open MPI")],
     "ratio": ("openscc", "best_mpi", "OpenSCC / best MPI")},
    {"key": "flags", "title": "RCCE_send/recv half round trip (µs): normal vs `--flags tagged`",
     "sizes": IRCCE_FLAG_SIZES, "unit": "us",
     "columns": [("normal", "normal flags"), ("tagged", "--flags tagged")],
     "ratio": ("tagged", "normal", "tagged / normal")},
    {"key": "scheme", "title": "RCCE_send/recv half round trip (µs): `--scheme lprg` vs `--scheme rplg`",
     "sizes": IRCCE_SCHEME_SIZES, "unit": "us",
     "columns": [("lprg", "lprg"), ("rplg", "rplg"), ("rplg_tagged", "rplg + tagged")],
     "ratio": ("rplg", "lprg", "rplg / lprg")},
    {"key": "burst", "title": f"{IRCCE_BURST} messages in a row, time per message (µs): "
                              f"blocking RCCE_send vs {IRCCE_BURST} outstanding iRCCE_isend",
     "sizes": IRCCE_BURST_SIZES, "unit": "us",
     "columns": [("send", f"{IRCCE_BURST} x RCCE_send"), ("isend", f"{IRCCE_BURST} x iRCCE_isend + wait all")],
     "ratio": ("isend", "send", "isend / send")},
]


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


def build(args, impls: list[str], programs: dict | None = None) -> dict:
    """Compile every program needed; returns {impl: {prog: path | None, ...}}."""
    programs = PROGRAMS if programs is None else programs
    cc = compilers(args)
    builds: dict = {}
    for impl in impls:
        if impl not in programs:
            continue
        entry = {"ok": True, "programs": {}, "commands": [], "errors": []}
        builds[impl] = entry
        outdir = BUILD / impl
        outdir.mkdir(parents=True, exist_ok=True)
        for kind, (src, name) in programs[impl].items():
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
# the iRCCE group
# --------------------------------------------------------------------------

def make_ircce_tests() -> list[dict]:
    """One test per (section, size); its results hold one slot per column."""
    tests = []
    for sec in IRCCE_SECTIONS:
        for s in sec["sizes"]:
            cols = [c for c, _ in sec["columns"]]
            if sec["key"] == "scheme" and s not in IRCCE_RPLG_TAGGED_SIZES:
                cols.remove("rplg_tagged")
            tests.append({"id": f"{sec['key']}_{s}", "section": sec["key"], "label": size_label(s),
                          "unit": sec["unit"], "ues": 2, "size": s, "columns": cols})
    return tests


def make_ircce_jobs(args) -> list[dict]:
    """One job = one launch; "expect" maps output lines (bench, impl field,
    size) to (test id, column).  Every job runs 2 UEs / ranks."""
    prog_args = ["-t", f"{args.time_box:g}", "-i", str(args.min_iters)]

    def sizes(lst):
        return ",".join(str(s) for s in lst)

    def pp(name, opts, modes, lst, section, cols):
        """A pingpong job: modes pp_rcce / pp_ircce, filling columns cols."""
        impl_of = {"pp_rcce": "rcce", "pp_ircce": "ircce"}
        exp = [("pingpong", impl_of[m], s, f"{section}_{s}", col)
               for s in lst for m, col in zip(modes, cols)]
        return {"name": name, "suite": "ircce", "kind": "ircce", "ues": 2, "impls": ["openscc"],
                "rcce_opts": opts, "args": prog_args + ["-x", ",".join(modes), "-s", sizes(lst)],
                "expect": exp}

    jobs = [
        pp("ircce:pp", [], ["pp_rcce", "pp_ircce"], IRCCE_PP_SIZES, "pp", ("rcce", "ircce")),
        pp("ircce:pp-nsc", ["--no-single-copy"], ["pp_rcce", "pp_ircce"], IRCCE_NSC_SIZES, "ppnsc",
           ("rcce", "ircce")),
        {"name": "ircce:pingping", "suite": "ircce", "kind": "ircce", "ues": 2, "impls": ["openscc"],
         "rcce_opts": [], "args": prog_args + ["-x", "pingping", "-s", sizes(IRCCE_PINGPING_SIZES)],
         "expect": [("pingping", "ircce", s, f"pingping_{s}", "openscc") for s in IRCCE_PINGPING_SIZES]},
        {"name": "ircce:pingping-mpi", "suite": "ircce", "kind": "pingping", "ues": 2,
         "impls": ["mpich", "openmpi"], "rcce_opts": [],
         "args": prog_args + ["-x", "pingping", "-s", sizes(IRCCE_PINGPING_SIZES)],
         "expect": [("pingping", "mpi", s, f"pingping_{s}", None) for s in IRCCE_PINGPING_SIZES]},
        pp("ircce:flags-normal", [], ["pp_rcce"], IRCCE_FLAG_SIZES, "flags", ("normal",)),
        pp("ircce:flags-tagged", ["--flags", "tagged"], ["pp_rcce"], IRCCE_FLAG_SIZES, "flags", ("tagged",)),
        pp("ircce:scheme-lprg", ["--scheme", "lprg"], ["pp_rcce"], IRCCE_SCHEME_SIZES, "scheme", ("lprg",)),
        pp("ircce:scheme-rplg", ["--scheme", "rplg"], ["pp_rcce"], IRCCE_SCHEME_SIZES, "scheme", ("rplg",)),
        pp("ircce:rplg-tagged", ["--scheme", "rplg", "--flags", "tagged"], ["pp_rcce"],
           IRCCE_RPLG_TAGGED_SIZES, "scheme", ("rplg_tagged",)),
        {"name": "ircce:burst", "suite": "ircce", "kind": "ircce", "ues": 2, "impls": ["openscc"],
         "rcce_opts": [], "args": prog_args + ["-x", "burst_send,burst_isend", "-s", sizes(IRCCE_BURST_SIZES),
                                               "-n", str(IRCCE_BURST)],
         "expect": [("burst", impl, s, f"burst_{s}", col) for s in IRCCE_BURST_SIZES
                    for impl, col in (("rcce", "send"), ("ircce", "isend"))]},
    ]
    return jobs


def ircce_slot(tests_by_id: dict, tid: str, col: str) -> dict | None:
    t = tests_by_id.get(tid)
    return t["results"].get(col) if t else None


def record_ircce(job: dict, impl: str, rep: int, rec: dict | None, lines: list[dict],
                 tests_by_id: dict, error: str | None = None) -> list[str]:
    """Files one run's measurements (or its error) under the job's test slots."""
    got = []
    for bench, field, size, tid, col in job["expect"]:
        col = col or impl  # the MPI peers fill the column of their implementation
        slot = ircce_slot(tests_by_id, tid, col)
        if slot is None:
            continue
        if error is not None:
            slot["repeats"].append({"repeat": rep, "error": error})
            continue
        hit = [o for o in lines if o.get("bench") == bench and o.get("impl") == field
               and o.get("ues") == job["ues"] and o.get("size") == size]
        if hit and hit[-1].get("valid", True) is not False and value_of(hit[-1]) is not None:
            o = hit[-1]
            r = {"repeat": rep, "value": value_of(o), "iters": o.get("iters"), "line": o}
            if "error" in rec:
                r["run_error"] = rec["error"]
            slot["repeats"].append(r)
            got.append(f"{col} {size}={fmt(value_of(o), 'us')}")
        elif hit:
            slot["repeats"].append({"repeat": rep, "error": "invalid result (data check failed)",
                                    "line": hit[-1]})
        else:
            e = rec.get("error") or "run succeeded but printed no result line"
            if rec.get("error"):
                e += f", no {bench} {field} {size} line printed"
            slot["repeats"].append({"repeat": rep, "error": e})
    return got


def evaluate_ircce_targets(tests_by_id: dict) -> list[dict]:
    def med(tid, col):
        slot = ircce_slot(tests_by_id, tid, col)
        if slot is None or slot["status"] == "skipped":
            return "not measured", None
        if slot["status"] == "failed":
            return "failed", None
        return "ok", slot["median"]

    out = []

    def add(name, tid, col, ref_col, ref_desc, strict):
        st, v = med(tid, col)
        rst, ref = med(tid, ref_col)
        rec = {"target": name, "test": tid, "column": col, "openscc": v, "reference": ref,
               "reference_column": ref_col, "reference_desc": ref_desc, "unit": "us"}
        if st == "not measured":
            rec["status"] = "not measured"
        elif st == "failed":
            rec["status"] = "not met (OpenSCC failed)"
        elif ref is None:
            rec["status"] = "undetermined (reference not measured or failed)"
        else:
            rec["status"] = "met" if (v < ref if strict else v <= ref) else "not met"
        out.append(rec)

    add("iRCCE pipelined 1 MiB half RTT <= RCCE blocking 1 MiB half RTT", "pp_1048576", "ircce", "rcce",
        "RCCE_send/recv 1 MiB half RTT", strict=False)
    add("tagged-flag 8 B half RTT < normal-flag 8 B half RTT", "flags_8", "tagged", "normal",
        "normal flags 8 B half RTT", strict=True)
    return out


def ircce_ratio(t: dict, sec: dict) -> str:
    num, den, _ = sec["ratio"]
    a = t["results"].get(num)
    if not a or a["status"] != "ok":
        return "—"
    if den == "best_mpi":
        vals = [t["results"][p]["median"] for p in PEERS
                if p in t["results"] and t["results"][p]["status"] == "ok"]
        b = min(vals) if vals else None
    else:
        r = t["results"].get(den)
        b = r["median"] if r and r["status"] == "ok" else None
    if not b:
        return "—"
    q = a["median"] / b
    return f"{q:.2f}x" if q >= 0.1 else f"{q:.4f}x"


def write_ircce_markdown(path: Path, doc: dict) -> None:
    h = doc["host"]
    c = doc["config"]
    lines = ["# OpenSCC iRCCE benchmark", ""]
    rccerun = Path(c["rcce_bin"]) / "rccerun"
    try:
        rccerun = rccerun.relative_to(ROOT)
    except ValueError:
        pass
    rel_launcher = f"{rccerun} -nue 2"
    lines.append(f"Produced by `{doc['command']}` (run from the repository root) on "
                 f"{h.get('date')}: {h.get('nproc')} CPUs ({h.get('cpu_model')}), "
                 f"{h.get('os')}, kernel {h.get('kernel')}, MPICH {h.get('mpich_version')}"
                 f"{' (' + h['mpich_device'] + ')' if h.get('mpich_device') else ''}, "
                 f"Open MPI {h.get('openmpi_version')}.")
    lines.append("")
    lines.append(f"Every cell is the **median of {c['repeat']} run{'s' if c['repeat'] != 1 else ''}**"
                 f"{' (quick smoke run: not representative)' if c['quick'] else ''}; "
                 f"each run's value is the mean of a time-boxed loop (~{c['time_box_s']:g} s, "
                 f">= {c['min_iters']} iterations). All runs use 2 UEs (ranks); OpenSCC runs "
                 f"`{rel_launcher}` with the rccerun options named in each table. Latencies in "
                 f"microseconds. Total harness time {doc['elapsed_s']:.0f} s (all groups of "
                 f"the run).")
    tests = {t["id"]: t for t in doc["tests"]}
    for sec in IRCCE_SECTIONS:
        rows = [tests[f"{sec['key']}_{s}"] for s in sec["sizes"] if f"{sec['key']}_{s}" in tests]
        if not rows:
            continue
        lines.append("")
        lines.append(f"## {sec['title']}")
        lines.append("")
        lines.append("| Size | " + " | ".join(t for _, t in sec["columns"]) + f" | {sec['ratio'][2]} |")
        lines.append("|---|" + "---:|" * (len(sec["columns"]) + 1))
        for t in rows:
            cells = [cell(t["results"].get(col), "us") if col in t["results"] else ""
                     for col, _ in sec["columns"]]
            lines.append(f"| {t['label']} | " + " | ".join(cells) + f" | {ircce_ratio(t, sec)} |")
    lines.append("")
    lines.append("Pingpong and flag/scheme rows: half round trip between UE 0 and UE 1. Ping-ping: "
                 "both UEs post a receive and a send of the size at once and wait for both "
                 "(iRCCE_irecv + iRCCE_isend + iRCCE_wait_all; MPI_Irecv + MPI_Isend + "
                 "MPI_Waitall). Bursts: UE 0 sends "
                 f"{IRCCE_BURST} messages to UE 1, either one blocking RCCE_send after another "
                 f"(UE 1: RCCE_recv) or as {IRCCE_BURST} iRCCE_isend requests completed by "
                 f"iRCCE_wait_all (UE 1: {IRCCE_BURST} iRCCE_irecv); time per message. "
                 "Every message's first and last byte are checked.")
    lines.append("")
    lines.append("## Targets")
    lines.append("")
    for tg in doc["targets"]:
        v = fmt(tg["openscc"], "us") + " µs" if tg["openscc"] is not None else "—"
        ref = fmt(tg["reference"], "us") + " µs" if tg["reference"] is not None else "—"
        lines.append(f"- {tg['target']}: **{tg['status']}** (OpenSCC {v}; "
                     f"{tg['reference_desc']}: {ref})")
    errs = []
    for t in doc["tests"]:
        for col, r in t["results"].items():
            if r["status"] == "skipped":
                continue
            for e in sorted({rep["error"] for rep in r["repeats"] if "error" in rep}):
                errs.append(f"- {t['id']} / {col}: {e}")
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
    global BUILD
    ap = argparse.ArgumentParser(
        description="OpenSCC benchmark: RCCE on OpenSCC vs MPICH, Open MPI and the cache-line "
                    "floor (bench/results/foundation.{json,md}), and the iRCCE group "
                    "(bench/results/ircce.{json,md}).")
    ap.add_argument("--repeat", "-r", type=int, default=None,
                    help="runs per test; the table shows medians (default 5, --quick: 1)")
    ap.add_argument("--quick", action="store_true",
                    help="fast smoke run: 1 repeat, 0.02 s time boxes, 2 min iterations; "
                         "writes foundation-quick.{json,md} and ircce-quick.{json,md} unless "
                         "--out / --ircce-out are given")
    ap.add_argument("--only-peers", action="store_true",
                    help="skip OpenSCC (measure MPICH, Open MPI and the floor only)")
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help=f"comma list of implementations to run (default {','.join(IMPLS)})")
    ap.add_argument("--tests", default=",".join(TEST_GROUPS),
                    help=f"comma list of test groups (default {','.join(TEST_GROUPS)}); "
                         "a run without any foundation group leaves foundation.* alone, one "
                         "without ircce leaves ircce.* alone")
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
    ap.add_argument("--build", default="build",
                    help="OpenSCC build tree, relative to the repository root or absolute "
                         "(default build): rccecc/rccerun from DIR/bin, benchmark programs "
                         "compiled into DIR/bench/")
    ap.add_argument("--rcce-bin", default=None,
                    help="directory holding rccecc and rccerun (default BUILD/bin)")
    ap.add_argument("--out", default=None,
                    help="output path prefix; writes PREFIX.json and PREFIX.md "
                         "(default bench/results/foundation, --quick: foundation-quick)")
    ap.add_argument("--ircce-out", default=None,
                    help="output path prefix of the iRCCE group (default bench/results/ircce, "
                         "--quick: ircce-quick)")
    args = ap.parse_args()

    build_dir = Path(args.build)
    if not build_dir.is_absolute():
        build_dir = ROOT / build_dir
    BUILD = build_dir / "bench"
    if args.rcce_bin is None:
        args.rcce_bin = str(build_dir / "bin")
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
    fgroups = [g for g in groups if g in FOUNDATION_GROUPS]
    do_ircce = "ircce" in groups
    out_prefix = Path(args.out) if args.out else \
        RESULTS / ("foundation-quick" if args.quick else "foundation")
    ircce_prefix = Path(args.ircce_out) if args.ircce_out else \
        RESULTS / ("ircce-quick" if args.quick else "ircce")
    if fgroups:
        out_prefix.parent.mkdir(parents=True, exist_ok=True)
    if do_ircce:
        ircce_prefix.parent.mkdir(parents=True, exist_ok=True)

    t_start = time.perf_counter()
    command = "python3 " + shlex.join([os.path.relpath(sys.argv[0], ROOT)
                                       if Path(sys.argv[0]).exists() else sys.argv[0]]
                                      + sys.argv[1:])
    log(f"OpenSCC foundation benchmark: {command}")
    host = host_info()
    log(f"host: {host['nproc']} CPUs, {host['cpu_model']}; MPICH {host['mpich_version']}, "
        f"Open MPI {host['openmpi_version']}; load {' '.join(host.get('loadavg_start', []))}")

    log("building into " + os.path.relpath(BUILD, ROOT) + "/ ...")
    builds = build(args, impls) if fgroups else {}
    ircce_impls = [i for i in impls if i in IRCCE_PROGRAMS]
    ircce_builds = build(args, ircce_impls, IRCCE_PROGRAMS) if do_ircce else {}

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

    # The iRCCE group: its tests have one slot per column (variant or peer).
    ircce_tests = make_ircce_tests() if do_ircce else []
    ircce_jobs = []
    if do_ircce:
        for j in make_ircce_jobs(args):
            j["impls"] = [i for i in j["impls"] if i in ircce_impls]
            if j["impls"]:
                ircce_jobs.append(j)
    ran_cols: dict[str, set] = {}
    for j in ircce_jobs:
        for impl in j["impls"]:
            for _, _, _, tid, col in j["expect"]:
                ran_cols.setdefault(tid, set()).add(col or impl)
    for t in ircce_tests:
        t["results"] = {col: {"status": "pending" if col in ran_cols.get(t["id"], ()) else "skipped",
                              "median": None, "values": [], "repeats": []}
                        for col in t["columns"]}
    ircce_by_id = {t["id"]: t for t in ircce_tests}

    jobs = (make_jobs(args, impls, groups) if fgroups else []) + ircce_jobs
    runs = []
    ircce_runs = []
    total = repeat * sum(len(j["impls"]) for j in jobs)
    k = 0
    log(f"running {len(jobs)} jobs x {repeat} repeats ({total} runs, timeout {args.timeout:g} s each)")
    for rep in range(repeat):
        for job in jobs:
            is_ircce = job.get("suite") == "ircce"
            for impl in job["impls"]:
                k += 1
                jb = ircce_builds if is_ircce else builds
                prog = jb[impl]["programs"].get(job["kind"])
                run = {"job": job["name"], "impl": impl, "repeat": rep,
                       "loadavg_before": loadavg()}
                if prog is None:
                    err = "; ".join(jb[impl]["errors"]) or "not built"
                    err = err.splitlines()[0][:300]
                    run["error"] = f"not built: {err}"
                    if is_ircce:
                        record_ircce(job, impl, rep, None, [], ircce_by_id, error=run["error"])
                        ircce_runs.append(run)
                    else:
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
                extra = job.get("rcce_opts", []) if impl == "openscc" else []
                cmd = launcher(args, impl, job["ues"]) + extra + [prog] + job["args"]
                if args.settle > 0:
                    time.sleep(args.settle)
                rec = run_cmd(cmd, BUILD / impl, args.timeout)
                run.update(rec)
                lines = parse_lines(rec["stdout"])
                run["measurements"] = lines
                if is_ircce:
                    ircce_runs.append(run)
                    got = record_ircce(job, impl, rep, rec, lines, ircce_by_id)
                else:
                    runs.append(run)
                    got = []
                for key in ([] if is_ircce else job["expect"]):
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
    for t in tests + ircce_tests:
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
    try:
        host["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        pass
    elapsed = time.perf_counter() - t_start
    written = []
    if fgroups:
        targets = evaluate_targets(tests_by_id, args.ues)
        doc = {
            "schema": "openscc-bench-foundation/1",
            "command": command,
            "elapsed_s": elapsed,
            "config": {"repeat": repeat, "quick": args.quick, "time_box_s": args.time_box,
                       "min_iters": args.min_iters, "ues_large": args.ues,
                       "timeout_s": args.timeout, "settle_s": args.settle,
                       "impls": impls, "tests": fgroups,
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
        written.append((jpath, mpath))
    if do_ircce:
        idoc = {
            "schema": "openscc-bench-ircce/1",
            "command": command,
            "elapsed_s": elapsed,
            "config": {"repeat": repeat, "quick": args.quick, "time_box_s": args.time_box,
                       "min_iters": args.min_iters, "timeout_s": args.timeout,
                       "settle_s": args.settle, "impls": ircce_impls, "tests": ["ircce"],
                       "rcce_bin": args.rcce_bin, "burst": IRCCE_BURST,
                       "launchers": {i: shlex.join(launcher(args, i, 0)[:-1]) + " N"
                                     for i in ircce_impls}},
            "host": host,
            "builds": ircce_builds,
            "sections": IRCCE_SECTIONS,
            "jobs": [{"name": j["name"], "impls": j["impls"], "rcce_opts": j.get("rcce_opts", []),
                      "args": j["args"]} for j in ircce_jobs],
            "tests": ircce_tests,
            "targets": evaluate_ircce_targets(ircce_by_id),
            "runs": ircce_runs,
        }
        jpath = ircce_prefix.with_suffix(".json")
        mpath = ircce_prefix.with_suffix(".md")
        jpath.write_text(json.dumps(idoc, indent=1) + "\n")
        write_ircce_markdown(mpath, idoc)
        written.append((jpath, mpath))
    for jpath, mpath in written:
        log("")
        log(mpath.read_text())
    for jpath, mpath in written:
        log(f"wrote {os.path.relpath(jpath, Path.cwd())} and {os.path.relpath(mpath, Path.cwd())} "
            f"in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One whole benchmark run: build, run every job, take medians, write the results."""
from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from . import ab, foundation, ircce, loaded
from .building import build
from .documents import write_results
from .foundation import FOUNDATION_GROUPS, PROGRAMS, foundation_document, foundation_tests, make_jobs
from .foundation_markdown import foundation_page
from .host import host_info, record_loadavg
from .ircce import IRCCE_PROGRAMS, ircce_document, ircce_jobs, ircce_tests
from .ircce_markdown import ircce_page
from .paths import ROOT
from .progress import log
from .run_loop import Group, run_all
from .slots import take_medians

TEST_GROUPS = FOUNDATION_GROUPS + ["ircce", "load", "ab"]


def command_line() -> str:
    """The command as run from the repository root, for the results pages."""
    script = os.path.relpath(sys.argv[0], ROOT) if Path(sys.argv[0]).exists() else sys.argv[0]
    return "python3 " + shlex.join([script] + sys.argv[1:])


def run(args, impls: list[str], groups: list[str], out_prefix: Path, ircce_prefix: Path,
        load_prefix: Path, ab_prefix: Path) -> int:
    """Runs the selected groups (args as resolved by run_bench.py) and writes
    the foundation results to out_prefix.*, the iRCCE group's to ircce_prefix.*,
    the load group's (loaded.py) to load_prefix.*, the A/B group's (ab.py) to ab_prefix.*."""
    fgroups = [g for g in groups if g in FOUNDATION_GROUPS]
    do_ircce = "ircce" in groups
    if fgroups:
        out_prefix.parent.mkdir(parents=True, exist_ok=True)
    if do_ircce:
        ircce_prefix.parent.mkdir(parents=True, exist_ok=True)

    t_start = time.perf_counter()
    command = command_line()
    log(f"OpenSCC foundation benchmark: {command}")
    host = host_info()
    log(f"host: {host['nproc']} CPUs, {host['cpu_model']}; MPICH {host['mpich_version']}, "
        f"Open MPI {host['openmpi_version']}; load {' '.join(host.get('loadavg_start', []))}")

    log("building into " + os.path.relpath(args.bench_dir, ROOT) + "/ ...")
    builds = build(args, impls, PROGRAMS) if fgroups else {}
    ircce_impls = [i for i in impls if i in IRCCE_PROGRAMS]
    ircce_builds = build(args, ircce_impls, IRCCE_PROGRAMS) if do_ircce else {}

    tests = foundation_tests(args.ues, impls, groups)
    foundation_group = Group(builds, foundation.measurements(tests))
    # the iRCCE group: its tests have one slot per column (variant or peer)
    ijobs = ircce_jobs(args, ircce_impls) if do_ircce else []
    itests = ircce_tests(ijobs) if do_ircce else []
    ircce_group = Group(ircce_builds, ircce.measurements({t["id"]: t for t in itests}))
    fjobs = make_jobs(args, impls, groups) if fgroups else []
    if fjobs or ijobs:
        run_all(args, [(foundation_group, j) for j in fjobs] + [(ircce_group, j) for j in ijobs])
    take_medians(tests + itests)

    written = []
    if "ab" in groups and "openscc" in impls:  # its own loop: current and baseline alternately
        ab_prefix.parent.mkdir(parents=True, exist_ok=True)
        ab_written = ab.run_group(args, {"command": command, "host": host}, ab_prefix)
        written += [ab_written] if ab_written else []
    if "load" in groups:  # its own loop: busy processes around each run
        load_prefix.parent.mkdir(parents=True, exist_ok=True)
        written.append(loaded.run_group(args, impls, {"command": command, "host": host}, load_prefix))
    record_loadavg(host, "loadavg_end")
    elapsed = time.perf_counter() - t_start
    session = {"command": command, "elapsed_s": elapsed, "host": host}
    if fgroups:
        doc = foundation_document(args, session, impls, fgroups, builds, tests, foundation_group.runs)
        written.append(write_results(out_prefix, doc, foundation_page))
    if do_ircce:
        doc = ircce_document(args, session, ircce_impls, ircce_builds, ijobs, itests, ircce_group.runs)
        written.append(write_results(ircce_prefix, doc, ircce_page))
    for _, mpath in written:
        log("")
        log(mpath.read_text())
    for jpath, mpath in written:
        log(f"wrote {os.path.relpath(jpath, Path.cwd())} and {os.path.relpath(mpath, Path.cwd())} "
            f"in {elapsed:.0f} s")
    return 0

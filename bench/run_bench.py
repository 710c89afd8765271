#!/usr/bin/env python3
"""OpenSCC foundation benchmark driver (Python 3.11, stdlib only).

Builds the benchmark programs into build/bench/, runs every test R times on
OpenSCC (RCCE over build/bin/rccerun), MPICH, Open MPI and the cache-line
floor, takes medians and writes

    bench/results/foundation.json   every run, every repeat, every median
    bench/results/foundation.md     the summary table and the targets
    bench/results/ircce.json        the iRCCE group (pipelined vs blocking,
    bench/results/ircce.md          ping-ping vs MPI, flags, schemes, bursts)
    bench/results/load.json         the load group (waiting policies on an idle
    bench/results/load.md           and a loaded host, the polling iRCCE ring)
    bench/results/ab.json           the A/B group (the foundation rows of this tree
    bench/results/ab.md             against a baseline revision, alternately in one run)

--build DIR takes another build tree (default build/) for both the tools
(DIR/bin) and the compiled benchmark programs (DIR/bench/).

This file parses and checks the options; the package bench/openscc_bench/
does the work.  See bench/README.md.  `python3 bench/run_bench.py --help`
lists the options.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from openscc_bench.implementations import IMPLS
from openscc_bench.paths import RESULTS, ROOT
from openscc_bench.session import TEST_GROUPS, run


def option_parser() -> argparse.ArgumentParser:
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
    ap.add_argument("--load-out", default=None,
                    help="output path prefix of the load group (default bench/results/load, "
                         "--quick: load-quick)")
    ap.add_argument("--ab-out", default=None,
                    help="output path prefix of the A/B group (default bench/results/ab, "
                         "--quick: ab-quick)")
    ap.add_argument("--baseline", default=None, metavar="REV",
                    help="git revision the A/B group compares this tree with (default: the one "
                         "named in bench/ab-baseline)")
    ap.add_argument("--ab-repeat", type=int, default=None,
                    help="runs of each tree per A/B row (default 10, --quick: 2)")
    return ap


def main() -> int:
    ap = option_parser()
    args = ap.parse_args()
    build_dir = Path(args.build)
    if not build_dir.is_absolute():
        build_dir = ROOT / build_dir
    args.bench_dir = build_dir / "bench"
    if args.rcce_bin is None:
        args.rcce_bin = str(build_dir / "bin")
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    if repeat < 1:
        ap.error("--repeat must be >= 1")
    args.repeat = repeat
    args.ab_repeat = args.ab_repeat if args.ab_repeat is not None else (2 if args.quick else 10)
    if args.ab_repeat < 1:
        ap.error("--ab-repeat must be >= 1")
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
    ircce_prefix = Path(args.ircce_out) if args.ircce_out else \
        RESULTS / ("ircce-quick" if args.quick else "ircce")
    load_prefix = Path(args.load_out) if args.load_out else \
        RESULTS / ("load-quick" if args.quick else "load")
    ab_prefix = Path(args.ab_out) if args.ab_out else RESULTS / ("ab-quick" if args.quick else "ab")
    return run(args, impls, groups, out_prefix, ircce_prefix, load_prefix, ab_prefix)


if __name__ == "__main__":
    sys.exit(main())

"""The `openscc` command (docs/monitoring.md "Reports")."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import MISSING_PACKAGE
from .files import PathError
from .jobdir import load
from .reproduce import EXPERIMENTS, reproduce

BAD_INPUT = 2  # a job directory, build tree or output path openscc cannot use (as argparse's usage errors)


def _reproduce(ap: argparse.ArgumentParser, args) -> int:
    chosen = [e.strip() for e in args.experiments.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in EXPERIMENTS]
    if unknown or not chosen:
        ap.error(f"--experiments: unknown {unknown or 'empty list'}; choose from {', '.join(EXPERIMENTS)}")
    out = Path(args.out) if args.out else Path("runs") / time.strftime("furst2012-%Y%m%d-%H%M%S")
    try:
        index = reproduce(Path(args.build), out, args.quick, chosen)
    except RuntimeError as e:  # an rccerun run failed
        print(f"openscc: {e}", file=sys.stderr)
        return 1
    print(index)
    return 0


def _report(args) -> Path:
    runs = [load(args.jobdir)] if args.command == "report" else [load(args.a), load(args.b)]
    # matplotlib takes most of a second to import: only once the inputs are good
    from .report import write_compare, write_report

    if args.command == "report":
        return write_report(runs[0], Path(args.out) if args.out else runs[0].path / "report")
    a, b = runs
    return write_compare(a, b, Path(args.out) if args.out else a.path / f"compare-{b.path.name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="openscc", description="Reports of OpenSCC job directories.")
    sub = ap.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="one HTML page with plots of a job directory")
    rep.add_argument("jobdir")
    rep.add_argument("-o", "--out", help="output directory (default JOBDIR/report)")
    cmp_ = sub.add_parser("compare", help="two job directories side by side")
    cmp_.add_argument("a")
    cmp_.add_argument("b")
    cmp_.add_argument("-o", "--out", help="output directory (default A/compare-<B's name>)")
    rep2 = sub.add_parser("reproduce", help="rerun a paper's experiments in model mode")
    rep2.add_argument("paper", choices=["furst2012"], help="furst2012: Furst & Coskun, RCCE performance and power ([FURST-2011] in docs/references.md)")
    rep2.add_argument("--quick", action="store_true", help="fewer points and shorter runs (under 2 minutes)")
    rep2.add_argument("--build", default="build", help="OpenSCC build tree with bin/rccerun and model-apps/ (default build)")
    rep2.add_argument("--experiments", default=",".join(EXPERIMENTS), help=f"comma list of {', '.join(EXPERIMENTS)}")
    rep2.add_argument("-o", "--out", help="output directory (default runs/furst2012-<date>-<time>)")
    args = ap.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):  # file names need not be UTF-8: print them as the file system has them
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        if args.command == "reproduce":
            return _reproduce(ap, args)
        print(_report(args))
        return 0
    except PathError as e:
        print(f"openscc: {e}", file=sys.stderr)
        return BAD_INPUT
    except ModuleNotFoundError as e:  # matplotlib and Jinja2 are imported only once the inputs are good
        print(f"openscc: {MISSING_PACKAGE.format(name=e.name)}", file=sys.stderr)
        return 1

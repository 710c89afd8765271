"""The `openscc` command (docs/monitoring.md "Reports")."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .jobdir import JobDirError, load
from .report import write_compare, write_report


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
    args = ap.parse_args(argv)
    try:
        if args.command == "report":
            run = load(args.jobdir)
            index = write_report(run, Path(args.out) if args.out else run.path / "report")
        else:
            a, b = load(args.a), load(args.b)
            index = write_compare(a, b, Path(args.out) if args.out else a.path / f"compare-{b.path.name}")
    except JobDirError as e:
        print(f"openscc: {e}", file=sys.stderr)
        return 1
    print(index)
    return 0

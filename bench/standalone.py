"""What the stand-alone benchmark scripts (model_bench.py, trace_bench.py) share:
their options, the command line recorded with the results, and writing them."""
from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def options(doc: str, repeat: int, out: str) -> tuple[argparse.Namespace, pathlib.Path, str]:
    """--build, --repeat, --out; returns them, the build tree and the command as run from the root."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--repeat", "-r", type=int, default=repeat)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / out), help="writes OUT.json and OUT.md")
    a = ap.parse_args()
    script = pathlib.Path(sys.argv[0]).resolve().relative_to(ROOT)
    return a, pathlib.Path(a.build), "python3 " + shlex.join([str(script)] + sys.argv[1:])


def write(out: str, doc: dict, page: str) -> None:
    """OUT.json and OUT.md, and the page on stdout."""
    path = pathlib.Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    path.with_suffix(".md").write_text(page)
    print(page)

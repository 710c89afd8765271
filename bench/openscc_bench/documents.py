"""The results documents: their common fields, and writing PREFIX.json and PREFIX.md."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable


def loop_config(args) -> dict:
    """How many repeats, and how long the timed loops inside the programs run."""
    return {"repeat": args.repeat, "quick": args.quick, "time_box_s": args.time_box,
            "min_iters": args.min_iters}


def launch_config(args, impls: list[str], tests: list[str]) -> dict:
    """How the programs were run: timeout, settle pause, what and with which tools."""
    return {"timeout_s": args.timeout, "settle_s": args.settle, "impls": impls, "tests": tests,
            "rcce_bin": args.rcce_bin}


def document(schema: str, session: dict, config: dict, builds: dict, **parts) -> dict:
    """schema, command, elapsed time, config, host and builds, then the group's parts."""
    return {"schema": schema, "command": session["command"], "elapsed_s": session["elapsed_s"],
            "config": config, "host": session["host"], "builds": builds, **parts}


def write_results(prefix: Path, doc: dict, page: Callable[[dict], str]) -> tuple[Path, Path]:
    """Writes doc to PREFIX.json and its page to PREFIX.md; returns both paths."""
    jpath = prefix.with_suffix(".json")
    mpath = prefix.with_suffix(".md")
    jpath.write_text(json.dumps(doc, indent=1) + "\n")
    mpath.write_text(page(doc))
    return jpath, mpath

"""A job directory (docs/monitoring.md): summary.json and the files beside it."""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jsonschema

SCHEMA, VERSION = "openscc-summary", 1
SCHEMA_FILE = Path(__file__).with_name("summary.schema.json")


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def schema_errors(summary: dict) -> list[str]:
    """What in a summary.json document breaks its JSON Schema (summary.schema.json)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in sorted(_validator().iter_errors(summary), key=lambda e: list(map(str, e.absolute_path)))]


class JobDirError(Exception):
    """The directory is not a readable OpenSCC job directory."""


@dataclass
class JobRun:
    path: Path
    summary: dict
    comm: list[tuple[int, int, int, int]] = field(default_factory=list)  # src, dst, messages, bytes
    sizes: list[tuple[int, int]] = field(default_factory=list)           # bytes, messages
    power: list[tuple[float, float]] = field(default_factory=list)       # start_s, watts

    @property
    def job(self) -> dict:
        return self.summary["job"]

    @property
    def ues(self) -> list[dict]:
        return self.summary["ues"]

    @property
    def modeled(self) -> bool:
        return "chip_totals" in self.summary


def _rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def load(path: str | Path) -> JobRun:
    """Reads a job directory; JobDirError names the file and the problem."""
    path = Path(path)
    summary_path = path / "summary.json"
    try:
        summary = json.loads(summary_path.read_text())
    except FileNotFoundError:
        raise JobDirError(f"{path}: no summary.json (not an OpenSCC job directory)") from None
    except json.JSONDecodeError as e:
        raise JobDirError(f"{summary_path}: not valid JSON ({e})") from None
    if summary.get("schema") != SCHEMA or summary.get("version") != VERSION:
        raise JobDirError(f"{summary_path}: schema {summary.get('schema')!r} version {summary.get('version')!r}, "
                          f"expected {SCHEMA!r} version {VERSION}")
    errors = schema_errors(summary)
    if errors:
        raise JobDirError(f"{summary_path}: does not match its schema: {errors[0]}")
    run = JobRun(path, summary)
    files = summary.get("files", {})
    try:
        if "comm_matrix" in files:
            run.comm = [(int(r["src"]), int(r["dst"]), int(r["messages"]), int(r["bytes"]))
                        for r in _rows(path / files["comm_matrix"])]
        if "message_sizes" in files:
            run.sizes = [(int(r["bytes"]), int(r["messages"])) for r in _rows(path / files["message_sizes"])]
        if "power" in files:
            run.power = [(float(r["start_s"]), float(r["watts"])) for r in _rows(path / files["power"])]
    except (OSError, KeyError, ValueError) as e:
        raise JobDirError(f"{path}: a file named in summary.json cannot be read ({e})") from None
    return run

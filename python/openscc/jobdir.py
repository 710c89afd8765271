"""A job directory (docs/monitoring.md): summary.json and the files beside it,
checked against the schema and against each other before anything uses them."""
from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jsonschema

from .files import MAX_DATA_BYTES, PathError, directory, read_json, read_text

SCHEMA, VERSION = "openscc-summary", 1
SCHEMA_FILE = Path(__file__).with_name("summary.schema.json")
MAX_CORES = 1024          # rccerun's limit (CHIP_MAX_CORES)
MAX_ROWS = 1 << 20        # rows of a CSV file: a full 1024 x 1024 communication matrix
MAX_COUNT = (1 << 64) - 1  # the counters are 64-bit
MAX_MESSAGE = 200          # characters of a schema error's message shown


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(read_json(SCHEMA_FILE))


def schema_error(summary: object) -> str | None:
    """The first thing in a summary.json document that breaks its JSON Schema
    (summary.schema.json), as 'where: what', or None."""
    try:
        e = next(_validator().iter_errors(summary), None)
    except RecursionError:
        return "(top): nested too deeply"
    if e is None:
        return None
    message = e.message if len(e.message) <= MAX_MESSAGE else e.message[:MAX_MESSAGE] + "..."
    return f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {message}"


@dataclass
class JobRun:
    path: Path
    summary: dict
    comm: list[tuple[int, int, int, int]] = field(default_factory=list)  # src, dst, messages, bytes
    size_bins: list[tuple[int, int]] = field(default_factory=list)      # power-of-two bin, messages
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

    @property
    def measured(self) -> dict:
        """Model mode: the measured region's time and energy (the program's first to last clock read),
        or the whole job's when no UE read the clock (docs/model.md "Measured region")."""
        return measured(self.summary)


def measured(summary: dict) -> dict:
    """The measured region of a model-mode summary, else its chip totals."""
    return summary.get("measured_region", summary["chip_totals"])


def size_bin(nbytes: int) -> int:
    """Message sizes in power-of-two bins: bin 0 holds size 0, bin k >= 1 sizes 2^(k-1) .. 2^k - 1."""
    return nbytes.bit_length()


def bin_low(k: int) -> int:
    """The smallest size of bin k."""
    return 0 if k == 0 else 1 << (k - 1)


def _consistency_error(s: dict) -> str | None:
    """What in a schema-valid summary contradicts itself, as 'where: what', or None."""
    job, mesh, ues = s["job"], s["job"]["mesh"], s["ues"]
    w, h, boards = mesh["tiles_x"], mesh["tiles_y"], mesh.get("boards", 1)
    per_board = w * h * mesh["cores_per_tile"]
    cores = per_board * boards
    if cores > MAX_CORES:
        several = f"{boards} boards of " if boards > 1 else ""
        return f"job/mesh: {several}{w} x {h} tiles of {mesh['cores_per_tile']} cores: more than {MAX_CORES} cores"
    if job["nue"] != len(ues):
        return f"job/nue: {job['nue']} UEs, but ues lists {len(ues)}"
    seen = set()
    for i, u in enumerate(ues):
        if u["ue"] >= job["nue"]:
            return f"ues/{i}/ue: UE {u['ue']} outside the job's UEs 0..{job['nue'] - 1}"
        if u["ue"] in seen:
            return f"ues/{i}/ue: UE {u['ue']} listed twice"
        seen.add(u["ue"])
        if u["core"] >= cores:
            return f"ues/{i}/core: core {u['core']} outside the mesh's cores 0..{cores - 1}"
        if u["tile"][0] >= w or u["tile"][1] >= h:
            return f"ues/{i}/tile: tile {u['tile']} outside the {w} x {h} mesh"
        if u.get("board", 0) != u["core"] // per_board:
            return f"ues/{i}/board: core {u['core']} is on board {u['core'] // per_board}, not {u.get('board', 0)}"
        hosts = len(job.get("hosts", [])) or 1  # rccerun --hosts: board b of B runs on host b * H / B
        if u.get("host", 0) != u.get("board", 0) * hosts // boards:
            return (f"ues/{i}/host: board {u.get('board', 0)} of {boards} runs on host "
                    f"{u.get('board', 0) * hosts // boards} of {hosts}, not {u.get('host', 0)}")
    for i, (x, y) in enumerate(mesh["memory_controllers"]):
        if x >= w or y >= h:
            return f"job/mesh/memory_controllers/{i}: tile {[x, y]} outside the {w} x {h} mesh"
    region = s.get("measured_region")
    if region and region["start_s"] + region["seconds"] > s["chip_totals"]["seconds"] * (1 + 1e-6):
        return (f"measured_region: {region['start_s']:.9g} s + {region['seconds']:.9g} s ends after the job "
                f"({s['chip_totals']['seconds']:.9g} s)")
    return None


def load_summary(path: Path) -> dict:
    """summary.json of the job directory path, checked."""
    summary_path = path / "summary.json"
    summary = read_json(summary_path)
    if not isinstance(summary, dict):
        raise PathError(summary_path, f"the top level is a JSON {type(summary).__name__}, not an object")
    if summary.get("schema") != SCHEMA or summary.get("version") != VERSION:
        raise PathError(summary_path, f"schema {summary.get('schema')!r:.60} version {summary.get('version')!r:.60}, "
                                      f"expected {SCHEMA!r} version {VERSION}")
    problem = schema_error(summary) or _consistency_error(summary)
    if problem:
        raise PathError(summary_path, f"does not match its schema: {problem}")
    return summary


_UINT = re.compile(r"[0-9]{1,20}")


def _count(text: str) -> int:
    if not _UINT.fullmatch(text) or int(text) > MAX_COUNT:
        raise ValueError(f"'{text[:40]}' is not a count from 0 to {MAX_COUNT}")
    return int(text)


def _nonnegative(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v >= 0) or text.strip() != text:
        raise ValueError(f"'{text[:40]}' is not a finite number >= 0")
    return v


def _csv_rows(path: Path, header: tuple[str, ...], parse: tuple[Callable[[str], object], ...]) -> Iterator[tuple]:
    """The rows of one of the job's CSV files (RFC 4180 without quoting: numbers only)."""
    lines = io.StringIO(read_text(path, MAX_DATA_BYTES), newline="\n")
    first = lines.readline().rstrip("\r\n")
    if first != ",".join(header):
        raise PathError(path, f"line 1: header '{first[:80]}', expected '{','.join(header)}'")
    for lineno, line in enumerate(lines, 2):
        if lineno > MAX_ROWS + 1:
            raise PathError(path, f"more than {MAX_ROWS} rows")
        fields = line.rstrip("\r\n").split(",")
        if len(fields) != len(header):
            raise PathError(path, f"line {lineno}: {len(fields)} fields, expected {len(header)} ({','.join(header)})")
        try:
            yield tuple(p(f) for p, f in zip(parse, fields))
        except ValueError as e:
            raise PathError(path, f"line {lineno}: {e}") from None


def _comm(path: Path, nue: int) -> list[tuple[int, int, int, int]]:
    rows, pairs = [], set()
    for lineno, row in enumerate(_csv_rows(path, ("src", "dst", "messages", "bytes"), (_count,) * 4), 2):
        src, dst = row[0], row[1]
        if src >= nue or dst >= nue:
            raise PathError(path, f"line {lineno}: UE {max(src, dst)} outside the job's UEs 0..{nue - 1}")
        if (src, dst) in pairs:
            raise PathError(path, f"line {lineno}: the pair {src},{dst} appears twice")
        pairs.add((src, dst))
        rows.append(row)
    return rows


def _size_bins(path: Path) -> list[tuple[int, int]]:
    """message_sizes.csv summed into power-of-two bins as it is read: memory
    stays bounded by the 65 bins whatever the number of distinct sizes."""
    bins: Counter = Counter()
    for nbytes, messages in _csv_rows(path, ("bytes", "messages"), (_count, _count)):
        bins[size_bin(nbytes)] += messages
    return sorted(bins.items())


def load(path: str | Path) -> JobRun:
    """Reads a job directory; PathError names the file and the problem."""
    path = directory(Path(path))
    run = JobRun(path, load_summary(path))
    files = run.summary["files"]
    if "comm_matrix" in files:
        run.comm = _comm(path / files["comm_matrix"], run.job["nue"])
    if "message_sizes" in files:
        run.size_bins = _size_bins(path / files["message_sizes"])
    if "power" in files:
        run.power = list(_csv_rows(path / files["power"], ("start_s", "watts"), (_nonnegative, _nonnegative)))
    return run

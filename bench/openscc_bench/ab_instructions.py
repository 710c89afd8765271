"""The A/B group's counted row (issue 13): the instructions one 8-byte RCCE round trip executes
outside waiting, in each tree.  On a shared 2-CPU host the timed 8-byte row moves by about 25 %
between runs of the same tree (its A/A noise), far more than the 3 % bound; what the code itself
decides -- the instructions of the send and receive path -- does not.  bench/rcce/roundtrip_count.c
runs N round trips in counted_round_trips(); UE 0 runs under
`valgrind --tool=callgrind --toggle-collect=counted_round_trips`, UE 1 natively, and what UE 0
spends inside hw_wait_cond (spinning, yielding or sleeping until UE 1 answers, which depends on the
host) is left out.  See bench/README.md "The A/B group"."""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
from pathlib import Path

PROGRAM = ("rcce/roundtrip_count.c", "roundtrip_count")  # (source under bench/, binary name)
ROUND_TRIPS = 20000
LOOP = "counted_round_trips"
WAIT = "hw_wait_cond"
REPEAT = 3
TIMEOUT_S = 600

WRAPPER = """#!/bin/sh
# UE 0 under callgrind (its counted loop only), the other UEs natively (bench/openscc_bench/ab_instructions.py)
if [ "$OPENSCC_UE" = 0 ]; then
  exec valgrind --tool=callgrind --toggle-collect={loop} --callgrind-out-file="$OPENSCC_CALLGRIND_OUT" "$@"
fi
exec "$@"
"""


class CountError(Exception):
    """One counted run failed; the message says how."""


def total_instructions(profile: str) -> int:
    """The instructions a callgrind profile collected (its `summary:` or `totals:` line)."""
    m = re.search(r"^(?:summary|totals):\s*(\d+)", profile, re.M)
    if not m:
        raise CountError("the callgrind profile has no summary line")
    return int(m.group(1))


def inclusive_of(annotated: str, function: str) -> int:
    """function's inclusive count in `callgrind_annotate --inclusive=yes` output; 0 when it is not
    listed (UE 0 never waited)."""
    pattern = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\S*:)?" + re.escape(function) + r"(?:'\d+)?\s")
    for line in annotated.splitlines():
        m = pattern.match(line)
        if m:
            return int(m.group(1).replace(",", ""))
    return 0


def per_round_trip(total: int, waited: int, round_trips: int) -> float:
    return (total - waited) / round_trips


def write_wrapper(scratch: Path) -> Path:
    """The script rccerun starts as every UE's program: UE 0 under callgrind, the others as they are."""
    wrapper = scratch / "callgrind_ue0.sh"
    wrapper.write_text(WRAPPER.format(loop=LOOP))
    wrapper.chmod(0o755)
    return wrapper


def count_once(rccerun: Path, program: Path, wrapper: Path, out: Path, round_trips: int) -> float:
    """One run: instructions per round trip outside waiting, on UE 0."""
    out.unlink(missing_ok=True)
    env = {**os.environ, "OPENSCC_CALLGRIND_OUT": str(out)}
    cmd = [str(rccerun), "-nue", "2", str(wrapper), str(program), str(round_trips)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CountError(f"{' '.join(cmd)} timed out after {TIMEOUT_S} s") from None
    if p.returncode != 0 or not out.exists():
        raise CountError(f"{' '.join(cmd)} failed (exit {p.returncode}): {(p.stdout + p.stderr).strip()[-300:]}")
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)], capture_output=True, text=True,
                               timeout=TIMEOUT_S).stdout
    return per_round_trip(total_instructions(out.read_text()), inclusive_of(annotated, WAIT), round_trips)


def measure(sides: dict[str, tuple[Path, Path | None]], scratch: Path, repeat: int = REPEAT,
            round_trips: int = ROUND_TRIPS) -> dict:
    """sides: {side: (its rccerun, its roundtrip_count or None when it did not build)}.  Runs each
    side `repeat` times, alternately; returns the JSON record of the row."""
    row: dict = {"program": PROGRAM[0], "round_trips": round_trips, "wait_function": WAIT, "repeat": repeat}
    missing = [tool for tool in ("valgrind", "callgrind_annotate") if shutil.which(tool) is None]
    unbuilt = [side for side, (_, program) in sides.items() if program is None]
    if missing or unbuilt:
        why = f"{', '.join(missing)} not installed" if missing else f"{PROGRAM[0]} did not build for {', '.join(unbuilt)}"
        return {**row, "status": "skipped", "reason": why}
    wrapper = write_wrapper(scratch)
    values: dict[str, list[float]] = {side: [] for side in sides}
    try:
        for r in range(repeat):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for side in order:
                rccerun, program = sides[side]
                values[side].append(count_once(rccerun, program, wrapper, scratch / f"callgrind.{side}.out",
                                               round_trips))
    except CountError as e:
        return {**row, "status": "failed", "reason": str(e), "values": values}
    medians = {side: statistics.median(v) for side, v in values.items()}
    return {**row, "status": "ok", "values": values, **medians,
            "ratio": medians["current"] / medians["baseline"] if medians.get("baseline") else None}


def verdict(row: dict | None) -> str:
    """The counted row in words, for ab.md."""
    if not row or row.get("status") != "ok":
        return f"not counted ({row.get('reason', '?') if row else 'not run'})"
    return (f"baseline {row['baseline']:.0f}, current {row['current']:.0f}, current / baseline "
            f"{row['ratio']:.3f}x (median of {row['repeat']} runs each)")

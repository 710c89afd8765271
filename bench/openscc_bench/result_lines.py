"""The JSON result lines the benchmark programs print on stdout."""
from __future__ import annotations

import json


def parse_lines(stdout: str) -> list[dict]:
    """Every line holding a JSON object with a "bench" field (after any prefix
    before the "{", such as a UE tag added by a launcher)."""
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


def value_of(obj: dict) -> float | None:
    for k in ("half_rtt_us", "lat_us"):
        if k in obj:
            return float(obj[k])
    return None

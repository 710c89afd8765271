"""The host's state at each 2-process run.  This project's 2-vCPU machines switch, every few
seconds, between two states in which a cache line moves between the two CPUs in about 0.04 µs or
about 0.16 µs (the hypervisor places the vCPUs on one core or on two), and every 2-process
latency moves with it.  Medians over runs that fell into different states compare nothing, so
each 2-process run is preceded by a short cache-line ping-pong (the floor program), and the
results are also reported per state."""
from __future__ import annotations

import math
import statistics

from .processes import run_cmd
from .result_lines import parse_lines, value_of

PROBE_ARGS = ["-t", "0.03", "-i", "3"]
# two states when the slowest probe is at least this many times the fastest
STATE_SPREAD = 1.5


def probe(args, builds: dict) -> float | None:
    """The cache-line ping-pong half round trip (µs) right now, or None without the floor program."""
    prog = builds.get("floor", {}).get("programs", {}).get("floor")
    if prog is None:
        return None
    rec = run_cmd([prog] + PROBE_ARGS, args.bench_dir / "floor", args.timeout)
    values = [value_of(o) for o in parse_lines(rec["stdout"]) if o.get("bench") == "floor_pingpong"]
    return values[-1] if values and values[-1] is not None else None


def probes_of(tests: list[dict]) -> list[float]:
    return [r["host_floor_us"] for t in tests for s in t["results"].values()
            for r in s["repeats"] if r.get("host_floor_us") is not None]


def threshold(tests: list[dict]) -> float | None:
    """The probe value separating the two states (their geometric middle), or None for one state."""
    p = probes_of(tests)
    if not p or max(p) < STATE_SPREAD * min(p):
        return None
    return math.sqrt(min(p) * max(p))


def state_medians(slot: dict, cut: float) -> dict[str, tuple[float | None, int]]:
    """{"fast": (median, runs), "slow": (median, runs)} of a slot's probed runs."""
    out = {}
    for state, inside in (("fast", lambda f: f < cut), ("slow", lambda f: f >= cut)):
        v = [r["value"] for r in slot["repeats"] if "value" in r and r.get("host_floor_us") is not None
             and inside(r["host_floor_us"])]
        out[state] = (statistics.median(v) if v else None, len(v))
    return out

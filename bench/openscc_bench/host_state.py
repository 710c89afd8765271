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
# two states when the probes fall into two groups, the slower at least this many times the faster
STATE_SPREAD = 1.5
# runs of each side a state needs before it is compared
MIN_STATE_RUNS = 2


def probe(args, builds: dict) -> float | None:
    """The cache-line ping-pong half round trip (µs) right now, or None without the floor program."""
    prog = builds.get("floor", {}).get("programs", {}).get("floor")
    if prog is None:
        return None
    rec = run_cmd([prog] + PROBE_ARGS, args.bench_dir / "floor", args.timeout)
    values = [value_of(o) for o in parse_lines(rec["stdout"]) if o.get("bench") == "floor_pingpong"]
    return values[-1] if values and values[-1] is not None else None


def probes_of(tests: list[dict]) -> list[float]:
    return [f for t in tests for s in t["results"].values() for r in s["repeats"]
            for f in (r.get("host_floor_us"), r.get("host_floor_after_us")) if f is not None]


def threshold(tests: list[dict]) -> float | None:
    """The probe value separating the two states, or None for one state: the widest gap between
    neighbouring probes (on a log scale), if it spans STATE_SPREAD and leaves at least two probes on
    each side (one stray probe makes no state); the cut is the gap's geometric middle."""
    p = sorted(probes_of(tests))
    gaps = [(p[i + 1] / p[i], i) for i in range(1, len(p) - 2) if p[i] > 0]
    if not gaps:
        return None
    spread, i = max(gaps)
    return math.sqrt(p[i] * p[i + 1]) if spread >= STATE_SPREAD else None


def state_of(run: dict, cut: float) -> str | None:
    """"fast" or "slow" when the probes before and after the run agree, else None (it switched)."""
    sides = {f < cut for f in (run.get("host_floor_us"), run.get("host_floor_after_us")) if f is not None}
    return None if len(sides) != 1 else ("fast" if sides.pop() else "slow")


def state_medians(slot: dict, cut: float) -> dict[str, tuple[float | None, int]]:
    """{"fast": (median, runs), "slow": (median, runs)} of a slot's runs that stayed in one state."""
    out = {}
    for state in ("fast", "slow"):
        v = [r["value"] for r in slot["repeats"] if "value" in r and state_of(r, cut) == state]
        out[state] = (statistics.median(v) if v else None, len(v))
    return out

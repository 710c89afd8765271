"""The compared implementations and the best of the MPI peers."""
from __future__ import annotations

IMPLS = ["openscc", "mpich", "openmpi", "floor"]
IMPL_TITLE = {"openscc": "OpenSCC", "mpich": "MPICH", "openmpi": "Open MPI",
              "floor": "cache-line floor"}
PEERS = ["mpich", "openmpi"]


def best_peer(results: dict) -> tuple[str | None, float | None]:
    """The MPI peer with the lowest median among a test's results, and that median."""
    best = (None, None)
    for impl in PEERS:
        r = results.get(impl)
        if r and r["status"] == "ok" and (best[1] is None or r["median"] < best[1]):
            best = (impl, r["median"])
    return best

"""Where the SCC experiments place their UEs (docs/references.md ref 1)."""
from __future__ import annotations


def core_of(x: int, y: int, z: int = 0) -> int:
    """The core id of core z on tile (x, y) ("core id": 2 (x + 6 y) + z)."""
    return 2 * (x + 6 * y) + z


def three_hop_pairs(n: int) -> list[int]:
    """Cores of n pairs whose members sit 3 hops apart (tiles (x, y) and (x+3, y)),
    as --cores lists them: pair k is UEs 2k and 2k+1 (apps' --pairs)."""
    cores = []
    for y in range(4):
        for x in range(3):
            for z in range(2):
                cores += [core_of(x, y, z), core_of(x + 3, y, z)]
    return cores[: 2 * n]

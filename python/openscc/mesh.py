"""Where messages travel on the mesh: XY routes between tiles (docs/references.md
ref 1 "routing": X first, then Y), as the chip layer routes them."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

Link = tuple[tuple[int, int], tuple[int, int]]  # from tile, to neighbouring tile


def xy_route(a: tuple[int, int], b: tuple[int, int]) -> list[Link]:
    """The links a message crosses from tile a to tile b."""
    (x, y), links = a, []
    while x != b[0]:
        step = 1 if b[0] > x else -1
        links.append(((x, y), (x + step, y)))
        x += step
    while y != b[1]:
        step = 1 if b[1] > y else -1
        links.append(((x, y), (x, y + step)))
        y += step
    return links


def _add_run(diff: dict, line: int, first: int, last: int, nbytes: int) -> None:
    """Adds nbytes to the links numbered first..last of one row or column (difference array)."""
    d = diff.setdefault(line, Counter())
    d[first] += nbytes
    d[last + 1] -= nbytes


def _runs(diff: dict) -> Iterator[tuple[int, int, int]]:
    """(row or column, link number, bytes) for every link the runs cover."""
    for line, d in diff.items():
        total, keys = 0, sorted(d)
        for a, b in zip(keys, keys[1:]):
            total += d[a]
            if total:
                for i in range(a, b):
                    yield line, i, total


def link_traffic(comm: list[tuple[int, int, int, int]], tiles: dict[int, tuple[int, int]]) -> Counter:
    """Bytes per directed link for the logged messages (src, dst, messages, bytes):
    the same as adding every message along its xy_route, in time linear in the
    pairs and the mesh (each route is an X run on the source's row and a Y run
    on the destination's column, summed with difference arrays)."""
    east, west, north, south = {}, {}, {}, {}  # runs keyed by the link's from-coordinate
    for src, dst, _, nbytes in comm:
        (x0, y0), (x1, y1) = tiles[src], tiles[dst]
        if x1 > x0:
            _add_run(east, y0, x0, x1 - 1, nbytes)
        elif x1 < x0:
            _add_run(west, y0, x1 + 1, x0, nbytes)
        if y1 > y0:
            _add_run(north, x1, y0, y1 - 1, nbytes)
        elif y1 < y0:
            _add_run(south, x1, y1 + 1, y0, nbytes)
    traffic: Counter = Counter()
    for y, x, n in _runs(east):
        traffic[((x, y), (x + 1, y))] += n
    for y, x, n in _runs(west):
        traffic[((x, y), (x - 1, y))] += n
    for x, y, n in _runs(north):
        traffic[((x, y), (x, y + 1))] += n
    for x, y, n in _runs(south):
        traffic[((x, y), (x, y - 1))] += n
    return traffic

"""Where messages travel on the mesh: XY routes between tiles (scc-reference.md
section 1, "routing": X first, then Y), as the chip layer routes them."""
from __future__ import annotations

from collections import Counter

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


def link_traffic(comm: list[tuple[int, int, int, int]], tiles: dict[int, tuple[int, int]]) -> Counter:
    """Bytes per directed link for the logged messages (src, dst, messages, bytes)."""
    traffic: Counter = Counter()
    for src, dst, _, nbytes in comm:
        for link in xy_route(tiles[src], tiles[dst]):
            traffic[link] += nbytes
    return traffic

"""The report's figures, drawn with matplotlib into PNG files."""
from __future__ import annotations

import io
from collections import Counter

import matplotlib
import numpy

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import cm, colors  # noqa: E402

from .files import OutputDir  # noqa: E402
from .jobdir import JobRun, bin_low  # noqa: E402
from .mesh import link_traffic  # noqa: E402


def save_png(fig, out: OutputDir, name: str) -> tuple[str, bytes]:
    """Writes the figure as out/name; returns name and the PNG."""
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110)
    plt.close(fig)
    out.write(name, png.getvalue())
    return name, png.getvalue()


MESH_INCHES = 12           # the mesh figure's largest side
LABELLED_TILE_INCHES = 0.5  # tiles smaller than this go without their x,y label
UE_INCHES = 0.22           # a UE's bars in the per-UE figure, up to...
UE_FIGURE_INCHES = 16      # ...this width


def _tiles(run: JobRun) -> dict[int, tuple[int, int]]:
    """Each UE's tile in the figure: boards side by side, a column apart."""
    step = run.job["mesh"]["tiles_x"] + 1
    return {u["ue"]: (u["tile"][0] + u.get("board", 0) * step, u["tile"][1]) for u in run.ues}


def _legs(run: JobRun) -> tuple[list, dict, Counter]:
    """The logged messages as routes on the figure's meshes: between boards, from the sender to its board's
    system interface and from the other board's interface on (docs/cluster.md); and the bytes each ordered
    pair of boards exchanged."""
    mesh, tiles = run.job["mesh"], _tiles(run)
    step, (sx, sy) = mesh["tiles_x"] + 1, mesh.get("system_interface", [0, 0])
    board = {u["ue"]: u.get("board", 0) for u in run.ues}
    legs, between = [], Counter()
    for src, dst, msgs, nbytes in run.comm:
        if board[src] == board[dst]:
            legs.append((src, dst, msgs, nbytes))
            continue
        out, into = ("sif", board[src]), ("sif", board[dst])
        tiles[out], tiles[into] = (sx + board[src] * step, sy), (sx + board[dst] * step, sy)
        legs += [(src, out, msgs, nbytes), (into, dst, msgs, nbytes)]
        between[(board[src], board[dst])] += nbytes
    return legs, tiles, between


def mesh_traffic(run: JobRun, out: OutputDir) -> tuple[str, bytes]:
    """The mesh with every link coloured by the bytes the logged messages sent over it (XY routes); several
    boards side by side, the bytes between them under their system interfaces."""
    mesh = run.job["mesh"]
    w, h, boards = mesh["tiles_x"], mesh["tiles_y"], mesh.get("boards", 1)
    legs, tiles, between = _legs(run)
    traffic = link_traffic(legs, tiles)
    wide = boards * (w + 1) - 1
    # 1.3 inches a tile up to the SCC's 6 x 4; larger meshes share MESH_INCHES
    cell = min(1.3, MESH_INCHES / max(wide, h))
    fig, ax = plt.subplots(figsize=(cell * wide + 1.5, cell * h + 0.6))
    busy = {tiles[u["ue"]] for u in run.ues}  # the UEs' tiles (tiles also holds the interfaces)
    for b in range(boards):
        for x in range(b * (w + 1), b * (w + 1) + w):
            for y in range(h):
                ax.add_patch(plt.Rectangle((x - 0.3, y - 0.3), 0.6, 0.6,
                                           facecolor="#d9e6f2" if (x, y) in busy else "#f2f2f2", edgecolor="#555"))
                if cell >= LABELLED_TILE_INCHES:
                    ax.text(x, y, f"{x - b * (w + 1)},{y}", ha="center", va="center", fontsize=7, color="#333")
        for mx, my in mesh.get("memory_controllers", []):
            ax.text(mx + b * (w + 1), my - 0.42, "MC", ha="center", va="center", fontsize=6, color="#a33")
        if boards > 1:
            sx, sy = mesh["system_interface"]
            sent = sum(n for (a, _), n in between.items() if a == b)
            ax.text(sx + b * (w + 1), sy - 0.55, f"board {b}: SIF, {sent} B out", ha="center", va="center",
                    fontsize=6, color="#a33")
    top = max(traffic.values(), default=0)
    norm = colors.LogNorm(vmin=1, vmax=max(top, 2))
    cmap = matplotlib.colormaps["viridis"]
    for ((x0, y0), (x1, y1)), nbytes in traffic.items():
        # the two directions of a link side by side
        dx, dy = (0, 0.08) if y0 == y1 else (0.08, 0)
        sign = 1 if (x1 - x0) + (y1 - y0) > 0 else -1
        ax.annotate("", xy=(x1 - 0.3 * (x1 - x0) + sign * dx, y1 - 0.3 * (y1 - y0) + sign * dy),
                    xytext=(x0 + 0.3 * (x1 - x0) + sign * dx, y0 + 0.3 * (y1 - y0) + sign * dy),
                    arrowprops={"arrowstyle": "->", "color": cmap(norm(max(nbytes, 1))), "lw": 2.2})
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="bytes over the link")
    ax.set_xlim(-0.7, wide - 0.3)
    ax.set_ylim(-0.7, h - 0.3)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title("Mesh traffic (tiles x,y; XY routes of the logged messages)")
    return save_png(fig, out, "mesh_traffic.png")


def comm_matrix(run: JobRun, out: OutputDir) -> tuple[str, bytes]:
    n = run.job["nue"]
    grid = numpy.zeros((n, n))
    for src, dst, msgs, _ in run.comm:
        grid[src, dst] = msgs
    fig, ax = plt.subplots(figsize=(5.5, 4.8))
    img = ax.imshow(grid, cmap="magma_r", origin="upper", interpolation="nearest")
    fig.colorbar(img, ax=ax, label="messages")
    ax.set_xlabel("destination UE")
    ax.set_ylabel("source UE")
    ax.set_title("Communication matrix")
    # several boards: a line where the UEs' board changes (UEs in order of their cores' boards)
    board = [u.get("board", 0) for u in sorted(run.ues, key=lambda u: u["ue"])]
    for ue in range(1, n):
        if board[ue] != board[ue - 1]:
            ax.axhline(ue - 0.5, color="#2a9d8f", lw=1)
            ax.axvline(ue - 0.5, color="#2a9d8f", lw=1)
    return save_png(fig, out, "comm_matrix.png")


def _bytes_label(n: int) -> str:
    """1, 512, 1K, 64K, 1M, 2G, ... (the bins' lower bounds are powers of two)."""
    for unit, shift in (("E", 60), ("P", 50), ("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift:
            return f"{n >> shift}{unit}"
    return str(n)


def message_sizes(run: JobRun, out: OutputDir) -> tuple[str, bytes]:
    """A histogram in power-of-two bins: one bar per bin from the smallest to
    the largest size sent (at most 65 bars, however many distinct sizes)."""
    counts = dict(run.size_bins)
    bins = range(min(counts), max(counts) + 1)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.3 * len(bins) + 1.5), 3.6))
    ax.bar(range(len(bins)), [counts.get(k, 0) for k in bins], width=0.85, color="#4477aa")
    ax.set_xticks(range(len(bins)), [_bytes_label(bin_low(k)) for k in bins], rotation=60, fontsize=7)
    ax.set_xlabel("message size (bytes; each bar from its label to the next one's)")
    ax.set_ylabel("messages")
    ax.set_title("Message sizes")
    return save_png(fig, out, "message_sizes.png")


def ue_breakdown(run: JobRun, out: OutputDir) -> tuple[str, bytes]:
    ues = [u["ue"] for u in run.ues]
    fig, ax = plt.subplots(figsize=(min(UE_FIGURE_INCHES, max(5, UE_INCHES * len(ues) + 2)), 3.6))
    if run.modeled:
        bottom = [0.0] * len(ues)
        for key, label, color in (("compute_s", "computation", "#4477aa"), ("comm_s", "communication", "#ee6677"),
                                  ("wait_s", "waiting", "#bbbbbb")):
            vals = [u[key] * 1e3 for u in run.ues]
            ax.bar(ues, vals, bottom=bottom, label=label, color=color)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_ylabel("virtual time (ms)")
        ax.set_title("Time per UE (model)")
    else:
        sent = [u.get("msgs_sent", 0) for u in run.ues]
        recv = [u.get("msgs_recv", 0) for u in run.ues]
        ax.bar([u - 0.2 for u in ues], sent, width=0.4, label="messages sent", color="#4477aa")
        ax.bar([u + 0.2 for u in ues], recv, width=0.4, label="messages received", color="#ee6677")
        ax.set_ylabel("messages")
        ax.set_title("Messages per UE")
    ax.set_xlabel("UE")
    ax.legend(fontsize=8)
    return save_png(fig, out, "ue_breakdown.png")


def power(run: JobRun, out: OutputDir) -> tuple[str, bytes]:
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    ax.plot([t * 1e3 for t, _ in run.power], [w for _, w in run.power], color="#228833", drawstyle="steps-post")
    ax.set_xlabel("virtual time (ms)")
    ax.set_ylabel("chip power (W)")
    ax.set_ylim(bottom=0)
    totals = run.summary["chip_totals"]
    ax.set_title(f"Power: {totals['energy_j']:.4g} J, {totals['average_w']:.2f} W average, EDP {totals['edp_js']:.3g} J·s")
    return save_png(fig, out, "power.png")

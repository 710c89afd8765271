"""Figures and page of `openscc reproduce furst2012`, mirroring [FURST-2011]'s."""
from __future__ import annotations

import base64
from pathlib import Path

from .files import OutputDir
from .plots import save_png  # before pyplot: it selects matplotlib's file-only backend
from .report import render

import matplotlib.pyplot as plt  # noqa: E402


def _virtual_time_line(t: dict, xlabel: str, title: str, color: str, out: OutputDir, name: str) -> tuple[str, bytes]:
    """Virtual time (ms) against the experiment's parameter."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.plot(list(t), [v * 1e3 for v in t.values()], "o-", color=color)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("virtual time (ms)")
    ax.set_title(title)
    return save_png(fig, out, name)


def hops(r: dict, out: OutputDir) -> tuple[str, bytes]:
    return _virtual_time_line(r["hops"]["seconds"], "hops between the pair's cores", "Stencil, one pair (paper Fig. 5)",
                              "#4477aa", out, "fig5_stencil_hops.png")


def pairs(r: dict, out: OutputDir) -> tuple[str, bytes]:
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for app, t in r["pairs"]["seconds"].items():
        base = t[min(t)]
        ax.plot(list(t), [v / base for v in t.values()], "o-", label=app)
    ax.set_xlabel("pairs running at once (3 hops apart)")
    ax.set_ylabel("time / time of one pair")
    ax.set_title("Share, Shift, Stencil (paper Figs. 6-7)")
    ax.legend()
    return save_png(fig, out, "fig6_7_pairs.png")


def bcast(r: dict, out: OutputDir) -> tuple[str, bytes]:
    return _virtual_time_line(r["bcast"]["seconds"], "receivers N", "Bcast from one core (paper Fig. 8)", "#aa3377",
                              out, "fig8_bcast.png")


def power(r: dict, out: OutputDir) -> tuple[str, bytes]:
    apps = list(r["power"]["24_pairs"])
    vals = r["power"]["24_pairs"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.4))
    a.bar(apps, [vals[x]["average_w"] for x in apps], color="#228833")
    a.set_ylabel("chip power (W)")
    a.set_title("24 pairs, 0 hops (paper Fig. 10)")
    b.bar(apps, [vals[x]["edp_js"] for x in apps], color="#ccbb44")
    b.set_ylabel("energy-delay product (J·s)")
    b.set_yscale("log")
    b.set_title("EDP (paper Fig. 11)")
    return save_png(fig, out, "fig10_11_power_edp.png")


def logging(r: dict, out: OutputDir) -> tuple[str, bytes]:
    over = r["logging"]["overhead"]
    levels = list(next(iter(over.values())))
    fig, ax = plt.subplots(figsize=(6, 3.4))
    width = 0.8 / len(over)
    for i, (app, o) in enumerate(over.items()):
        ax.bar([k + i * width for k in range(len(levels))], [o[lv] * 100 for lv in levels], width, label=app)
    ax.set_xticks([k + width / 2 for k in range(len(levels))], levels)
    ax.set_ylabel("execution-time overhead (%)")
    ax.set_title("Logging overhead per level (paper Figs. 2-3)")
    ax.axhline(0, color="#555", lw=0.8)
    ax.legend()
    return save_png(fig, out, "fig2_3_logging.png")


DRAW = {"hops": hops, "pairs": pairs, "bcast": bcast, "power": power, "logging": logging}


def draw(results: dict, out: OutputDir) -> list[dict]:
    figures = []
    for name in results["experiments"]:
        file, png = DRAW[name](results, out)
        figures.append({"title": file, "file": file, "data": base64.b64encode(png).decode()})
    return figures


def page(results: dict, rows: list, figures: list[dict], out: OutputDir) -> Path:
    return out.write("index.html", render("reproduce.html.j2", results=results, rows=rows, figures=figures))

"""`openscc report` and `openscc compare`: one self-contained HTML page (the
PNGs embedded) plus the PNG files, rendered with Jinja2."""
from __future__ import annotations

import base64
from pathlib import Path

import jinja2

from . import plots
from .files import OutputDir
from .jobdir import JobRun

_env = jinja2.Environment(loader=jinja2.PackageLoader("openscc", "templates"), autoescape=True)


def render(template: str, **context) -> str:
    return _env.get_template(template).render(**context)


def _facts(run: JobRun) -> list[tuple[str, str]]:
    job = run.job
    facts = [("program", " ".join([job["program"], *job["args"]])), ("UEs", str(job["nue"])),
             ("chip", job["chip"]), ("trace level", job["trace"]), ("model", job["model"]),
             ("host wall time", f"{job['host_seconds']:.3f} s")]
    if "msgs_sent" in run.ues[0]:
        facts.append(("messages", f"{sum(u.get('msgs_sent', 0) for u in run.ues)} "
                                  f"({sum(u.get('bytes_sent', 0) for u in run.ues)} bytes)"))
    if run.modeled:
        t = run.summary["chip_totals"]
        facts += [("virtual time", f"{t['seconds'] * 1e3:.4f} ms"), ("energy", f"{t['energy_j']:.4g} J"),
                  ("average power", f"{t['average_w']:.3f} W"), ("energy-delay product", f"{t['edp_js']:.4g} J·s"),
                  ("computation", job.get("computation", "-"))]
        if "measured_region" in run.summary:
            r = run.measured
            facts += [("measured region (first to last clock read)",
                       f"{r['seconds'] * 1e3:.4f} ms from {r['start_s'] * 1e3:.4f} ms"),
                      ("measured region: energy, average power", f"{r['energy_j']:.4g} J, {r['average_w']:.3f} W")]
    return facts


def _figures(run: JobRun, out: OutputDir) -> list[dict]:
    drawn = []
    if run.comm:
        drawn += [("Mesh traffic", plots.mesh_traffic), ("Communication matrix", plots.comm_matrix)]
    if run.size_bins:
        drawn.append(("Message sizes", plots.message_sizes))
    drawn.append(("Per-UE breakdown", plots.ue_breakdown))
    if run.power:
        drawn.append(("Power over virtual time", plots.power))
    figures = []
    for title, draw in drawn:
        name, png = draw(run, out)
        figures.append({"title": title, "file": name, "data": base64.b64encode(png).decode()})
    return figures


def write_report(run: JobRun, out: Path) -> Path:
    with OutputDir(out) as d:
        page = render("report.html.j2", run=run, facts=_facts(run), figures=_figures(run, d),
                      trace="trace" in run.summary["files"])
        return d.write("index.html", page)


def write_compare(a: JobRun, b: JobRun, out: Path) -> Path:
    rows = []
    fa, fb = dict(_facts(a)), dict(_facts(b))
    for key in dict.fromkeys([*fa, *fb]):
        rows.append((key, fa.get(key, "-"), fb.get(key, "-")))
    with OutputDir(out) as d:
        figs = []
        for side, run in (("a", a), ("b", b)):
            with d.subdir(side) as sub:
                figs.append(_figures(run, sub))
        page = render("compare.html.j2", a=a, b=b, rows=rows, figures=list(zip(*_pad(figs))))
        return d.write("index.html", page)


def _pad(figs: list[list[dict]]) -> list[list[dict | None]]:
    n = max(len(f) for f in figs)
    return [f + [None] * (n - len(f)) for f in figs]

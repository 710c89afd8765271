"""`openscc report` and `openscc compare`: one self-contained HTML page (the
PNGs embedded) plus the PNG files, rendered with Jinja2."""
from __future__ import annotations

import base64
from pathlib import Path

import jinja2

from . import plots
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
        facts.append(("messages", f"{sum(u['msgs_sent'] for u in run.ues)} "
                                  f"({sum(u['bytes_sent'] for u in run.ues)} bytes)"))
    if run.modeled:
        t = run.summary["chip_totals"]
        facts += [("virtual time", f"{t['seconds'] * 1e3:.4f} ms"), ("energy", f"{t['energy_j']:.4g} J"),
                  ("average power", f"{t['average_w']:.3f} W"), ("energy-delay product", f"{t['edp_js']:.4g} J·s"),
                  ("computation", job.get("computation", "-"))]
    return facts


def _figures(run: JobRun, out: Path) -> list[dict]:
    drawn = []
    if run.comm:
        drawn += [("Mesh traffic", plots.mesh_traffic), ("Communication matrix", plots.comm_matrix)]
    if run.sizes:
        drawn.append(("Message sizes", plots.message_sizes))
    drawn.append(("Per-UE breakdown", plots.ue_breakdown))
    if run.power:
        drawn.append(("Power over virtual time", plots.power))
    figures = []
    for title, draw in drawn:
        name = draw(run, out)
        data = base64.b64encode((out / name).read_bytes()).decode()
        figures.append({"title": title, "file": name, "data": data})
    return figures


def write_report(run: JobRun, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    page = render("report.html.j2", run=run, facts=_facts(run), figures=_figures(run, out),
                  trace="trace" in run.summary.get("files", {}))
    index = out / "index.html"
    index.write_text(page)
    return index


def write_compare(a: JobRun, b: JobRun, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    fa, fb = dict(_facts(a)), dict(_facts(b))
    for key in dict.fromkeys([*fa, *fb]):
        rows.append((key, fa.get(key, "-"), fb.get(key, "-")))
    figs = []
    for side, run in (("a", a), ("b", b)):
        sub = out / side
        sub.mkdir(exist_ok=True)
        figs.append(_figures(run, sub))
    page = render("compare.html.j2", a=a, b=b, rows=rows, figures=list(zip(*_pad(figs))))
    index = out / "index.html"
    index.write_text(page)
    return index


def _pad(figs: list[list[dict]]) -> list[list[dict | None]]:
    n = max(len(f) for f in figs)
    return [f + [None] * (n - len(f)) for f in figs]

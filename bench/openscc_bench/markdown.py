"""The parts of a results page (foundation.md, ircce.md) that both groups share."""
from __future__ import annotations

from typing import Callable

from .formatting import fmt


def page_start(title: str, doc: dict) -> list[str]:
    """The title and the sentence naming the command, the date and the host."""
    h = doc["host"]
    return [f"# {title}", "",
            f"Produced by `{doc['command']}` (run from the repository root) on "
            f"{h.get('date')}: {h.get('nproc')} CPUs ({h.get('cpu_model')}), "
            f"{h.get('os')}, kernel {h.get('kernel')}, MPICH {h.get('mpich_version')}"
            f"{' (' + h['mpich_device'] + ')' if h.get('mpich_device') else ''}, "
            f"Open MPI {h.get('openmpi_version')}."]


def medians_sentence(c: dict) -> str:
    """What every cell is, from the run's config (repeats, time box, iterations)."""
    return (f"Every cell is the **median of {c['repeat']} run{'s' if c['repeat'] != 1 else ''}**"
            f"{' (quick smoke run: not representative)' if c['quick'] else ''}; "
            f"each run's value is the mean of a time-boxed loop (~{c['time_box_s']:g} s, "
            f">= {c['min_iters']} iterations).")


def page_end(doc: dict, slot_title: Callable[[str], str]) -> list[str]:
    """The targets, then every distinct error of every measured slot
    (named by slot_title of its implementation or column)."""
    lines = ["", "## Targets", ""]
    for tg in doc["targets"]:
        unit = tg["unit"]
        v = fmt(tg["openscc"], unit) if tg["openscc"] is not None else "—"
        ref = fmt(tg["reference"], unit) if tg["reference"] is not None else "—"
        u = " µs" if unit == "us" else ""
        v += u if tg["openscc"] is not None else ""
        ref += u if tg["reference"] is not None else ""
        lines.append(f"- {tg['target']}: **{tg['status']}** (OpenSCC {v}; "
                     f"{tg['reference_desc']}: {ref})")
    return lines + error_lines(doc, slot_title)


def error_lines(doc: dict, slot_title: Callable[[str], str]) -> list[str]:
    """Every distinct error of every measured slot, under "## Errors" (nothing when none)."""
    lines = []
    errs = []
    for t in doc["tests"]:
        for key, r in t["results"].items():
            if r["status"] == "skipped":
                continue
            for e in sorted({rep["error"] for rep in r["repeats"] if "error" in rep}):
                errs.append(f"- {t['id']} / {slot_title(key)}: {e}")
    if errs:
        lines.append("")
        lines.append("## Errors")
        lines.append("")
        lines.extend(errs[:60])
        if len(errs) > 60:
            lines.append(f"- ... {len(errs) - 60} more in the JSON file")
    lines.append("")
    return lines

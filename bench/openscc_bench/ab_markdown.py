"""ab.md: the foundation rows of the current tree against the baseline revision (ab.py)."""
from __future__ import annotations

from .ab_instructions import verdict as instructions_verdict
from .formatting import fmt
from .markdown import error_lines, medians_sentence, page_start


def states_cell(states: dict[str, float]) -> str:
    """The per-host-state ratios of a row ("fast 1.01x, slow 0.99x"), or "—"."""
    return ", ".join(f"{state} {q:.3f}x" for state, q in states.items()) or "—"


def row_line(row: dict) -> str:
    unit = row["unit"]
    label = row["label"] + (" (µs)" if unit == "us" else " (s)")
    ratio = f"{row['ratio']:.3f}x" if row["ratio"] is not None else "—"
    noise = f"±{row['noise'] * 100:.1f} %" if row["noise"] is not None else "—"
    within = {True: "yes", False: "**no**", None: "—"}[row["within_noise"]]
    return (f"| {label} | {fmt(row['baseline'], unit)} | {fmt(row['current'], unit)} | {ratio} | "
            f"{noise} | {within} | {states_cell(row['states'])} |")


def ab_page(doc: dict) -> str:
    base = doc["config"]["baseline"]
    short = base["commit"][:12]
    lines = page_start("OpenSCC A/B benchmark: this tree against a baseline revision", doc)
    lines += ["",
              f"Baseline: `{base['revision']}` = {short}, exported with `git archive` and built with the "
              f"current build's settings ({', '.join(f'{k}={v!r}' for k, v in base['cmake'].items()) or 'CMake defaults'}). "
              "Both trees' `rccerun` ran the same benchmark programs (each compiled by its own tree's `rccecc`) "
              "alternately (current then baseline, reversed on every other repeat). " + medians_sentence(doc["config"]) +
              f" Total time of the group {doc['elapsed_s']:.0f} s.", "",
              f"**8 B half round trip: {doc['bound']['verdict']}.**", "",
              f"**Instructions of an 8 B round trip outside waiting (callgrind, UE 0 of "
              f"`bench/rcce/roundtrip_count.c`): {instructions_verdict(doc.get('instructions'))}.** "
              "Wall time on this shared host moves by the noise below; instructions are the part of the "
              "latency the code decides. UE 1 runs natively; what UE 0 spends inside `hw_wait_cond` waiting "
              "for it is left out.", "",
              f"| Test | baseline {short} | current | current / baseline | noise (A/A) | within noise "
              "| by host state |",
              "|---|---:|---:|---:|---:|---|---|"]
    lines += [row_line(r) for r in doc["rows"]]
    lines += ["",
              "Noise (A/A) is each tree measured against itself in the same run: how far apart the median of "
              "its odd-numbered runs and the median of its even-numbered runs are (larger / smaller - 1), the "
              "larger of the two trees; a row is within noise when current / baseline (or its inverse) "
              "exceeds 1 by no more than that. By host state: current / baseline of the runs "
              "whose cache-line probes before and after agreed on one host state (host_state.py), for each state "
              "both trees ran at least twice."]
    lines += error_lines(doc, str)
    return "\n".join(lines)

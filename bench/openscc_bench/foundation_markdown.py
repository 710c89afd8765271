"""foundation.md: the summary table of the foundation group and its targets."""
from __future__ import annotations

from .formatting import cell, ratio
from .foundation import PP_SIZES
from .implementations import IMPL_TITLE, best_peer
from .markdown import medians_sentence, page_end, page_start


def foundation_page(doc: dict) -> str:
    big = doc["config"]["ues_large"]
    tests = {t["id"]: t for t in doc["tests"]}
    order = [f"pingpong_{s}" for s in PP_SIZES] + \
        ["barrier_2", f"barrier_{big}", "allreduce_2", f"allreduce_{big}", f"launch_{big}"]
    lines = page_start("OpenSCC foundation benchmark", doc)
    lines.append("")
    lines.append(medians_sentence(doc["config"]) +
                 " Latencies in microseconds; "
                 f"launch-to-finish is the wall clock of the whole launcher command. "
                 f"Total harness time {doc['elapsed_s']:.0f} s.")
    lines.append("")
    lines.append("| Test | OpenSCC | MPICH | Open MPI | cache-line floor | OpenSCC / best MPI |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for tid in order:
        t = tests.get(tid)
        if t is None:
            continue
        r = t["results"]
        unit = t["unit"]
        label = t["label"] + (" (µs)" if unit == "us" else " (s)")
        floor = cell(r.get("floor"), unit) if t["floor"] else ""
        o = r.get("openscc")
        _, best = best_peer(r)
        q = ratio(o["median"], best) if o and o["status"] == "ok" and best else "—"
        lines.append(f"| {label} | {cell(o, unit)} | {cell(r.get('mpich'), unit)} | "
                     f"{cell(r.get('openmpi'), unit)} | {floor} | {q} |")
    lines.append("")
    lines.append("Ratio = OpenSCC median / the lower of the MPICH and Open MPI medians. "
                 "The floor is two forked processes ping-ponging one 64-byte cache line with "
                 "C11 atomics (busy-wait, pinned to two CPUs when possible; each run reports its "
                 "median of 10 sub-loops); the same number serves the 0 B and 8 B rows. RCCE's 0-byte RCCE_send/RCCE_recv return without synchronising, "
                 "so OpenSCC's 0 B row is call overhead, not a message.")
    lines.extend(page_end(doc, IMPL_TITLE.__getitem__))
    return "\n".join(lines)

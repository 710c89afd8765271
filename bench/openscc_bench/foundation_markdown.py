"""foundation.md: the summary table of the foundation group and its targets."""
from __future__ import annotations

from .formatting import cell, fmt, ratio
from .foundation import PP_SIZES
from .host_state import MIN_STATE_RUNS, state_medians, threshold
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
    lines.extend(by_host_state(tests, order))
    lines.extend(page_end(doc, IMPL_TITLE.__getitem__))
    return "\n".join(lines)


def by_host_state(tests: dict, order: list[str]) -> list[str]:
    """The 2-process rows again, each implementation's runs split by the host state its probe
    found (host_state.py), with the ratio to the faster MPI peer in the same state."""
    cut = threshold(list(tests.values()))
    if cut is None:
        return []
    lines = ["", "## By host state", "",
             f"Before and after every 2-process run a short cache-line ping-pong probed the host: below "
             f"{cut:.3f} µs it was in its fast state (both vCPUs on one core), above in its slow state. Medians "
             "of the runs whose two probes agree (number of runs in brackets); ratio and verdict against the "
             f"faster MPI peer in the same state, given when each side has at least {MIN_STATE_RUNS} runs "
             "there.", "",
             "| Test | state | OpenSCC | MPICH | Open MPI | OpenSCC / best MPI | <= best MPI |",
             "|---|---|---:|---:|---:|---:|---|"]
    for tid in order:
        t = tests.get(tid)
        if t is None or t["ues"] != 2 or t["unit"] != "us" or tid == "pingpong_0":
            continue
        per = {impl: state_medians(slot, cut) for impl, slot in t["results"].items()
               if impl != "floor" and slot["status"] != "skipped"}
        for state in ("fast", "slow"):
            cells = {impl: per[impl][state] if impl in per else (None, 0) for impl in ("openscc", "mpich", "openmpi")}
            peers = [v for impl, (v, n) in cells.items() if impl != "openscc" and n >= MIN_STATE_RUNS]
            o, n_o = cells["openscc"]
            q, ok = (ratio(o, min(peers)), "yes" if o <= min(peers) else "no") if n_o >= MIN_STATE_RUNS and peers \
                else ("—", "—")
            shown = " | ".join(f"{fmt(v, 'us')} ({n})" for v, n in cells.values())
            lines.append(f"| {t['label']} (µs) | {state} | {shown} | {q} | {ok} |")
    return lines

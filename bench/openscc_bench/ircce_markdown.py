"""ircce.md: one table per section of the iRCCE group, then its targets."""
from __future__ import annotations

from pathlib import Path

from .formatting import cell, ratio
from .implementations import best_peer
from .ircce import IRCCE_BURST, IRCCE_SECTIONS
from .markdown import medians_sentence, page_end, page_start
from .paths import ROOT


def ratio_cell(t: dict, sec: dict) -> str:
    """The section's ratio column: numerator column / denominator column (or the best MPI peer)."""
    num, den, _ = sec["ratio"]
    a = t["results"].get(num)
    if not a or a["status"] != "ok":
        return "—"
    if den == "best_mpi":
        _, b = best_peer(t["results"])
    else:
        r = t["results"].get(den)
        b = r["median"] if r and r["status"] == "ok" else None
    return ratio(a["median"], b) if b else "—"


def ircce_page(doc: dict) -> str:
    c = doc["config"]
    rccerun = Path(c["rcce_bin"]) / "rccerun"
    try:
        rccerun = rccerun.relative_to(ROOT)
    except ValueError:
        pass
    lines = page_start("OpenSCC iRCCE benchmark", doc)
    lines.append("")
    lines.append(medians_sentence(c) +
                 " All runs use 2 UEs (ranks); OpenSCC runs "
                 f"`{rccerun} -nue 2` with the rccerun options named in each table. Latencies in "
                 f"microseconds. Total harness time {doc['elapsed_s']:.0f} s (all groups of "
                 f"the run).")
    tests = {t["id"]: t for t in doc["tests"]}
    for sec in IRCCE_SECTIONS:
        rows = [tests[f"{sec['key']}_{s}"] for s in sec["sizes"] if f"{sec['key']}_{s}" in tests]
        if not rows:
            continue
        lines.append("")
        lines.append(f"## {sec['title']}")
        lines.append("")
        lines.append("| Size | " + " | ".join(t for _, t in sec["columns"]) + f" | {sec['ratio'][2]} |")
        lines.append("|---|" + "---:|" * (len(sec["columns"]) + 1))
        for t in rows:
            cells = [cell(t["results"].get(col), "us") if col in t["results"] else ""
                     for col, _ in sec["columns"]]
            lines.append(f"| {t['label']} | " + " | ".join(cells) + f" | {ratio_cell(t, sec)} |")
    lines.append("")
    lines.append("Pingpong and flag/scheme rows: half round trip between UE 0 and UE 1. Ping-ping: "
                 "both UEs post a receive and a send of the size at once and wait for both "
                 "(iRCCE_irecv + iRCCE_isend + iRCCE_wait_all; MPI_Irecv + MPI_Isend + "
                 "MPI_Waitall). Bursts: UE 0 sends "
                 f"{IRCCE_BURST} messages to UE 1, either one blocking RCCE_send after another "
                 f"(UE 1: RCCE_recv) or as {IRCCE_BURST} iRCCE_isend requests completed by "
                 f"iRCCE_wait_all (UE 1: {IRCCE_BURST} iRCCE_irecv); time per message. "
                 "Every message's first and last byte are checked.")
    lines.extend(page_end(doc, str))
    return "\n".join(lines)

#!/usr/bin/env python3
"""make validate: model-mode micro-experiments compared with published SCC figures.

Every row runs programs under `rccerun --model scc` and compares what the model
predicts with a figure of docs/references.md (docs/model.md, "Validation").
The programs are counted builds (rccecc --model-build): their computation is
charged per basic block, so every run predicts the same times.
Every row says what it is: a fit point (a model constant was set from that very
figure, so the row only shows the fit still holds) or a prediction (nothing was
fitted to it).  A prediction outside its tolerance is either a known gap, whose
reason the row states, or a failure.
Prints the table and writes validate/results/validation.{json,md}.  Exit status
1 when a fit point no longer holds or a prediction fails without a stated gap.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from openscc.placement import core_of, three_hop_pairs  # noqa: E402  (stdlib-only module)
TILE_MHZ = 1600 / 3  # the default tile clock of every run below (ref 1 "clocks")
RDTSC_CYCLES = 14    # ref 3: the read latencies include 14 cycles of RDTSC overhead

# ref 3: one 32-bit word read from the MPB of tile (x, y) by core 0, in core cycles.
MPB_READ = [[20, 63, 69, 72, 78, 84], [63, 69, 72, 78, 84, 90], [69, 72, 78, 84, 90, 96], [72, 78, 84, 90, 96, 102]]
# ref 3: one 32-byte line written to the MPB of the own tile / one hop away / tile (5,3).
MPB_WRITE = {(0, 0): 39, (1, 0): 84, (5, 3): 119}
# ref 3: one uncached word of shared DDR3 via MC0..MC3, read by core 0 (RDTSC included).
DDR_READ = [97, 121, 105, 134]
# ref 3: one uncached 32-byte line of shared DDR3 via MC0..MC3 (RDTSC included).
DDR_LINE = [779, 972, 843, 1069]
MC_PAGE = 16 << 20  # the scc chip's lat_mc_page_bytes


@dataclass
class Row:
    figure: str
    source: str
    published: str
    predicted: str
    error: float | None      # relative error of the worst case, or None
    tolerance: str
    passed: bool
    basis: str = "prediction"  # or "fit": a constant was set from this figure (docs/model.md "Calibration")
    gap: str | None = None     # why a prediction misses its tolerance, when that is known and accepted
    detail: dict = field(default_factory=dict)

    def verdict(self) -> str:
        if self.basis == "fit":
            return "fit point, holds" if self.passed else "**fit point, broken**"
        if self.passed:
            return "yes"
        return f"known gap: {self.gap}" if self.gap else "**NO**"

    def failed(self) -> bool:
        return not self.passed and (self.basis == "fit" or not self.gap)


class Runner:
    def __init__(self, build: pathlib.Path):
        self.rccerun = build / "bin" / "rccerun"
        self.apps = build / "model-apps"
        self.programs = build / "validate"

    def measured(self, nue: int, program: pathlib.Path, args=(), cores=None, opts=()) -> dict:
        """One model-mode job's measured region (its first to last clock read, as the papers timed
        their loops; docs/model.md "Measured region"): seconds, energy_j, average_w, ..."""
        summary = self.run(nue, program, args, cores, opts)[1]
        return summary.get("measured_region", summary["chip_totals"])

    def run(self, nue: int, program: pathlib.Path, args=(), cores=None, opts=()):
        """One model-mode job; returns (stdout, summary.json as a dict)."""
        with tempfile.TemporaryDirectory() as job_dir:
            cmd = [str(self.rccerun), "-nue", str(nue), "--model", "scc", "--job-dir", job_dir, *opts]
            if cores is not None:
                cmd += ["--cores", ",".join(map(str, cores))]
            cmd += [str(program), *map(str, args)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
            summary = json.loads(pathlib.Path(job_dir, "summary.json").read_text())
        return p.stdout, summary


def rel_error(predicted: float, published: float) -> float:
    return abs(predicted - published) / published


def mpb_rows(r: Runner) -> list[Row]:
    # UE 0 on core 0; the own tile through core 1, every other tile through its core 0.
    targets = [(0, 0, core_of(0, 0, 1))] + [(x, y, core_of(x, y)) for y in range(4) for x in range(6) if (x, y) != (0, 0)]
    cores = [0] + [c for _, _, c in targets]
    out, _ = r.run(len(cores), r.programs / "mpb_access", [200], cores)
    got = {int(m[1]): (float(m[2]), float(m[3])) for m in re.finditer(r"ue (\d+) read_us (\S+) write_us (\S+)", out)}
    reads, writes = {}, {}
    for ue, (x, y, _) in enumerate(targets, start=1):
        read_us, write_us = got[ue]
        reads[(x, y)] = read_us * TILE_MHZ + RDTSC_CYCLES
        writes[(x, y)] = write_us * TILE_MHZ
    read_err = {k: rel_error(v, MPB_READ[k[1]][k[0]]) for k, v in reads.items()}
    worst = max(read_err, key=read_err.get)
    write_err = {k: rel_error(writes[k], v) for k, v in MPB_WRITE.items()}
    wworst = max(write_err, key=write_err.get)
    return [
        Row("MPB word read from core 0, all 24 tiles (cycles)", "ref 3 (TN005; fit of lat_mpb_read_*)", "20 .. 102",
            f"{min(reads.values()):.1f} .. {max(reads.values()):.1f}", read_err[worst], "±5 %",
            read_err[worst] <= 0.05, "fit",
            detail={f"tile {x},{y}": {"published": MPB_READ[y][x], "predicted": round(v, 2)} for (x, y), v in reads.items()}),
        Row("MPB line write: own tile / 1 hop / tile (5,3) (cycles)", "ref 3 (TN005; fit of lat_mpb_write_*)",
            "39 / 84 / 119", " / ".join(f"{writes[k]:.1f}" for k in MPB_WRITE), write_err[wworst], "±5 %",
            write_err[wworst] <= 0.05, "fit"),
    ]


def pingpong_rows(r: Runner) -> list[Row]:
    rows = []
    for flags, published in (("normal", 2.4), ("tagged", 1.3)):
        out, _ = r.run(2, r.programs / "ping_latency", [8, 2000], [0, 1], ["--scheme", "rplg", "--flags", flags])
        got = float(re.search(r"half_rtt_us (\S+)", out)[1])
        err = rel_error(got, published)
        rows.append(Row(f"iRCCE ping-pong, remote-put/local-get, {flags} flags, 8 B, cores 0-1 (us)",
                        "ref 4, [SCC-2BOARD] Table I (fit of sw_call/sw_step)", f"{published}", f"{got:.3f}", err,
                        "±15 %", err <= 0.15, "fit"))
    return rows


# [SCC-2BOARD] Table I's on-die probe-flag rows, and sec. IV-A's "LPRG performs slightly better than RPLG" on
# one die; predictions.  OpenSCC has no probe flags of their own: the per-sender sent flags serve (docs/ircce.md
# "Differences from iRCCE"), so what probe flags were for -- a receiver learning who sent, any-source receives --
# costs what a directed receive does.
PROBE_FLAGS_GAP = ("OpenSCC's per-sender sent flags serve as probe flags (docs/ircce.md), so an any-source receive "
                   "costs what a directed one does; iRCCE's probe flags were a second flag per message, written by the "
                   "sender and read by the receiver's progress engine")
LPRG_RPLG_GAP = ("OpenSCC's remote-put/local-get is request, grant, data and acknowledgement (the probe-flag "
                 "shape) with sw_call/sw_step fitted to Table I's plain RPLG figures, while local-put/remote-get is "
                 "RCCE's announce-with-data; the paper's plain RPLG protocol is not printed (docs/cluster.md)")


def probe_flag_rows(r: Runner) -> list[Row]:
    def half_rtt(scheme: str, flags: str, *extra: str) -> float:
        out, _ = r.run(2, r.programs / "ping_latency", [8, 2000, *extra], [0, 1], ["--scheme", scheme, "--flags", flags])
        return float(re.search(r"half_rtt_us (\S+)", out)[1])

    rows = []
    for flags, published in (("normal", 2.9), ("tagged", 2.1)):
        got = half_rtt("rplg", flags, "any")
        err = rel_error(got, published)
        rows.append(Row(f"iRCCE ping-pong with probe flags (any-source receives), remote-put/local-get, {flags} flags, "
                        "8 B, cores 0-1 (us)", "[SCC-2BOARD] Table I (on-die)", f"{published}", f"{got:.3f}", err,
                        "±15 %", err <= 0.15, gap=PROBE_FLAGS_GAP))
    lprg, rplg = half_rtt("lprg", "normal"), half_rtt("rplg", "normal")
    rows.append(Row("iRCCE ping-pong on one die: local-put/remote-get slightly faster than remote-put/local-get, "
                    "normal flags, 8 B (LPRG / RPLG time)", "[SCC-2BOARD] sec. IV-A", "slightly below 1",
                    f"{lprg / rplg:.2f} ({lprg:.3f} / {rplg:.3f} us)", None, "0.85 .. 1", 0.85 <= lprg / rplg < 1,
                    gap=LPRG_RPLG_GAP))
    return rows


# [SCC-2BOARD] between two boards (rccerun --boards 2, docs/cluster.md): Fig. 3's throughputs, the sources of
# the link's constants, and Table I's ping-pong latencies, predictions.
BOARD_THROUGHPUT = (("lprg", 1.0, "at most about 1 MB/s: remote reads (fit of lat_board_read_ns)"),
                    ("rplg", 16.0, "up to 16 MB/s: pipelined remote writes (fit of lat_board_write_ack_ns)"))
BOARD_LATENCY = (("normal", 32.2,
                  "OpenSCC's remote-put/local-get is request, grant, data and acknowledgement, the shape of the "
                  "paper's probe-flag row (72.4 us, 24 % above this); three flags cross the link per half round "
                  "trip at lat_board_write_ns (16 us, from Fig. 3's throughputs and sec. IV's read = 2 x write); the "
                  "paper's plain protocol is not printed (docs/cluster.md)"),
                 ("tagged", 26.4,
                  "one flag crosses the link per half round trip at lat_board_write_ns (16 us); the paper's 26.4 us "
                  "would take about 23 us per crossing, against Fig. 3's throughputs (docs/cluster.md)"))


def board_rows(r: Runner) -> list[Row]:
    opts, cores = ["--boards", "2"], [0, 48]
    rows = []
    for scheme, published, what in BOARD_THROUGHPUT:
        out, _ = r.run(2, r.programs / "ping_latency", [65536, 5], cores, ["--scheme", scheme, "--flags", "normal", *opts])
        mbps = 65536 / float(re.search(r"half_rtt_us (\S+)", out)[1])  # bytes per microsecond
        err = rel_error(mbps, published)
        rows.append(Row(f"Ping-pong throughput between two boards, {scheme.upper()}, 64 KiB, cores 0 and 48 (MB/s)",
                        f"[SCC-2BOARD] Fig. 3: {what}", f"{published:g}", f"{mbps:.2f}", err, "±15 %", err <= 0.15,
                        "fit"))
    for flags, published, gap in BOARD_LATENCY:
        out, _ = r.run(2, r.programs / "ping_latency", [8, 200], cores, ["--scheme", "rplg", "--flags", flags, *opts])
        got = float(re.search(r"half_rtt_us (\S+)", out)[1])
        err = rel_error(got, published)
        rows.append(Row(f"iRCCE ping-pong between two boards, remote-put/local-get, {flags} flags, 8 B, cores 0 and 48 "
                        "(us)", "[SCC-2BOARD] Table I (inter-board)", f"{published}", f"{got:.2f}", err, "±15 %",
                        err <= 0.15, gap=gap))
    return rows


def share_power_rows(r: Runner) -> list[Row]:
    watts = {}
    for nue in (2, 48):
        watts[nue] = r.measured(nue, r.apps / "share", [20, 256, "--pairs"])["average_w"]
    rows = []
    for nue, published in ((2, 31.616), (48, 50.768)):
        err = rel_error(watts[nue], published)
        rows.append(Row(f"Share power, {nue // 2} pair(s), 533/800/800 MHz (W)", "ref 4, [FURST-2011] (fit of the power model)",
                        f"{published}", f"{watts[nue]:.3f}", err, "±5 %", err <= 0.05, "fit"))
    return rows


def benchmark_power_row(r: Runner) -> Row:
    """[FURST-2011] Fig. 10 (no numbers in the text): at 24 pairs, 0 hops, Share (memory accesses,
    low IPC) draws less power than Shift and Stencil (higher IPC).  Predicted from what the model's
    cores do (executing, stalled, polling: docs/model.md "Power model"); only Share was fitted."""
    apps = {"share": [20, 1024, "--pairs"], "shift": [2000, 128, "--pairs"], "stencil": [32, 100, 8, "--pairs"],
            "pingpong": [65536, 20]}
    watts = {app: r.measured(48, r.apps / app, args)["average_w"] for app, args in apps.items()}
    return Row("Power at 24 pairs, 0 hops: Share below Shift and Stencil (W)", "[FURST-2011] Fig. 10",
               "Share lowest", " / ".join(f"{a} {w:.2f}" for a, w in watts.items()), None, "Share < Shift, Stencil",
               watts["share"] < min(watts["shift"], watts["stencil"]), detail={"watts": watts})


def stencil_hops_row(r: Runner) -> Row:
    """[FURST-2011] Fig. 5: one pair of Stencil at 0, 1, 2, 3 and 8 hops.

    The fit covers the pairs that talk over the mesh (1..8 hops); the pair on
    one tile (0 hops) uses the tile's own MPB, which ref 3 makes 43 cycles
    cheaper per read than one hop away -- eight times the cost of a further
    hop -- so it is checked to be the fastest instead (docs/model.md)."""
    partner = {0: 1, 1: 2, 2: 4, 3: 6, 8: 47}
    times = {hops: r.measured(2, r.apps / "stencil", [32, 200], [0, core])["seconds"]
             for hops, core in partner.items()}
    xs, ys = [h for h in times if h > 0], [t for h, t in times.items() if h > 0]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sxy / sxx
    ss_res = sum((y - (my + slope * (x - mx))) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else 0.0
    return Row("Stencil, one pair, time vs hop distance 1/2/3/8: linear fit R² (slope > 0; 0 hops fastest)",
               "[FURST-2011] Fig. 5 (linear trend)", "linear",
               f"R² {r2:.3f}, +{slope / times[0] * 100:.3f} %/hop, 0 hops {(times[1] / times[0] - 1) * 100:.2f} % faster",
               None, "R² ≥ 0.95", r2 >= 0.95 and slope > 0 and times[0] < times[1],
               detail={f"{h} hops": {"seconds": t} for h, t in times.items()})


def ddr_rows(r: Runner) -> list[Row]:
    """ref 3 (TN005): one uncached word, and one uncached line read as eight words, through each
    controller.  The word rows set lat_ddr_core; the line rows follow from one outstanding read (the
    core waits for each word) and the instructions of the reads, nothing fitted to them."""
    def cycles(words: int) -> dict[int, float]:
        out, _ = r.run(1, r.programs / "ddr_access", [MC_PAGE, len(DDR_READ), 200, words], opts=["--shm-size", str(4 * MC_PAGE)])
        return {int(m[1]): float(m[2]) * TILE_MHZ + RDTSC_CYCLES for m in re.finditer(r"mc (\d+) read_us (\S+)", out)}
    rows = []
    for words, published, basis, source in ((1, DDR_READ, "fit", "ref 3 (TN005; fit of lat_ddr_core)"),
                                            (8, DDR_LINE, "prediction", "ref 3 (TN005)")):
        got = cycles(words)
        errs = [rel_error(got[m], p) for m, p in enumerate(published)]
        rows.append(Row(f"DDR3 uncached {'word' if words == 1 else 'line'} read by core 0 via MC0 / MC1 / MC2 / MC3 (cycles)", source,
                        " / ".join(map(str, published)), " / ".join(f"{got[m]:.1f}" for m in range(len(published))),
                        max(errs), "±10 %", max(errs) <= 0.10, basis))
    return rows


def contention_rows(r: Runner) -> list[Row]:
    """[FURST-2011] Figs. 6-7: 24 pairs at 3 hops against one pair."""
    apps = {"share": [20, 1024, "--pairs"], "shift": [2000, 128, "--pairs"], "stencil": [32, 100, 8, "--pairs"]}
    ratio = {}
    for app, args in apps.items():
        t = {n: r.measured(2 * n, r.apps / app, args, three_hop_pairs(n))["seconds"] for n in (1, 24)}
        ratio[app] = t[24] / t[1]
    return [
        Row("Share (shared-memory bound), 3 hops: 24 pairs vs 1 pair, time ratio", "[FURST-2011] Figs. 6-7 (slows down)",
            "> 1", f"{ratio['share']:.3f}", None, "≥ 1.10", ratio["share"] >= 1.10),
        Row("Shift, 3 hops: 24 pairs vs 1 pair, time ratio", "[FURST-2011] Fig. 7 (no slowdown)", "≈ 1",
            f"{ratio['shift']:.3f}", None, "≤ 1.05", ratio["shift"] <= 1.05),
        Row("Stencil, 3 hops: 24 pairs vs 1 pair, time ratio", "[FURST-2011] Fig. 7 (no slowdown)", "≈ 1",
            f"{ratio['stencil']:.3f}", None, "≤ 1.05", ratio["stencil"] <= 1.05),
    ]


# Elements each kernel of validate/programs/divider_kernels.c works on (DOT_N, MV_ROWS x MV_COLS, MM_N^3).
DIVIDER_ELEMENTS = {"dot": 65536, "matvec": 128 * 256, "matmat": 160 ** 3}


def divider_rows(r: Runner) -> list[Row]:
    """[PERFPOWER-2011]: the kernels at frequency dividers 2..16
    with the paper's voltage table (validate/seed000.chip).  Each figure is
    the kernel's alone: a set-up-only run at the same divider is subtracted.
    Energy is the core's dynamic energy, as in the paper's P = C V^2 f."""
    chip = str(ROOT / "validate" / "seed000.chip")

    def kernel(name: str, div: int) -> dict:
        opts = ["--chip", chip, "-clock", f"{1.6 / div:.6f}"]
        ue = r.run(1, r.programs / "divider_kernels", [name], opts=opts)[1]["ues"][0]
        base = r.run(1, r.programs / "divider_kernels", ["none"], opts=opts)[1]["ues"][0]
        return {key: ue[key] - base[key] for key in ("seconds", "compute_s", "comm_s", "dynamic_j")}

    dividers = range(2, 17)
    mm = {d: kernel("matmat", d) for d in dividers}
    mem = {(k, d): kernel(k, d) for k in ("dot", "matvec") for d in (2, 5, 16)}
    memory_bound = all(v["comm_s"] > v["compute_s"] for v in mem.values())
    compute_bound = all(v["compute_s"] > v["comm_s"] for v in mm.values())
    least = min(v["dynamic_j"] for v in mm.values())
    best = min(d for d in dividers if mm[d]["dynamic_j"] <= least * 1.01)  # ties: the fastest
    gain = mem[("dot", 5)]["dynamic_j"] / mem[("dot", 16)]["dynamic_j"] - 1
    slow = mem[("dot", 16)]["seconds"] / mem[("dot", 5)]["seconds"]
    worst_mem = max(v["compute_s"] / v["comm_s"] for v in mem.values())
    # The paper's loop bodies (MAQAO, sec. III): dot 36 and mat-vec 64 cycles per 4 elements, mat-mat
    # 43 per element; the model's computation per element at divider 2 (800 MHz), blocks priced by
    # content (docs/model.md "Computation"), nothing fitted to them.
    bodies = {"dot": (mem[("dot", 2)], DIVIDER_ELEMENTS["dot"], 36 / 4),
              "matvec": (mem[("matvec", 2)], DIVIDER_ELEMENTS["matvec"], 64 / 4),
              "matmat": (mm[2], DIVIDER_ELEMENTS["matmat"], 43.0)}
    per_element = {k: v["compute_s"] * 800e6 / n for k, (v, n, _) in bodies.items()}
    body_err = max(rel_error(per_element[k], body) for k, (_, _, body) in bodies.items())
    return [
        Row("Loop body cycles per element, computation only: dot / mat-vec / mat-mat (cycles)",
            "[PERFPOWER-2011] sec. III-A..C", "9 / 16 / 43",
            " / ".join(f"{per_element[k]:.1f}" for k in bodies), body_err, "±15 %", body_err <= 0.15,
            gap="the model prices GCC's x86-64 code of our C kernels on the P54C, the paper MAQAO-timed its "
                "own 32-bit binary, whose mat-vec body costs 28 cycles more than its dot body for the same "
                "operations (docs/model.md)"),
        Row("Dot product and mat-vec from DRAM memory bound (DDR3 time > computation, dividers 2/5/16)",
            "[PERFPOWER-2011] Figs. 1-2", "memory bound", f"computation ≤ {worst_mem:.2f} x DDR3 time",
            None, "all memory bound", memory_bound),
        Row("Mat-mat 160 x 160 compute bound (dividers 2..16)", "[PERFPOWER-2011] Fig. 3", "compute bound",
            "compute bound" if compute_bound else "not compute bound", None, "all compute bound", compute_bound),
        Row("Mat-mat: most energy-efficient divider (core energy, ties within 1 % to the fastest)",
            "[PERFPOWER-2011] sec. III-D", "5", f"{best}", None, "equal", best == 5),
        Row("Dot product: energy efficiency from divider 5 to 16 (time ratio)", "[PERFPOWER-2011] sec. III-D",
            "≈ +25 % (x 2.33, the paper's model)", f"+{gain * 100:.0f} % (x {slow:.2f})", None, "gain > 0", gain > 0),
    ]


# [SVM-2012] Table 1 (ref 4 "SVM overheads"), us at 533 MHz: strong, lazy release.
SVM_TABLE1 = {"alloc_4mb": (741.0, 741.0), "page_alloc": (112.301, 112.296), "page_map": (10.198, 2.418),
              "page_permission": (8.990, None)}


def svm_rows(r: Runner) -> list[Row]:
    """[SVM-2012] Table 1 (svm_table1 on cores 0 and 30).  Three rows fit the
    kernel-path constants (time_svm_*); the strong model's two rows are
    predicted from the mailbox and interrupt costs."""
    out, _ = r.run(2, r.apps / "svm_table1", cores=[0, 30])
    got = {(m, row): float(us) for m, row, us in re.findall(r"table1: model=(\w+) row=(\w+) us=([\d.]+)", out)}
    rows = []
    for key, label, model, fitted in (("alloc_4mb", "allocation of 4 MByte", "lazy", True),
                                      ("page_alloc", "physical allocation of a page frame", "lazy", True),
                                      ("page_map", "mapping of a page frame, lazy release", "lazy", True),
                                      ("page_map", "mapping of a page frame, strong", "strong", False),
                                      ("page_permission", "retrieve the access permission, strong", "strong", False)):
        published = SVM_TABLE1[key][0 if model == "strong" else 1]
        pred = got[(model, key)]
        err = rel_error(pred, published)
        if fitted:
            rows.append(Row(f"SVM: {label} (us)", "ref 4, [SVM-2012] Table 1 (fit of time_svm_*)", f"{published}",
                            f"{pred:.3f}", err, "±5 %", err <= 0.05, "fit"))
        else:  # a prediction: the handover is mails and interrupts (lat_interrupt_cycles is TN005's lower bound)
            rows.append(Row(f"SVM: {label} (us)", "ref 4, [SVM-2012] Table 1", f"{published}", f"{pred:.3f}",
                            err, "more than lazy mapping", pred > got[("lazy", "page_map")]))
    return rows


def mailbox_rows(r: Runner) -> list[Row]:
    """[SVM-2012] Figs. 6-7: mailbox ping-pong (figures lost in the text: trends only)."""
    def latency(nue, cores, mode):
        out, _ = r.run(nue, r.apps / "mailbox_pingpong", [500, 20], cores, ["--mailbox", mode])
        return float(re.search(r"latency_us=([\d.]+)", out)[1])
    hops = {h: latency(2, [0, c], "irq") for h, c in ((0, 1), (1, 2), (3, 6), (5, 30), (8, 47))}
    poll5 = latency(2, [0, 30], "poll")
    # Fig. 7: UE 0 and UE 1 on cores 0 and 1, with 0 or 46 more active cores
    irq2, poll2, irq48, poll48 = (latency(n, None, m) for n, m in ((2, "irq"), (2, "poll"), (48, "irq"), (48, "poll")))
    xs = sorted(h for h in hops if h > 0)
    mx, my = statistics.mean(xs), statistics.mean(hops[h] for h in xs)
    slope = sum((h - mx) * (hops[h] - my) for h in xs) / sum((h - mx) ** 2 for h in xs)
    ss_res = sum((hops[h] - (my + slope * (h - mx))) ** 2 for h in xs)
    ss_tot = sum((hops[h] - my) ** 2 for h in xs)
    r2 = 1 - ss_res / ss_tot if ss_tot else 1.0
    return [
        Row("Mailbox latency vs hops (doorbells): linear, low gradient", "[SVM-2012] Fig. 6",
            "linear, small slope", f"R² {r2:.3f}, {slope * 1000:.0f} ns/hop on {hops[1]:.2f} us", None,
            "R² ≥ 0.95, slope < 5 %/hop", r2 >= 0.95 and 0 < slope < 0.05 * hops[1], detail={"hops_us": hops}),
        Row("Mailbox latency, 2 active cores: polling below doorbells", "[SVM-2012] Fig. 6",
            "poll < irq", f"poll {poll5:.2f} us, irq {hops[5]:.2f} us (5 hops)", None, "poll < irq", poll5 < hops[5]),
        Row("Mailbox latency, 48 active cores: polling grows, doorbells flat", "[SVM-2012] Fig. 7",
            "poll rises, irq ≈ constant", f"poll {poll48:.2f} us (2 cores: {poll2:.2f}), irq {irq48:.2f} us (2 cores: {irq2:.2f})", None,
            "poll48 > 2 x poll2, irq within 10 %", poll48 > 2 * poll2 and rel_error(irq48, irq2) <= 0.10),
    ]


def laplace_rows(r: Runner) -> list[Row]:
    """[SVM-2012] Fig. 9 (trends): Laplace 1024 x 512, 8 UEs, 10 iterations.  The strong model's
    virtual time varies from run to run: how often neighbours take a boundary page from each other
    depends on the order they touch it on the host, so it is the median of 3 runs."""
    def time_s(variant):
        out, _ = r.run(8, r.apps / "laplace", [variant, 10])
        return float(re.search(r"time_s=([\d.]+)", out)[1])
    strong_runs = sorted(time_s("strong") for _ in range(3))
    t = {"mp": time_s("mp"), "strong": strong_runs[1], "lazy": time_s("lazy")}
    same = rel_error(t["strong"], t["lazy"])
    return [
        Row("Laplace, 8 cores: strong and lazy release nearly identical", "[SVM-2012] Fig. 9",
            "nearly identical", f"{t['strong'] * 1e3:.2f} (runs {strong_runs[0] * 1e3:.2f}-{strong_runs[2] * 1e3:.2f}) "
            f"/ {t['lazy'] * 1e3:.2f} ms", same, "±10 %", same <= 0.10, detail={"strong_runs_s": strong_runs}),
        Row("Laplace, 8 cores: message passing (iRCCE) slower than SVM", "[SVM-2012] Fig. 9 (write-combine and L2 effects)",
            "iRCCE slower up to 32 cores", f"iRCCE {t['mp'] * 1e3:.2f} ms vs {min(t['strong'], t['lazy']) * 1e3:.2f} ms",
            None, "iRCCE slower", t["mp"] > min(t["strong"], t["lazy"]),
            gap="with the caches and the write-combine buffer modelled, SVM's page faults and flushes still cost "
                "more than iRCCE's transfers; the cause is not isolated (docs/model.md)"),
    ]


# [FURST-2011] Figs. 2-3 (ref 4 "BT class W", "LU class W"): NAS BT and LU class W on 1..36 cores (s);
# the stand-in of each (validate/programs), its grid and the iterations NAS runs.
@dataclass
class NasW:
    name: str
    program: str
    grid: int
    iterations: int
    figure: str
    published: dict
    gap: str  # what docs/model.md ("Whole applications") found behind a miss


NAS_W = (NasW("BT", "adi_bt", 24, 200, "Fig. 2", {1: 176.76, 4: 46.67, 9: 24.32, 16: 14.14, 25: 9.81, 36: 7.37},
              "the stand-in solves the lines that cross UEs as pipelines over the k planes, where BT's "
              "multi-partition gives every UE cells on every line; from 16 cores on its time falls faster than "
              "BT's (docs/model.md \"Whole applications\")"),
         NasW("LU", "ssor_lu", 33, 300, "Fig. 3", {1: 884.43, 2: 427.94, 4: 168.24, 8: 80.87, 16: 38.72, 32: 21.48},
              "the stand-in's work per point costs 2.2-2.6 times less than LU's on the SCC at every core count, "
              "while the BT stand-in comes within 12 % of BT on 1-9 cores with the same model: what LU spends "
              "per point that the stand-in does not is not known yet (docs/model.md \"Whole applications\")"))


def application_rows(r: Runner) -> list[Row]:
    """Whole applications (docs/model.md "Whole applications"): validate/programs/adi_bt.c and
    ssor_lu.c, stand-ins for NAS BT and LU written from their descriptions (not NAS's code), on class
    W's grids.  Their iterations cost alike, so the time of NAS's 200 (300) is that many times the
    steady state's iteration: (time of 6 iterations - time of 1) / 5, which leaves out the first
    iteration's cold caches.  Nothing is fitted to these rows."""
    rows = []
    for nas in NAS_W:
        def seconds(ues: int, iterations: int) -> float:
            out, _ = r.run(ues, r.programs / nas.program, [nas.grid, iterations])
            return float(re.search(r"seconds (\S+)", out)[1])
        t = {n: (seconds(n, 6) - seconds(n, 1)) / 5 * nas.iterations for n in nas.published}
        err = max(rel_error(t[n], nas.published[n]) for n in nas.published)
        most = max(nas.published)
        speedup, published = t[1] / t[most], nas.published[1] / nas.published[most]
        superlinear = published > most
        rows += [
            Row(f"{nas.name} stand-in ({nas.program}, {nas.grid}³), {nas.iterations} iterations, "
                f"{' / '.join(map(str, nas.published))} cores (s)",
                f"ref 4, [FURST-2011] {nas.figure} (NAS {nas.name} class W; a stand-in, not NAS's code)",
                " / ".join(f"{v:g}" for v in nas.published.values()), " / ".join(f"{v:.1f}" for v in t.values()),
                err, "±25 %", err <= 0.25, gap=nas.gap, detail={"seconds": t}),
            Row(f"{nas.name} stand-in: speedup from 1 to {most} cores"
                + (" superlinear (the caches)" if superlinear else ""),
                f"[FURST-2011] {nas.figure} (NAS {nas.name} class W)", f"{published:.1f}", f"{speedup:.1f}",
                rel_error(speedup, published), f"> {most} and ±25 %" if superlinear else "±25 %",
                (speedup > most or not superlinear) and rel_error(speedup, published) <= 0.25, gap=nas.gap),
        ]
    return rows


# [SCC-2BOARD] Table I, on-die: SCC-MPICH's common short protocol, ping-pong latency (us).
SCCMPICH_TABLE1 = {"sccmpich": ("tagged", 3.1), "sccmpich-normal": ("normal", 3.4)}
# The same table's "SCC-MPICH in Coupled Mode" (cores of two boards, [SCC-2BOARD] sec. V).
SCCMPICH_COUPLED = {"sccmpich": 29.8, "sccmpich-normal": 46.1}
SCCMPICH_COUPLED_GAP = ("between boards the model's channel sends a short message as on one die, its flag (and, with "
                        "normal flags, its packet) written across the link: one crossing on the critical path at "
                        "lat_board_write_ns (16 us) plus the on-die costs; the paper does not print what its coupled "
                        "mode adds (docs/cluster.md)")


def counted_mpich_program(r: Runner, source: pathlib.Path, out_dir: str) -> pathlib.Path:
    """source as a counted MPI build: `OPENSCC_CC=mpicc rccecc --model-build` with the MPICH wheel's mpicc."""
    prefix = pathlib.Path(os.environ.get("OPENSCC_MPICH_PREFIX", ROOT / ".venv"))
    exe = pathlib.Path(out_dir) / f"{source.stem}_counted"
    cmd = [str(r.rccerun.parent / "rccecc"), "--model-build", "-O2", str(source), "-o", str(exe)]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OPENSCC_CC": str(prefix / "bin" / "mpicc")})
    if p.returncode != 0:
        raise RuntimeError(f"OPENSCC_CC={prefix / 'bin' / 'mpicc'} {' '.join(cmd)} failed (run scripts/install-deps.sh):\n{p.stderr}")
    return exe


def sccmpich_rows(r: Runner) -> list[Row]:
    """[SCC-2BOARD] Table I (on-die): an 8-byte MPI ping-pong between cores 0 and 1 on MPICH over the
    openscc provider with --mpi-channel sccmpich (tagged flags: the packet inside the probe flag's
    lines) and sccmpich-normal (the flag only signals; the packet goes through the eager slot).
    The same between two boards (cores 0 and 48, the table's coupled mode; 200 round trips).
    Nothing is fitted: the channel's flag and line costs come from the timing layer, the MPI
    library's own work from its executed instructions priced as the P54C's (time_mpi_mpich_call_cycles,
    make mpi-library-cost; docs/model.md "The MPI library's own work"), the program's from its counted
    blocks.  The half round trip is the virtual time of 1000 round trips (the difference of runs of
    1100 and 100, so start-up cancels)."""
    with tempfile.TemporaryDirectory() as tmp:
        prog = counted_mpich_program(r, ROOT / "bench" / "mpi" / "mpi_bench.c", tmp)

        def half_rtt_us(channel: str, cores: list[int], extra: list[str], counts: tuple[int, int]) -> float:
            t = {n: r.run(2, prog, ["latency", 8, n], cores, ["--mpi", "mpich", "--mpi-channel", channel, *extra])[1]
                 ["ues"][0]["seconds"] for n in counts}
            return (t[counts[1]] - t[counts[0]]) / (2 * (counts[1] - counts[0])) * 1e6

        got = {channel: half_rtt_us(channel, [0, 1], [], (100, 1100)) for channel in SCCMPICH_TABLE1}
        coupled = {channel: half_rtt_us(channel, [0, 48], ["--boards", "2"], (20, 220)) for channel in SCCMPICH_COUPLED}
    rows = []
    for channel, (flags, published) in SCCMPICH_TABLE1.items():
        err = rel_error(got[channel], published)
        rows.append(Row(f"SCC-MPICH short protocol ping-pong, {flags} flags, 8 B, cores 0-1 (us)",
                        "[SCC-2BOARD] Table I (--mpi-channel " + channel + "; MPICH 5's own work measured)",
                        f"{published}", f"{got[channel]:.3f}", err, "±15 %", err <= 0.15))
    for channel, published in SCCMPICH_COUPLED.items():
        err = rel_error(coupled[channel], published)
        rows.append(Row(f"SCC-MPICH short protocol ping-pong between two boards, {SCCMPICH_TABLE1[channel][0]} flags, 8 B, "
                        "cores 0 and 48 (us)", "[SCC-2BOARD] Table I (coupled mode; --mpi-channel " + channel + ")",
                        f"{published}", f"{coupled[channel]:.2f}", err, "±15 %", err <= 0.15, gap=SCCMPICH_COUPLED_GAP))
    tagged, normal = got["sccmpich"], got["sccmpich-normal"]
    rows.append(Row("SCC-MPICH short protocol: tagged flags faster than normal flags (us)",
                    "[SCC-2BOARD] Table I (on-die)", "3.1 < 3.4", f"{tagged:.3f} < {normal:.3f}", None,
                    "tagged < normal", tagged < normal, detail={"published_gain_us": 0.3,
                                                                "predicted_gain_us": round(normal - tagged, 3)}))
    return rows


# [RCKMPI-2011] sec. IV-A (SKaMPI 5, 48 processes): how many times faster the new SCCMPB
# channel (rckmpi) is than the original (rckmpi-original); Figs. 6-10 hold the curves.
RCKMPI_RATIOS = {"sendrecv 16 KB round trip": 6.25, "gather 16 KB": 2.6, "scatter, largest over the sizes": 4.6,
                 "bcast 1 KB": 3.5, "bcast 256 KB": 3.2, "barrier": 1.0}
# What docs/model.md ("RCKMPI's channels") found behind the rows that miss.
RCKMPI_ROUNDS_GAP = ("the model's cost per round of RCKMPI's channel code is below the paper's, which gives no "
                     "figure for it; the copies outweigh the rounds (docs/model.md)")
def host_order_gap(low: float, high: float) -> str:
    """The gap of a row the 48 ranks' host interleaving moves across its tolerance's edge."""
    return (f"moves between {low:g} and {high:g} from run to run with the host's interleaving of the 48 ranks (the "
            "provider serves its peers in host order)")


RCKMPI_GAPS = {"sendrecv 16 KB round trip": RCKMPI_ROUNDS_GAP, "scatter, largest over the sizes": RCKMPI_ROUNDS_GAP,
               "bcast 256 KB": host_order_gap(1.6, 2.7), "gather 16 KB": host_order_gap(1.8, 2.4),
               "bcast 1 KB": host_order_gap(3.67, 4.85), "barrier": host_order_gap(0.93, 1.26)}
# Synchronized runs per latency: one run's latency varies by up to ±25 % (how the 48 ranks' rounds
# interleave on the host decides which destinations share a sender's gEWS), their
# mean over 8 by about 1 % between jobs.
SKAMPI_REPS = 8
# Figs. 7-8's buffer sizes (bytes): SKaMPI 5's Scatter-length/Gather-length series, MPI_INT counts
# "1 to ... step *sqrt(2)" (skampi_coll.ski; the axis labels 4, 32, 180, 1024, 5792, 32768 B are points
# 0, 4, 9, 14, 19 and 24 of the 25 left once the duplicate small counts are gone: every fifth from 32 B
# on), up to the axis' 32 KB; "up to" runs over all of them.
SKAMPI_SIZES = tuple(sorted({4 * int(2 ** (k / 2)) for k in range(27)}))
# The MPI_Sendrecv pair: SKaMPI 5's comm2_max_latency_with_root (skampi_pt2pt.ski) takes the rank whose
# ping-pong with rank 0 is slowest, on the SCC a core on the far corner tile (5,3).  Under the default
# placement (UE i on core i) that is rank 46, the first of the two; skampi.c's own choice among ranks
# whose ping-pongs differ by a few ns follows the host's interleaving, so the rows name it.  On the SCC
# an 8-hop pair's ping-pong is only about 0.2 us slower than a 1-hop pair's (0.03 us a hop in the model),
# within the noise of a microsecond clock such as gettimeofday, so the paper's pair is not known: a
# second, listed row gives the nearest pair (rank 1, the same tile).
SKAMPI_PARTNER = 46
SKAMPI_NEAR_PARTNER = 1


def rckmpi_channel_rows(r: Runner) -> list[Row]:
    """[RCKMPI-2011] sec. IV-A: apps/mpi/skampi.c (SKaMPI-style, synchronized starts, the virtual
    MPI_Wtime) at 48 ranks on MPICH, a counted build, once per channel, on the chip as the paper ran
    it (validate/rckmpi2011.chip: 800 MHz cores, 1600 MHz mesh, 1066 MHz DDR3).  Each row is the
    ratio rckmpi-original / rckmpi of one latency; nothing is fitted to them (docs/model.md)."""
    ops = ["pair", SKAMPI_PARTNER, "sendrecv", 16384, "gather", 16384, "bcast", 1024, "bcast", 262144, "barrier", 0]
    for size in SKAMPI_SIZES:
        ops += ["scatter", size]
    ops += ["pair", SKAMPI_NEAR_PARTNER, "sendrecv", 16384]
    with tempfile.TemporaryDirectory() as tmp:
        prog = counted_mpich_program(r, ROOT / "apps" / "mpi" / "skampi.c", tmp)
        usec = {}
        for channel in ("rckmpi-original", "rckmpi"):
            out, _ = r.run(48, prog, [SKAMPI_REPS, *ops], None, ["--mpi", "mpich", "--mpi-channel", channel,
                                                       "--chip", str(ROOT / "validate" / "rckmpi2011.chip")])
            usec[channel] = skampi_latencies(out)
    ratio = {k: usec["rckmpi-original"][k] / usec["rckmpi"][k] for k in usec["rckmpi"]}
    near = f"sendrecv 16384 pair {SKAMPI_NEAR_PARTNER}"
    scatter_size = max(SKAMPI_SIZES, key=lambda s: ratio[f"scatter {s}"])
    got = {"sendrecv 16 KB round trip": ratio[f"sendrecv 16384 pair {SKAMPI_PARTNER}"], "gather 16 KB": ratio["gather 16384"],
           "scatter, largest over the sizes": ratio[f"scatter {scatter_size}"], "bcast 1 KB": ratio["bcast 1024"],
           "bcast 256 KB": ratio["bcast 262144"], "barrier": ratio["barrier 0"]}
    rows = []
    for what, published in RCKMPI_RATIOS.items():
        err = rel_error(got[what], published)
        note = f" (at {scatter_size} B)" if what.startswith("scatter") else ""
        pair = f" (ranks 0 and {SKAMPI_PARTNER})" if what.startswith("sendrecv") else ""
        rows.append(Row(f"MPI {what}{pair}, 48 processes: rckmpi-original / rckmpi latency",
                        "[RCKMPI-2011] sec. IV-A, Figs. 6-10", f"{published}", f"{got[what]:.2f}{note}", err, "±25 %",
                        err <= 0.25, gap=RCKMPI_GAPS.get(what), detail={"usec": {ch: usec[ch] for ch in usec}}))
    err = rel_error(ratio[near], RCKMPI_RATIOS["sendrecv 16 KB round trip"])
    rows.append(Row(f"MPI sendrecv 16 KB round trip (ranks 0 and {SKAMPI_NEAR_PARTNER}, one tile), 48 processes: "
                    "rckmpi-original / rckmpi latency", "[RCKMPI-2011] sec. IV-A, Fig. 6 (pair not given)",
                    f"{RCKMPI_RATIOS['sendrecv 16 KB round trip']}", f"{ratio[near]:.2f}", err, "±25 %", err <= 0.25,
                    gap="a second view: SKaMPI's pair is the far corner (the row above); the paper does not name its pair"))
    return rows


def skampi_latencies(out: str) -> dict[str, float]:
    """skampi.c's output as {"OP SIZE": usec}; a sendrecv's key also names its pair ("sendrecv 16384 pair 46")."""
    got, pair = {}, None
    for line in out.splitlines():
        if m := re.match(r"skampi pair 0-(\d+)", line):
            pair = m[1]
        elif m := re.match(r"skampi op=(\w+) size=(\d+) ranks=48 usec=([\d.]+)", line):
            got[f"{m[1]} {m[2]}" + (f" pair {pair}" if m[1] == "sendrecv" else "")] = float(m[3])
    return got


def copy_pingpong(r: Runner, copy_cores: int, ways: str) -> dict[tuple[int, str], float]:
    """apps/copy_pingpong in model mode: {(bytes, way): half round trip in us}."""
    out, _ = r.run(2, r.apps / "copy_pingpong", [16 << 20, 1, ways], opts=["--copy-cores", str(copy_cores)])
    return {(int(m[1]), m[2]): float(m[3]) for m in re.finditer(r"copy_pingpong: (\d+) (\w+) (\S+) \S+", out)}


def data_movement_rows(r: Runner) -> list[Row]:
    """[SVP-SCC] sec. IV.B.1 (Fig. 4): remapping and copy cores against the data through the MPB."""
    four, sixteen = copy_pingpong(r, 4, "direct,remap,copy"), copy_pingpong(r, 16, "copy")
    big = 16 << 20
    rows = []
    for cores, t, published in ((4, four, 3.0), (16, sixteen, 4.0)):
        ratio = four[(big, "remap")] / t[(big, "copy")]
        err = rel_error(ratio, published)
        gap = None if cores == 4 else (
            "the model's 16 copy cores scale with their own paths to memory: the controllers serve at their peak "
            "(ref 1, 21 GB/s over 4) and a request costs a line and a flag; the paper blames the cost of handing "
            "work to 16 cores and synchronising with them, which it does not measure")
        rows.append(Row(f"Copy cores vs remapping, ping-pong of 16 MB, {cores} copy cores (speed-up)",
                        "[SVP-SCC] sec. IV.B.1 (Fig. 4)", f"{published:g}x", f"{ratio:.2f}x", err, "±15 %",
                        err <= 0.15, gap=gap))
    # The level-2 flush behind the remap's fixed cost: about 6 ms instead of 1 ms a create and sync.
    extra_ms = 2 * (four[(4, "remap")] - four[(4, "direct")]) / 1000
    err = rel_error(extra_ms, 5.0)
    rows.append(Row("Remapping's extra small-payload latency, 4 B round trip (ms)", "[SVP-SCC] sec. IV.B.1",
                    "about 5 (6 vs 1)", f"{extra_ms:.2f}", err, "±25 %", err <= 0.25,
                    gap="the paper puts the difference down to the level-2 flushes (one a direction) but does not "
                        "publish its flush routine; the model's reads as many lines as level 2 holds, one at a "
                        "time (docs/data-movement.md), about 1.25 ms"))
    crossover = min((b for (b, w) in four if w == "copy" and four[(b, w)] < four[(b, "direct")]), default=None)
    rows.append(Row("Smallest ping-pong size where 4 copy cores beat the direct path (bytes)", "[SVP-SCC] sec. IV.B.1",
                    "16 KiB (direct = TCP/IP)", f"{crossover}" if crossover else "none up to 16 MB", None,
                    "-", False,
                    gap="not comparable: the paper's direct path is TCP/IP over the chip (about 1 ms a message), "
                        f"OpenSCC's is RCCE through the MPB, {big / four[(big, 'direct')]:.0f} MB/s in the model"))
    return rows


def pipeline_rows(r: Runner) -> list[Row]:
    """[PIPELINE-2011]'s cost model (scc_pipe_predict) against the time the model measures for the same
    pipeline: 8 stages on scattered cores, 128 KiB in 4 KiB chunks, each memory scheme, in UE order and in
    the layout the cost model picks.  The paper's own results are not in the project's copy of it."""
    out, _ = r.run(8, r.apps / "pipeline", [131072, 4096], cores=[0, 47, 2, 45, 4, 43, 6, 41])
    rows = []
    for m in re.finditer(r"pipeline: (\S+) (\S+) chunk (\d+) order (\S+) predicted_s (\S+) measured_s (\S+)", out):
        predicted, measured = float(m[5]), float(m[6])
        err = rel_error(predicted, measured)
        rows.append(Row(f"Pipeline cost model vs model-mode run: 8 stages, {m[1]} memory, {m[2]} (order {m[4]}, "
                        f"chunk {m[3]}) (ms)", "[PIPELINE-2011] eqs. 1-3, docs/data-movement.md",
                        f"{measured * 1e3:.2f} (measured)", f"{predicted * 1e3:.2f}", err, "±25 %", err <= 0.25))
    return rows


def markdown(rows: list[Row]) -> str:
    lines = ["| figure | source | basis | published | model | error | tolerance | pass |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for w in rows:
        err = f"{w.error * 100:.1f} %" if w.error is not None else "-"
        lines.append(f"| {w.figure} | {w.source} | {w.basis} | {w.published} | {w.predicted} | {err} | {w.tolerance} | {w.verdict()} |")
    return "\n".join(lines) + "\n\n" + tally(rows) + "\n"


def tally(rows: list[Row]) -> str:
    fits = [w for w in rows if w.basis == "fit"]
    predictions = [w for w in rows if w.basis != "fit"]
    return (f"{len(fits)} fit points ({sum(w.passed for w in fits)} hold); {len(predictions)} predictions: "
            f"{sum(w.passed for w in predictions)} within tolerance, "
            f"{sum(not w.passed and w.gap is not None for w in predictions)} known gaps, "
            f"{sum(w.failed() for w in predictions)} failed.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"), help="CMake build directory")
    ap.add_argument("--out", default=str(ROOT / "validate" / "results"), help="where the results go")
    a = ap.parse_args()
    r = Runner(pathlib.Path(a.build))
    rows = mpb_rows(r) + ddr_rows(r) + pingpong_rows(r) + probe_flag_rows(r) + board_rows(r) + share_power_rows(r) + [benchmark_power_row(r), stencil_hops_row(r)] + \
        contention_rows(r) + divider_rows(r) + svm_rows(r) + mailbox_rows(r) + laplace_rows(r) + application_rows(r) + \
        sccmpich_rows(r) + rckmpi_channel_rows(r) + data_movement_rows(r) + \
        pipeline_rows(r)
    table = markdown(rows)
    print(table)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "validation.md").write_text("# Model validation (make validate)\n\n" + table)
    (out / "validation.json").write_text(json.dumps([asdict(w) for w in rows], indent=1) + "\n")
    failed = [w.figure for w in rows if w.failed()]
    for f in failed:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

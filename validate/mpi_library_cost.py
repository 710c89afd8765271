#!/usr/bin/env python3
"""make mpi-library-cost: the P54C cycles an MPI library spends per message call, measured by content.

A counted build (rccecc --model-build) prices the program's own basic blocks; the MPI library is a
binary from a package registry and is not instrumented, yet on the SCC its CPU time dominated
small-message latency (issue 14, [SCC-2BOARD] Table I).  This tool measures it the way the counted
build prices the program (docs/model.md "The MPI library's own work"):

1. bench/mpi/mpi_bench.c (an 8-byte ping-pong, one send and one receive call per round trip and
   rank) is built with the library's own mpicc and run on 2 UEs in model mode under
   `valgrind --tool=callgrind --collect-atstart=no --dump-instr=yes`, with OPENSCC_MEASURE_LIBRARY=1:
   the timing layer then collects instructions only where a plain build charges host time as
   computation -- outside the runtime, and not after a poll that found nothing (the progress loop
   waiting) (src/timing/library_measure.c);
2. twice, with N and 3N round trips: the difference is 2N round trips' work, set-up cancels;
3. every executed x86-64 instruction outside the program and the provider (the MPI library, its
   plug-ins, libc and the dynamic linker as the library calls them) is priced with the P54C
   instruction tables of the counted build (src/launch/blockcost/p54c_timing.py), one block per run
   of instructions executed equally often, as objdump disassembles them.

The result, P54C cycles per message call (averaged over both ranks), is what the chip keys
time_mpi_openmpi_call_cycles and time_mpi_mpich_call_cycles hold (src/chip/chip_preset.c).
Instruction counts of a given library build repeat (the two ranks and repeated runs agree within
0.3 % at the default length; a run's one-off work is some 25 000 instructions), so the numbers change
only with the library.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "launch" / "blockcost"))
import p54c_timing  # noqa: E402

ROUND_TRIPS = 2000  # the short run by default; the long one has 3 times as many
CALLS_PER_ROUND_TRIP = 2  # mpi_bench's ping-pong: MPI_Send and MPI_Recv on each rank
PROVIDER = "libopenscc-fi.so"
TIMEOUT_S = 900


def mpicc_of(library: str) -> str:
    if library == "openmpi":
        return shutil.which("mpicc.openmpi") or "mpicc.openmpi"
    prefix = pathlib.Path(os.environ.get("OPENSCC_MPICH_PREFIX", ROOT / ".venv"))
    return str(prefix / "bin" / "mpicc")


class MeasureError(Exception):
    """A measuring run failed; the message says how."""


def self_costs(profile: pathlib.Path) -> dict[str, dict[int, int]]:
    """{object path: {instruction address: instructions executed}} of one callgrind profile written
    with --dump-instr=yes --dump-line=no (positions: instr).  Cost lines after `calls=` are the
    call's inclusive cost and are skipped; addresses may be absolute (0x..), relative (+n, -n) or
    the last one (*), as the format's position compression allows."""
    names: dict[str, str] = {}
    out: dict[str, dict[int, int]] = collections.defaultdict(lambda: collections.defaultdict(int))
    obj, pos, after_calls = "", 0, False
    for line in profile.read_text().splitlines():
        m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                obj = names[m.group(2)]
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        m = re.match(r"(0x[0-9a-f]+|[+-]\d+|\*)\s+(\d+)$", line)
        if not m:
            continue
        where = m.group(1)
        pos = int(where, 16) if where.startswith("0x") else pos if where == "*" else pos + int(where)
        if after_calls:
            after_calls = False
            continue
        out[obj][pos] += int(m.group(2))
    return out


def disassembly(obj: str) -> dict[int, str]:
    """{address: AT&T instruction text} of an object file (objdump -d)."""
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True)
    if p.returncode != 0:
        raise MeasureError(f"objdump -d {obj} failed: {p.stderr.strip()[:200]}")
    text = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            text[int(m.group(1), 16)] = m.group(2).split("#", 1)[0].split("<", 1)[0].strip()
    return text


def priced_cycles(counts: dict[int, int], text: dict[int, str]) -> int:
    """P54C cycles of the executed instructions: consecutive instructions executed equally often form
    a block (a branch, call or return ends one), priced by p54c_timing.block_cycles times its count."""
    total, block, count = 0, [], None

    def close() -> None:
        nonlocal total, block
        insns = [i for i in (p54c_timing.parse(t) for t in block) if i]
        total += p54c_timing.block_cycles(insns) * (count or 0)
        block = []

    for addr in sorted(a for a in counts if a in text):
        if counts[addr] != count:
            close()
            count = counts[addr]
        block.append(text[addr])
        if text[addr].split()[0].startswith(("j", "call", "ret")):
            close()
    close()
    return total


def measure_run(library: str, program: pathlib.Path, rccerun: pathlib.Path, out: pathlib.Path,
                round_trips: int) -> list[pathlib.Path]:
    """One 2-UE run under callgrind; the ranks' profiles."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--dump-instr=yes", "--dump-line=no",
           "--trace-children=yes", f"--callgrind-out-file={out}/callgrind.%p", str(rccerun), "--mpi", library,
           "--model", "scc", "--compute-slowdown", "0", "-nue", "2", str(program), "latency", "8",
           str(round_trips)]
    env = {**os.environ, "OPENSCC_MEASURE_LIBRARY": "1"}
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=out)
    except subprocess.TimeoutExpired:
        raise MeasureError(f"{' '.join(cmd)} timed out after {TIMEOUT_S} s") from None
    if p.returncode != 0:
        raise MeasureError(f"{' '.join(cmd)} failed (exit {p.returncode}): {p.stderr.strip()[-400:]}")
    ranks = sorted(f for f in out.glob("callgrind.*") if f"cmd:  {program}" in f.read_text()[:2000])
    if len(ranks) != 2:
        raise MeasureError(f"expected the profiles of 2 ranks in {out}, found {len(ranks)}")
    return ranks


def cycles_per_call(library: str, rccerun: pathlib.Path, scratch: pathlib.Path, round_trips: int = ROUND_TRIPS) -> dict:
    program = scratch / f"mpi_bench_{library}"
    p = subprocess.run([mpicc_of(library), "-O2", str(ROOT / "bench" / "mpi" / "mpi_bench.c"), "-o", str(program)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise MeasureError(f"{mpicc_of(library)} failed (run scripts/install-deps.sh): {p.stderr.strip()[:300]}")
    short = measure_run(library, program, rccerun, scratch / f"{library}-short", round_trips)
    long = measure_run(library, program, rccerun, scratch / f"{library}-long", 3 * round_trips)
    texts: dict[str, dict[int, str]] = {}
    ranks = []
    for a, b in zip(short, long):
        ca, cb = self_costs(a), self_costs(b)
        by_object = {}
        for obj in cb:
            if obj.endswith(PROVIDER) or pathlib.Path(obj).name == program.name:
                continue  # the provider's work is the channel's (charged by what it touches); the program's is counted
            diff = {x: cb[obj].get(x, 0) - ca[obj].get(x, 0) for x in set(cb[obj]) | set(ca[obj])}
            diff = {x: n for x, n in diff.items() if n}
            if not diff:
                continue
            if obj not in texts:  # one objdump per object, not per rank
                texts[obj] = disassembly(obj)
            text = texts[obj]
            by_object[pathlib.Path(obj).name] = {"instructions": sum(diff.values()) / (2 * round_trips),
                                                 "cycles": priced_cycles(diff, text) / (2 * round_trips)}
        ranks.append(by_object)
    per_round_trip = [sum(o["cycles"] for o in r.values()) for r in ranks]
    if min(per_round_trip) <= 0:
        raise MeasureError("callgrind collected no library instructions: the runtime was built without "
                           "<valgrind/callgrind.h> (install valgrind and rebuild) or the library made no calls")
    return {"library": library, "cycles_per_call": sum(per_round_trip) / len(ranks) / CALLS_PER_ROUND_TRIP,
            "cycles_per_round_trip_by_rank": per_round_trip, "objects_rank0": ranks[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--library", choices=("openmpi", "mpich"), action="append")
    ap.add_argument("--round-trips", type=int, default=ROUND_TRIPS, help="of the short run (default %(default)s)")
    ap.add_argument("--out", help="write the results as JSON here")
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("mpi_library_cost: valgrind is needed (scripts/install-deps.sh installs it)", file=sys.stderr)
        return 2
    rccerun = (pathlib.Path(a.build) / "bin" / "rccerun").resolve()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for library in a.library or ("openmpi", "mpich"):
            try:
                r = cycles_per_call(library, rccerun, pathlib.Path(tmp), a.round_trips)
            except MeasureError as e:
                print(f"mpi_library_cost: {library}: {e}", file=sys.stderr)
                return 1
            results.append(r)
            top = sorted(r["objects_rank0"].items(), key=lambda kv: -kv[1]["cycles"])[:4]
            print(f"{library}: {r['cycles_per_call']:.0f} P54C cycles per message call "
                  f"(round trip by rank: {', '.join(f'{c:.0f}' for c in r['cycles_per_round_trip_by_rank'])}; "
                  + ", ".join(f"{n} {o['cycles']:.0f}" for n, o in top) + ")")
    print("# chip keys (rccerun --chip FILE)")
    for r in results:
        print(f"time_mpi_{r['library']}_call_cycles = {r['cycles_per_call']:.0f}")
    if a.out:
        pathlib.Path(a.out).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

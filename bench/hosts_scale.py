#!/usr/bin/env python3
"""Boards on 1, 2 and 3 hosts: what grows with hosts (issue 16 item 6, make bench; docs/cluster.md "What grows
with boards and hosts").

Three boards of 16 UEs each (cores 0-15 of every board), on one host (no --hosts) and on 2 and 3 hosts that are
network namespaces of this machine on a bridge (tests/integration/netns_hosts.py; root only, skipped otherwise).
Each measurement is repeated R times, interleaved; medians:
  - hello: launch to finish of `rccerun ... apps/hello` (wall clock of the whole command);
  - stencil: wall clock of `apps/stencil 32 200`, and the program's own timed loop (its last line);
  - bytes each host sent on its interface during the stencil run (the agents' batches, and mpirun's own
    traffic), with the stencil's MPB traffic between boards for scale;
  - crash: wall clock of tests/programs/crash.c's segv mode (UE 1 segfaults, the job ends with the report).
Writes bench/results/hosts_scale.{json,md}.
"""
from __future__ import annotations

import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

import netns_bench
import standalone

from netns_bench import netns_hosts

TIMEOUT = 300
BOARDS, PER_BOARD = 3, 16
CORES = ",".join(str(48 * b + c) for b in range(BOARDS) for c in range(PER_BOARD))
HOSTS = (1, 2, 3)
STENCIL = ("32", "200")


def tx_bytes(ns: str) -> int:
    """Bytes namespace ns has sent on its eth0 (/proc/net/dev)."""
    out = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/net/dev"], capture_output=True, text=True,
                         check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("eth0:"))
    return int(line.split(":", 1)[1].split()[8])


def timed(cmd, env, want_rc=0) -> tuple[float, str]:
    start = time.monotonic()
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    wall = time.monotonic() - start
    if res.returncode != want_rc:
        raise RuntimeError(f"{cmd}: exit {res.returncode}, expected {want_rc}\n{res.stderr[-2000:]}")
    return wall, res.stdout


def run_once(build, crash, hosts, names, env, scratch) -> dict:
    base = [str(build / "bin" / "rccerun"), "-nue", str(BOARDS * PER_BOARD), "--boards", str(BOARDS),
            "--cores", CORES]
    used = names[:hosts] if hosts > 1 else []
    if used:
        hostfile = os.path.join(scratch, f"hosts{hosts}")
        with open(hostfile, "w") as f:
            f.write("".join(f"{n} slots=1\n" for n in used))
        base += ["--hosts", hostfile]
    hello, _ = timed(base + [str(build / "apps" / "hello")], env)
    before = [tx_bytes(n) for n in used]
    stencil, out = timed(base + [str(build / "apps" / "stencil"), *STENCIL], env)
    sent = [tx_bytes(n) - b for n, b in zip(used, before)]
    loop = float(re.search(r"checksum .*, (\S+) s$", out, re.M).group(1))
    crashed, _ = timed(base + [crash, "segv"], env, want_rc=1)
    return {"hello_s": hello, "stencil_s": stencil, "stencil_loop_s": loop, "sent_bytes": sent, "crash_s": crashed}


def main() -> int:
    started = netns_bench.start(__doc__, "hosts_scale")
    if not started:
        return 0
    args, build, command, scratch = started
    crash = os.path.join(scratch, "crash")
    subprocess.run([str(build / "bin" / "rccecc"), "-O2", str(standalone.ROOT / "tests" / "programs" / "crash.c"),
                    "-o", crash], check=True)
    runs: dict[int, list[dict]] = {h: [] for h in HOSTS}
    with netns_hosts.namespaced_hosts(max(HOSTS)) as (names, extra):
        env = dict(os.environ, **extra, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for _ in range(args.repeat):
            for h in HOSTS:
                runs[h].append(run_once(build, crash, h, names, env, scratch))
    shutil.rmtree(scratch, ignore_errors=True)

    def med(h, key):
        return statistics.median(r[key] for r in runs[h])

    def med_sent(h):
        return statistics.median(sum(r["sent_bytes"]) / h for r in runs[h]) if h > 1 else 0.0

    nue = BOARDS * PER_BOARD
    lines = ["# Boards on 1, 2 and 3 hosts", "",
             f"`{command}` on {platform.node()}, {datetime.date.today()}: {nue} UEs on {BOARDS} boards "
             f"({PER_BOARD} a board), {args.repeat} runs of each, interleaved, medians. Hosts are network namespaces "
             "of this machine (2 CPUs, shared by every host) on a bridge; 1 host is a run without --hosts.", "",
             f"| hosts | hello, launch to finish (s) | stencil {' '.join(STENCIL)}: wall (s) | its timed loop (s) "
             "| bytes sent per host during stencil | crash (segv of UE 1) to exit (s) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for h in HOSTS:
        sent = f"{med_sent(h) / 1e6:.2f} MB" if h > 1 else "-"
        lines.append(f"| {h} | {med(h, 'hello_s'):.3f} | {med(h, 'stencil_s'):.3f} | {med(h, 'stencil_loop_s'):.4f} "
                     f"| {sent} | {med(h, 'crash_s'):.3f} |")
    doc = {"command": command, "host": platform.node(), "date": str(datetime.date.today()), "repeat": args.repeat,
           "ues": nue, "boards": BOARDS, "stencil_args": list(STENCIL), "runs": {str(h): runs[h] for h in HOSTS},
           "median": {str(h): {"hello_s": med(h, "hello_s"), "stencil_s": med(h, "stencil_s"),
                               "stencil_loop_s": med(h, "stencil_loop_s"), "sent_bytes_per_host": med_sent(h),
                               "crash_s": med(h, "crash_s")} for h in HOSTS}}
    standalone.write(args.out, doc, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

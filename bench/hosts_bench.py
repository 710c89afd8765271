#!/usr/bin/env python3
"""Boards across boards and hosts: RCCE ping-pong vs Open MPI's TCP transport (issue 16 item 5, make bench).

Two "hosts" are network namespaces of this machine on a bridge (tests/integration/netns_hosts.py;
root only, skipped otherwise).  Side by side, each repeated R times interleaved, medians:
  - cross-board: `rccerun -nue 2 --boards 2 --cores 0,48 apps/pingpong`, both boards on one host;
  - cross-host: the same with `--hosts` (board 0 on host 0, board 1 on host 1);
  - each under --scheme lprg (RCCE's default) and rplg;
  - openmpi-tcp: bench/mpi/mpi_bench.c's ping-pong between the same two namespaces with Open MPI's
    own TCP transport (`--mca btl self,tcp`, one rank per namespace);
  - cross-host mpi: the same MPI program under `rccerun --hosts --mpi openmpi` (Open MPI over OpenSCC's
    provider and the rckmpi channel, its MPB writes crossing hosts as RCCE's do).
Rows: 8 B half round trip (us) and 1 MiB bandwidth (MB/s: bytes / half round trip).  The issue's
targets: cross-host 8 B half round trip <= 1.5x Open MPI TCP; 1 MiB >= 0.8x its bandwidth.
Writes bench/results/hosts.{json,md}.
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

import netns_bench
import standalone

from netns_bench import netns_hosts

TIMEOUT = 300
MIB = 1 << 20
ROW = re.compile(r"^\s*(\d+)\s+\d+\s+(\S+)\s+(\S+)\s*$", re.M)
SETUPS = ("cross-board lprg", "cross-board rplg", "cross-host lprg", "cross-host rplg", "cross-host mpi", "openmpi-tcp")


def pingpong(build, env, hostfile, scheme) -> tuple[float, float]:
    """(8 B half round trip us, 1 MiB MB/s) from apps/pingpong."""
    cmd = [str(build / "bin" / "rccerun"), "-nue", "2", "--boards", "2", "--cores", "0,48", "--scheme", scheme]
    if hostfile:
        cmd += ["--hosts", hostfile]
    out = subprocess.run(cmd + [str(build / "apps" / "pingpong")], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT, check=True).stdout
    rows = {int(b): (float(lat), float(mbs)) for b, lat, mbs in ROW.findall(out)}
    return rows[8][0], rows[MIB][1]


def mpi_pingpong(launch, exe, env) -> tuple[float, float]:
    """(8 B half round trip us, 1 MiB MB/s) from mpi_bench's latency test, started by `launch`."""
    def run(size, iters):
        out = subprocess.run(launch + [exe, "latency", str(size), str(iters)], env=env, capture_output=True,
                             text=True, timeout=TIMEOUT, check=True).stdout
        return float(re.search(r"usec=(\S+)", out).group(1))
    return run(8, 10000), MIB / run(MIB, 100)


def openmpi_tcp(exe, env, hostfile) -> tuple[float, float]:
    return mpi_pingpong(["mpirun", "--quiet", "--hostfile", hostfile, "-np", "2", "--bind-to", "none", "--mca", "btl",
                         "self,tcp", "-x", "PMIX_MCA_gds"], exe, env)


def mpi_across_hosts(build, exe, env, hostfile) -> tuple[float, float]:
    return mpi_pingpong([str(build / "bin" / "rccerun"), "--hosts", hostfile, "--mpi", "openmpi", "-nue", "2",
                         "--boards", "2", "--cores", "0,48"], exe, env)


def main() -> int:
    started = netns_bench.start(__doc__, "hosts")
    if not started:
        return 0
    args, build, command, scratch = started
    exe = os.path.join(scratch, "mpi_bench")
    subprocess.run([shutil.which("mpicc.openmpi") or "mpicc", "-O2", str(standalone.ROOT / "bench" / "mpi" / "mpi_bench.c"),
                    "-o", exe], check=True)
    runs = {s: [] for s in SETUPS}
    with netns_hosts.namespaced_hosts(2) as (names, extra):
        hostfile = os.path.join(scratch, "hosts")
        with open(hostfile, "w") as f:
            f.write("".join(f"{n} slots=1\n" for n in names))
        env = dict(os.environ, **extra, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for _ in range(args.repeat):
            for s in SETUPS:
                if s == "openmpi-tcp":
                    runs[s].append(openmpi_tcp(exe, env, hostfile))
                elif s == "cross-host mpi":
                    runs[s].append(mpi_across_hosts(build, exe, env, hostfile))
                else:
                    where, scheme = s.split()
                    runs[s].append(pingpong(build, env, hostfile if where == "cross-host" else None, scheme))
    shutil.rmtree(scratch, ignore_errors=True)
    med = {s: (statistics.median(r[0] for r in runs[s]), statistics.median(r[1] for r in runs[s])) for s in SETUPS}
    tcp_lat, tcp_bw = med["openmpi-tcp"]
    lines = ["# Boards across hosts: RCCE ping-pong vs Open MPI TCP", "",
             f"`{command}` on {platform.node()}, {datetime.date.today()}: {args.repeat} runs of each, interleaved, "
             "medians. Two network namespaces of this machine (2 CPUs) on a bridge; Open MPI busy-polls, "
             "OpenSCC's host agents poll for 2 ms after traffic, then nap.", "",
             "| set-up | 8 B half round trip (us) | vs Open MPI TCP (target cross-host <= 1.5x) "
             "| 1 MiB (MB/s) | vs Open MPI TCP (target cross-host >= 0.8x) |", "| --- | ---: | ---: | ---: | ---: |"]
    for s in SETUPS:
        lat, bw = med[s]
        lines.append(f"| {s} | {lat:.2f} | {lat / tcp_lat:.2f}x | {bw:.1f} | {bw / tcp_bw:.2f}x |")
    doc = {"command": command, "host": platform.node(), "date": str(datetime.date.today()), "repeat": args.repeat,
           "runs": {s: [{"latency_8b_us": a, "mbps_1mib": b} for a, b in runs[s]] for s in SETUPS},
           "median": {s: {"latency_8b_us": med[s][0], "mbps_1mib": med[s][1]} for s in SETUPS}}
    standalone.write(args.out, doc, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

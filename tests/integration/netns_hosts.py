""""Hosts" for rccerun --hosts on one machine: network namespaces joined by a
bridge (veth pairs), with tests/hosts/netns_rsh as Open MPI's rsh agent.

Root only; every address is in a private /24 on the bridge; everything is
removed again on exit.  The environment mpirun needs:
- OMPI_MCA_plm_rsh_agent: netns_rsh (runs the agent in the namespace, under
  the namespace's name as host name);
- OMPI_MCA_oob_tcp_if_include / OMPI_MCA_btl_tcp_if_include: the bridge's
  subnet, so that mpirun, its daemons and the agents talk over the veths;
- PMIX_MCA_gds=hash: the namespaces share one file system, where PMIx's
  shared-memory data store of each "host" would meet the others'.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

RSH_AGENT = Path(__file__).resolve().parents[1] / "hosts" / "netns_rsh"


def unavailable() -> str | None:
    """Why namespaced hosts cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "unshare", "mpirun"):
        if not shutil.which(tool):
            return f"{tool} is not installed"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def namespaced_hosts(count: int):
    """Yields (host names, environment additions) for `count` namespaces."""
    tag = os.getpid() % 100000
    subnet_octet = 100 + os.getpid() % 150
    bridge, names = f"osb{tag}", [f"oscc{tag}h{i}" for i in range(1, count + 1)]
    made: list[str] = []
    try:
        _ip("link", "add", bridge, "type", "bridge")
        made.append("bridge")
        _ip("addr", "add", f"10.{subnet_octet}.0.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for i, ns in enumerate(names, start=1):
            _ip("netns", "add", ns)
            made.append(ns)
            veth = f"osv{tag}x{i}"
            _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("link", "set", veth, "master", bridge, "up")
            _ip("-n", ns, "addr", "add", f"10.{subnet_octet}.0.{i + 1}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        subnet = f"10.{subnet_octet}.0.0/24"
        yield names, {
            "OMPI_MCA_plm_rsh_agent": str(RSH_AGENT),
            "OMPI_MCA_oob_tcp_if_include": subnet,
            "OMPI_MCA_btl_tcp_if_include": subnet,
            "PMIX_MCA_gds": "hash",
            # MPICH's hydra (rccerun --hosts --mpi mpich): the same rsh agent, the namespaces' interface
            "HYDRA_LAUNCHER": "rsh",
            "HYDRA_LAUNCHER_EXEC": str(RSH_AGENT),
            "HYDRA_IFACE": "eth0",
        }
    finally:
        for ns in made:
            if ns != "bridge":
                subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        if "bridge" in made:
            subprocess.run(["ip", "link", "del", bridge], capture_output=True, timeout=30)

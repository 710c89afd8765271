"""rccerun --hosts with one machine named twice (docs/cluster.md "Several hosts"): two agents on this
host, each with its own replica of the job's segment, the boards' writes crossing between them as
between hosts.  Needs Open MPI's mpirun only (no network namespaces, no root)."""
from __future__ import annotations

import re
import shutil

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None, reason="no mpirun (scripts/install-deps.sh)")


def checksum(out: str) -> str:
    m = re.search(r"checksum (\S+) \(weighted (\S+)\)", out)
    assert m, out
    return m.group(0)


def localhost_twice(build, scratch):
    """A hosts file naming this machine twice, and the environment for its two agents."""
    hosts = scratch / "hosts"
    hosts.write_text("localhost\nlocalhost\n")
    # the loopback interface, which Open MPI leaves out by default: a machine with no other works too
    env = lib.base_env(build, OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_oob_tcp_if_include="lo")
    if build.asan:  # Open MPI's own allocations at exit are not ours to judge
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    return hosts, env


def test_two_agents_on_one_machine_run_the_boards_as_one_host_does(build, scratch):
    hosts, env = localhost_twice(build, scratch)
    app = build.app("stencil")
    one = rccerun(build, "-nue", 96, "--boards", 2, app, 8, 10)
    two = rccerun(build, "--hosts", str(hosts), "-nue", 96, "--boards", 2, app, 8, 10, env=env)
    assert one.rc == lib.RC_OK and two.rc == lib.RC_OK, (one, two)
    assert checksum(two.out) == checksum(one.out), (one, two)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_stress_with_two_agents_on_one_machine(build, scratch, mpi):
    """An MPI job across the two agents: each rank attaches to its agent's replica (both are reachable
    here: the wrapper takes the one of its host), the program's launcher (started by host 0's agent)
    places each host's ranks as one block on the same machine name."""
    from test_mpi_launch import mpi_program
    hosts, env = localhost_twice(build, scratch)
    res = rccerun(build, "--hosts", str(hosts), "--mpi", mpi, "-nue", 8, "--boards", 2, "--cores", "0-3,48-51",
                  mpi_program(mpi, "stress", scratch), env=env)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (8 ranks, up to 4194304 bytes)" in res.out, res

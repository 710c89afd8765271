"""MPI-2 dynamic processes on the emulated SCC (docs/mpi.md "Dynamic processes"): MPI_Comm_spawn of a
child group onto the spare UEs of `rccerun --mpi-spawn-ues K`, and MPI_Comm_connect/MPI_Comm_accept
between two groups of a job, with every byte through OpenSCC's provider.  tests/mpi/spawn_parent.c,
spawn_child.c and connect_accept.c check their own data (over the intercommunicator and after
MPI_Intercomm_merge)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import openscc_testlib as lib
from test_mpi_launch import assert_nothing_left, mpi, mpi_program, require, unique_copy  # noqa: F401 (mpi)

BYTES = 100000  # several gEWS rounds per message


def build_spawn_programs(mpi_name: str, scratch) -> tuple[Path, Path]:
    return (mpi_program(mpi_name, "spawn_parent", scratch), mpi_program(mpi_name, "spawn_child", scratch))


def run_spawn(build, mpi_name, world, spare, *args, job=None):
    extra = ("--trace", "counters", "--job-dir", job) if job else ()
    return lib.rccerun(build, "--mpi", mpi_name, "-nue", world, "--mpi-spawn-ues", spare, "--timeout", 100, *extra,
                       *args, timeout=150)


@pytest.mark.parametrize("world", [2, 4])
def test_spawn_children_on_spare_ues(build, mpi, scratch, world):
    """world parents spawn as many children onto the spare UEs: data intact both ways over the
    intercommunicator and over the merged communicator; MPI_UNIVERSE_SIZE is the world plus the
    spare UEs; the children's traffic went through the MPB (their UEs' channel counters)."""
    parent, child = build_spawn_programs(mpi, scratch)
    job = Path(scratch) / "job"
    res = run_spawn(build, mpi, world, world, parent, world, BYTES, child, job=job)
    assert res.rc == lib.RC_OK, res
    assert f"spawn_parent: OK ({world} parents + {world} children, universe {2 * world})" in res.out, res
    assert f"spawn_child: OK ({world} children of {world} parents)" in res.out, res
    ues = json.loads((job / "summary.json").read_text())["ues"]
    assert len(ues) == 2 * world, ues
    for u in ues[world:]:  # every child sent its BYTES to a parent through its channel, and received as much
        assert u["mpi"]["bytes_sent"] >= BYTES and u["mpi"]["bytes_recv"] >= BYTES, u


def test_spawned_child_crash_is_reported(build, mpi, scratch):
    """A spawned rank that crashes ends the job, named by its rank in the spawned group, its UE and
    the core of that spare UE (the lowest cores the world does not use: 0 and 1); no spawned process
    survives the job."""
    parent, child = build_spawn_programs(mpi, scratch)
    child = unique_copy(child, scratch)
    res = run_spawn(build, mpi, 2, 2, "--cores", "10,11", parent, 2, 1000, child, 1)
    assert res.rc == lib.RC_UE_FAILED, res
    # The children claim the spare UEs in the order their wrappers get there: rank 1 on either.
    crash = "crashed: killed by signal 11 (Segmentation fault)"
    reports = {f"rccerun: spawned rank 1 (UE 2 on core 0) {crash}", f"rccerun: spawned rank 1 (UE 3 on core 1) {crash}"}
    assert len(reports & set(res.err_lines)) == 1, res
    assert_nothing_left(child.name)
    assert "spawn_parent: OK" not in res.out, res


def test_open_mpi_spawn_beyond_the_spare_ues_fails_in_mpi(build, scratch):
    """Spawning more ranks than there are spare UEs: MPI_Comm_spawn returns MPI_ERR_SPAWN (Open MPI's node
    has exactly as many slots as the job has UEs), which the program reports, and the job ends.  One
    parent: with more, Open MPI 4.1.4's other parents wait forever in MPI_Comm_spawn for the root that
    failed (also over its own vader transport, without OpenSCC; docs/mpi.md "Limits")."""
    require(build, "openmpi")
    parent, child = build_spawn_programs("openmpi", scratch)
    res = lib.rccerun(build, "--mpi", "openmpi", "-nue", 1, "--mpi-spawn-ues", 2, "--timeout", 20, parent, 3, 1000,
                      child, timeout=100)
    assert "spawn_parent: MPI_Comm_spawn of 3 children failed: MPI_ERR_SPAWN: could not spawn processes" \
           in res.out, res
    assert res.rc == lib.RC_UE_FAILED, res


def test_open_mpi_spawn_without_spare_ues_fails_in_mpi(build, scratch):
    """Without --mpi-spawn-ues the universe is the world: nothing can be spawned, and MPI_Comm_spawn says so."""
    require(build, "openmpi")
    parent, child = build_spawn_programs("openmpi", scratch)
    res = lib.rccerun(build, "--mpi", "openmpi", "-nue", 1, "--timeout", 60, parent, 1, 1000, child, timeout=100)
    assert "spawn_parent: MPI_Comm_spawn of 1 children failed: MPI_ERR_SPAWN: could not spawn processes" \
           in res.out, res
    assert res.rc == lib.RC_UE_FAILED, res  # spawn_parent exits 3


def test_mpich_spawn_beyond_the_spare_ues_ends_the_job(build, scratch):
    """MPICH's hydra knows no slots: the spawned rank that finds every spare UE taken says so and is
    killed (so that hydra ends the job), and the job fails instead of hanging."""
    require(build, "mpich")
    parent, child = build_spawn_programs("mpich", scratch)
    res = run_spawn(build, "mpich", 2, 2, parent, 3, 1000, child)
    assert res.rc == lib.RC_UE_FAILED, res
    assert any(re.fullmatch(r"openscc-rank: spawned rank [0-2] finds no free UE: the job's 2 spare UEs "
                            r"\(rccerun --mpi-spawn-ues 2\) are taken", ln) for ln in res.err_lines), res
    assert "spawn_parent: OK" not in res.out, res


def test_mpich_spawn_without_spare_ues_says_why(build, scratch):
    """Without --mpi-spawn-ues, hydra starts the child itself, outside any UE: the provider tells it why it
    cannot serve (MPICH's own error says only that no provider was found), and the job fails."""
    require(build, "mpich")
    parent, child = build_spawn_programs("mpich", scratch)
    res = lib.rccerun(build, "--mpi", "mpich", "-nue", 1, "--timeout", 60, parent, 1, 1000, child, timeout=100)
    # Either hydra ends the job for the child's abort first, or rccerun sees the parent wait for ever.
    assert res.rc in (lib.RC_UE_FAILED, lib.RC_DEADLOCK), res
    assert any(re.fullmatch(r"openscc provider: process \d+ runs inside an rccerun --mpi job but is none of its UEs: "
                            r"a process MPI_Comm_spawn starts needs a spare UE \(rccerun --mpi-spawn-ues N\)", ln)
               for ln in res.err_lines), res
    assert "spawn_parent: OK" not in res.out, res


@pytest.mark.parametrize("mpi_name, nranks", [("openmpi", 2), ("openmpi", 4), ("mpich", 2), ("mpich", 4), ("mpich", 8)])
def test_connect_accept(build, scratch, mpi_name, nranks):
    """Two halves of a job: one opens a port and accepts, the other connects; data intact over the
    intercommunicator and the merged communicator."""
    require(build, mpi_name)
    prog = mpi_program(mpi_name, "connect_accept", scratch)
    res = lib.rccerun(build, "--mpi", mpi_name, "-nue", nranks, "--timeout", 20, prog, BYTES, timeout=100)
    assert res.rc == lib.RC_OK, res
    assert f"connect_accept: OK ({nranks // 2} accepted + {nranks // 2} connected)" in res.out, res


def test_spawn_ues_need_mpi(build):
    res = lib.rccerun(build, "-nue", 2, "--mpi-spawn-ues", 2, build.app("hello"))
    assert res.rc == 2 and res.err_lines == [
        "rccerun: --mpi-spawn-ues applies to MPI jobs only: give --mpi openmpi or --mpi mpich too",
        "(see rccerun --help)"], res


def test_spawn_ues_must_fit_the_chip(build):
    res = lib.rccerun(build, "--mpi", "openmpi", "-nue", 40, "--mpi-spawn-ues", 9, build.app("hello"))
    assert res.rc == 2 and res.err_lines == [
        "rccerun: 40 UEs and 9 spare UEs (--mpi-spawn-ues) do not fit chip 'scc' with 48 cores",
        "(see rccerun --help)"], res

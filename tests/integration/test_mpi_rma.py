"""One-sided operations through the openscc provider (docs/mpi-provider.md "One-sided operations"):
FI_RMA and FI_ATOMIC as active messages through the channel, driven directly (tests/mpi/fi_provider.c)
and by the MPI libraries (MPICH 5's native ch4:ofi RMA; Open MPI's osc rdma over btl ofi is not used: docs/mpi-provider.md), whose operations must reach the provider, not go around it."""
from __future__ import annotations

from pathlib import Path

import pytest

import openscc_testlib as lib
from test_mpi_launch import mpi, mpi_program, require  # noqa: F401 (mpi: the fixture)
from test_mpi_provider import fi_provider, run_scenario  # noqa: F401 (fi_provider: the fixture)


def test_reads_and_writes(build, fi_provider, scratch):
    """fi_write then fi_read (not waited for in between: read after write is ordered) of 0 B..1 MiB
    come back intact; fi_writemsg/fi_readmsg over 3 local and 2 remote pieces; fi_inject_write counted
    by the write counter; the same to the UE itself; a completed write is in the target's memory
    (delivery complete)."""
    res = run_scenario(build, fi_provider, "rma", scratch)
    assert res.rc == lib.RC_OK, res
    assert "fi_provider rma: OK" in res.out, res


def test_every_atomic_against_a_sequential_reference(build, fi_provider, scratch):
    """Every datatype x operation of fi_atomic, fi_fetch_atomic and fi_compare_atomic: the validity
    queries and fi_query_atomic match the documented table, each valid one gives the reference's
    result and old values, the others are refused with -FI_EOPNOTSUPP."""
    res = run_scenario(build, fi_provider, "atomic", scratch)
    assert res.rc == lib.RC_OK, res
    # 8 integer types take 11 + 12 + 7 operations, 3 real ones 5 + 6 + 6, 3 complex ones 3 + 4 + 2
    assert "fi_provider atomic: 318 combinations checked" in res.out, res
    assert "fi_provider atomic: OK" in res.out, res


def test_refused_accesses_complete_with_errors(build, fi_provider, scratch):
    """An unknown key gives an FI_EINVAL error completion, an access beyond the region or to a region
    without the right an FI_EACCES one, each counted as the counter's error; malformed calls are
    refused at once (-FI_EOPNOTSUPP, -FI_EMSGSIZE, -FI_EINVAL), duplicate keys with -FI_ENOKEY."""
    res = run_scenario(build, fi_provider, "rma-errors", scratch)
    assert res.rc == lib.RC_OK, res
    assert "fi_provider rma-errors: OK" in res.out, res


def rma_counts(job: Path) -> list[tuple[int, int]]:
    doc = lib.check_summary(job / "summary.json")
    return [(ue["mpi"]["rma_requests"], ue["mpi"]["rma_served"]) for ue in doc["ues"]]


@pytest.mark.parametrize("run", range(5))
def test_mpich_puts_and_gets_use_the_provider(build, scratch, run):
    """tests/mpi/stress.c at 8 ranks under MPICH (its one-sided part: put, get and accumulate under
    fences, PSCW, fetch-and-op, compare-and-swap and exclusive read-modify-write under passive locks,
    lock_all), run repeatedly: correct results, every rank issued one-sided requests to the provider
    (MPICH's native RMA), and every request was served exactly once (the job's requests and served
    counts are equal)."""
    require(build, "mpich")
    prog = mpi_program("mpich", "stress", scratch)
    job = Path(scratch) / f"job{run}"
    res = lib.rccerun(build, "--mpi", "mpich", "-nue", 8, "--trace", "counters", "--job-dir", job, prog, 65536)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (8 ranks, up to 65536 bytes)" in res.out, res
    counts = rma_counts(job)
    assert all(requests > 0 for requests, _ in counts), counts
    assert sum(r for r, _ in counts) == sum(s for _, s in counts), counts


def test_passive_target_waits_for_a_computing_rank(build, mpi, scratch):
    """tests/mpi/rma_passive.c at 4 ranks: rank 0 computes outside MPI for 2.5 s while the others lock
    its window exclusively, put, fetch-and-add and compare-and-swap; the operations complete when rank 0
    next calls MPI (MPICH: the provider's RMA, served by rank 0's progress), with the right results and
    no deadlock reported for the ranks waiting meanwhile."""
    prog = mpi_program(mpi, "rma_passive", scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 4, prog)
    assert res.rc == lib.RC_OK, res
    assert "rma_passive: OK (4 ranks)" in res.out, res

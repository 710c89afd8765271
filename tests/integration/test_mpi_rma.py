"""One-sided operations through the openscc provider (docs/mpi-provider.md "One-sided operations"):
FI_RMA and FI_ATOMIC as active messages through the channel, driven directly (tests/mpi/fi_provider.c)
and by the MPI libraries (MPICH 5's native ch4:ofi RMA and atomics; Open MPI's osc rdma over btl ofi is
not used: docs/mpi.md "Limits"), whose operations must reach the provider, not go around it."""
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
    queries and fi_query_atomic match the documented table (every class takes every operation of its
    datatype), each valid one gives the reference's result and old values (compare values zero in the
    classes that carry none), the others are refused with -FI_EOPNOTSUPP."""
    res = run_scenario(build, fi_provider, "atomic", scratch)
    assert res.rc == lib.RC_OK, res
    # in each of the 3 classes: 8 integer types take 19 operations, 3 real ones 12, 3 complex ones 6
    assert "fi_provider atomic: 618 combinations checked" in res.out, res
    assert "fi_provider atomic: OK" in res.out, res


def test_refused_accesses_complete_with_errors(build, fi_provider, scratch):
    """An unknown key gives an FI_EINVAL error completion, an access beyond the region or to a region
    without the right an FI_EACCES one, each counted as the counter's error; malformed calls are
    refused at once (-FI_EOPNOTSUPP, -FI_EMSGSIZE, -FI_EINVAL), duplicate keys with -FI_ENOKEY. A
    region registered FI_REMOTE_READ only, on a page mapped read-only, serves fi_read and the
    ATOMIC_READs of fi_fetch_atomic (the value) and fi_atomic (no store)."""
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


def atomics_requests(np: int, rounds: int) -> list[int]:
    """The one-sided requests each rank of tests/mpi/rma_atomics.c sends when every atomic is one
    request to the provider: per round and synchronisation 2 accumulates, a fetch-and-op, a
    compare-and-swap and a get-accumulate; the last rank also reads the window once per check."""
    per_rank = rounds * 3 * 5
    return [per_rank] * (np - 1) + [per_rank + rounds * 3]


@pytest.mark.parametrize("np", [2, 8])
def test_mpich_atomics_use_the_provider(build, scratch, np):
    """tests/mpi/rma_atomics.c under MPICH: MPI_Accumulate (MPI_SUM, MPI_MAX), MPI_Fetch_and_op,
    MPI_Compare_and_swap and MPI_Get_accumulate (MPI_SUM, MPI_NO_OP), all ranks at rank 0's window at
    once, under fences, lock/unlock and lock_all/flush: atomic results (sums whole, each old value
    fetched once, one compare-and-swap winner), and each of those calls was exactly one request to the
    provider's FI_ATOMIC (MPICH's native atomics, not its active-message fallback, which sends no
    one-sided request), each served once by rank 0."""
    require(build, "mpich")
    prog = mpi_program("mpich", "rma_atomics", scratch)
    job = Path(scratch) / "job"
    res = lib.rccerun(build, "--mpi", "mpich", "-nue", np, "--trace", "counters", "--job-dir", job, prog, 2)
    assert res.rc == lib.RC_OK, res
    assert f"rma_atomics: OK ({np} ranks, 2 rounds)" in res.out, res
    counts = rma_counts(job)
    assert [requests for requests, _ in counts] == atomics_requests(np, 2), counts
    assert [served for _, served in counts] == [sum(atomics_requests(np, 2))] + [0] * (np - 1), counts


@pytest.mark.parametrize("np", [2, 8])
def test_openmpi_atomics_are_atomic(build, scratch, np):
    """tests/mpi/rma_atomics.c under Open MPI (osc pt2pt: one-sided as messages through the provider,
    docs/mpi.md "Limits"): the same atomic results at 2 and 8 ranks."""
    require(build, "openmpi")
    prog = mpi_program("openmpi", "rma_atomics", scratch)
    res = lib.rccerun(build, "--mpi", "openmpi", "-nue", np, prog, 2)
    assert res.rc == lib.RC_OK, res
    assert f"rma_atomics: OK ({np} ranks, 2 rounds)" in res.out, res


def test_rma_atomics_refuses_a_bad_round_count(build, mpi, scratch):
    """tests/mpi/rma_atomics.c with ROUNDS 0: a precise message and exit status 2 (no window), which
    rccerun reports as a failed rank."""
    prog = mpi_program(mpi, "rma_atomics", scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, prog, 0)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "rma_atomics: ROUNDS must be a positive number, not '0'" in res.err, res
    assert "exited with status 2" in res.err, res


def test_passive_target_waits_for_a_computing_rank(build, mpi, scratch):
    """tests/mpi/rma_passive.c at 4 ranks: rank 0 computes outside MPI for 2.5 s while the others lock
    its window exclusively, put, fetch-and-add and compare-and-swap; the operations complete when rank 0
    next calls MPI (MPICH: the provider's RMA, served by rank 0's progress), with the right results and
    no deadlock reported for the ranks waiting meanwhile."""
    prog = mpi_program(mpi, "rma_passive", scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 4, prog)
    assert res.rc == lib.RC_OK, res
    assert "rma_passive: OK (4 ranks)" in res.out, res

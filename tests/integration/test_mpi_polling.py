"""How the provider treats a program's own polling and a sender that leaves MPI right after a short
send (docs/mpi-provider.md "Progress and waiting", docs/mpi-channel.md "Waiting"), on both MPIs:
- tests/mpi/poll_work.c: ranks that poll MPI_Testany/MPI_Test between steps of their own work
  (HPCC's MPIRandomAccess pattern), then poll MPI_Test with their own 3 s deadline.  Before: every
  poll napped 20 ms, the updates crawled, and the launcher reported a deadlock in both phases.
- tests/mpi/comm_churn.c: rank 0 makes communicators of MPI_COMM_SELF alone while the others wait
  in a communicator call (ScaLAPACK's tests on a 1x1 grid).  Before: Open MPI's context-id agreement
  takes one empty progress call per step, each napped 20 ms, and the launcher reported a deadlock.
- tests/mpi/inject_away.c: two short (injected) sends, the second while the receiver's EWS still
  holds the first, then the sender waits outside MPI.  Before: the second packet stayed queued in
  the sender's provider and the receiver waited for it forever."""
from __future__ import annotations

from pathlib import Path

import openscc_testlib as lib
from test_mpi_launch import mpi, mpi_program  # noqa: F401 (mpi: the fixture over both libraries)


def test_program_polls_are_neither_slowed_nor_a_deadlock(build, mpi, scratch):
    """4 ranks make 20000 updates each, polling between every two; then every rank polls a receive
    nobody sends to for 3 s of its own time: all updates arrive (count and sum), and no deadlock is
    reported."""
    prog = mpi_program(mpi, "poll_work", scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 4, "--timeout", 60, prog, 20000, 3, timeout=100)
    assert res.rc == lib.RC_OK, res
    assert "poll_work: OK (20000 updates on 4 ranks, polled 3 s)" in res.out, res


def test_a_rank_making_communicators_alone_is_no_deadlock(build, mpi, scratch):
    """3 rounds: rank 0 makes 100 communicators of MPI_COMM_SELF while ranks 1-3 wait in the round's
    MPI_Comm_split/create/dup; every new communicator has the right members, and the job ends well
    (Open MPI's rank 0 polls the provider hundreds of times in a row finding nothing)."""
    prog = mpi_program(mpi, "comm_churn", scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 4, "--timeout", 60, prog, 3, 100, timeout=100)
    assert res.rc == lib.RC_OK, res
    assert "comm_churn: OK (3 communicators on 4 ranks)" in res.out, res
    assert "deadlock" not in res.err, res


def test_queued_short_send_leaves_while_the_sender_is_away(build, mpi, scratch):
    """The sender's second short message leaves its provider although the sender never calls MPI
    again before the receiver has it (3 runs)."""
    prog = mpi_program(mpi, "inject_away", scratch)
    for run in range(3):
        marker = Path(scratch) / f"inject_away.{run}"
        res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, "--timeout", 60, prog, marker, timeout=100)
        assert res.rc == lib.RC_OK, res
        assert "inject_away: OK" in res.out, res

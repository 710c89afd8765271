"""Native single copy of large payloads in the MPI channel (docs/mpi-channel.md "Single copy"): the
receiver copies a large payload straight from the sender's buffers, while the MPB carries the
rendezvous round; `--no-single-copy` moves everything in rounds through the MPB; model mode always
does.  Both ways, every byte arrives intact and is counted as before (the refused-copy fallback is
covered by tests/unit/test_mpi_channel.c, which can make the kernel refuse).  A sender that takes its
buffers back before the receiver claimed the copy withdraws it, and the payload follows in rounds."""
from __future__ import annotations

from pathlib import Path

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun
from test_mpi import CHANNELS, bench_program, matrix_bytes
from test_mpi_launch import mpi, mpi_program  # noqa: F401 (mpi: the fixture)
from test_mpi_provider import fi_provider, run_scenario  # noqa: F401 (fi_provider: the fixture)

COPY_OFF = ("--no-single-copy",)


def job_summary(build, mpi, scratch, name, *args) -> dict:
    job = Path(scratch) / name
    res = rccerun(build, "--mpi", mpi, "--job-dir", job, *args, timeout=lib.HARD_TIMEOUT)
    assert res.rc == lib.RC_OK, res
    return {"res": res, "summary": lib.check_summary(job / "summary.json"), "matrix": matrix_bytes(job)}


@pytest.mark.parametrize("channel", CHANNELS)
def test_large_messages_intact_with_and_without_single_copy(build, mpi, scratch, channel):
    """tests/mpi/stress.c, point-to-point 0 B..4 MiB (and everything else it checks) at 2 ranks: intact
    by single copy and through the MPB alone; the single copies replace the rounds of the large
    payloads, and the packets and bytes counted (mpi.ue statistics, comm_matrix.csv) are the same."""
    prog = mpi_program(mpi, "stress", scratch)
    runs = {}
    for label, extra in (("copy", ()), ("mpb", COPY_OFF)):
        runs[label] = job_summary(build, mpi, scratch, label, "-nue", 2, "--mpi-channel", channel, "--trace",
                                  "targets", *extra, prog, 4 << 20)
        assert f"stress: OK (2 ranks, up to {4 << 20} bytes)" in runs[label]["res"].out, runs[label]["res"]
    copy, mpb = (runs[k]["summary"] for k in ("copy", "mpb"))
    assert copy["job"]["single_copy"] is True and mpb["job"]["single_copy"] is False, (copy["job"], mpb["job"])
    for u in (0, 1):
        c, m = copy["ues"][u]["mpi"], mpb["ues"][u]["mpi"]
        # 4 MiB through the MPB takes at least 4 MiB / (48 + 4096) B rounds each way, a single copy one
        assert m["rounds_sent"] >= (4 << 20) // 4144 and c["rounds_sent"] < m["rounds_sent"] / 10, (c, m)
    # Open MPI's and MPICH's own traffic (wire-up, collectives' control) may differ between the runs by
    # a few packets: the payload both carried is the same to within that.
    for pair in ((0, 1), (1, 0)):
        a, b = runs["copy"]["matrix"][pair], runs["mpb"]["matrix"][pair]
        assert abs(a - b) <= 65536, (pair, a, b)


def test_model_mode_moves_payloads_through_the_mpb(build, mpi, scratch):
    """Model mode charges the MPB rounds: single copy allowed or not, a 64 KiB ping-pong takes the same
    rounds through the MPB."""
    prog = bench_program(mpi, scratch)
    rounds = []
    for label, extra in (("copy", ()), ("mpb", COPY_OFF)):
        s = job_summary(build, mpi, scratch, label, "-nue", 2, "--model", "scc", "--trace", "targets", *extra, prog,
                        "latency", 65536, 5)
        rounds.append([u["mpi"]["rounds_sent"] for u in s["summary"]["ues"]])
    # 5 warm-up and 5 timed round trips: 10 payloads each way, at most 48 + 4096 bytes per round
    assert rounds[0] == rounds[1] and min(rounds[0]) >= 10 * 65536 // 4144, rounds


def test_close_withdraws_an_unclaimed_single_copy(build, fi_provider, scratch):
    """tests/mpi/fi_provider.c withdraw: UE 0 closes the endpoint of a 4 MiB in-place send whose
    rendezvous is in the MPB while UE 1 stays out of the provider (files in the working directory
    order the two without it), then overwrites the buffer.  The close withdraws the copy through the descriptor's claim
    word (docs/mpi-channel.md "Single copy"), so UE 1 never reads the buffer given back: the payload
    arrives intact in rounds through the MPB.  Before, the close waited 1 s for a copy that could
    not come, then gave the buffer back with the rendezvous still there to be copied (one round).
    Three runs."""
    for run in range(3):
        job = Path(scratch) / f"withdraw{run}"
        res = run_scenario(build, fi_provider, "withdraw", scratch, "--job-dir", job, "--trace", "counters")
        assert res.rc == lib.RC_OK, res
        assert "fi_provider withdraw: OK" in res.out, res
        sent = lib.check_summary(job / "summary.json")["ues"][0]["mpi"]["rounds_sent"]
        # the rendezvous, then 4 MiB in rounds of at most 48 + 4096 bytes
        assert sent >= (4 << 20) // 4144, sent

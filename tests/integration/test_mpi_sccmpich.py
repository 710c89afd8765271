"""`rccerun --mpi-channel sccmpich|sccmpich-normal`: SCC-MPICH's short, eager and rendezvous
protocols over the MPB (docs/mpi-channel.md "sccmpich"), under unmodified MPI programs on both
MPI libraries.  The checks of test_mpi.py run here with this channel (its test functions take the
channel as a parameter); the rest is what only this channel has."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import openscc_testlib as lib
import test_mpi
from test_mpi_launch import mpi, mpi_program, require  # noqa: F401 (mpi: the fixture)
from test_mpi_provider import fi_provider  # noqa: F401 (the fixture)


@pytest.mark.parametrize("nranks, channel", [(2, "sccmpich"), (8, "sccmpich"), (2, "sccmpich-normal")])
def test_stress(build, mpi, scratch, nranks, channel):
    """Point-to-point 0 B..1 MiB (short, eager and rendezvous packets), any-source, probes, every
    collective, communicators, datatypes and one-sided operations, each checked by the program."""
    test_mpi.test_stress(build, mpi, scratch, nranks, channel)


def test_stress_48_ranks(build, mpi, scratch):
    """48 ranks: 96 bytes of flags per peer leave a 32-byte eager slot per sender and a 2 KB
    rendezvous buffer per receiver, granted to one sender at a time."""
    test_mpi.only_release(build)
    prog = mpi_program(mpi, "stress", scratch)
    res = test_mpi.run_mpi(build, mpi, 48, "--mpi-channel", "sccmpich", prog, 65536, timeout=300)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (48 ranks, up to 65536 bytes)" in res.out, res


def test_payload_travels_through_the_mpb(build, mpi, scratch):
    """No bypass: 64 KiB messages (rendezvous) account for the program's payload in comm_matrix.csv."""
    test_mpi.test_payload_travels_through_the_mpb(build, mpi, scratch, "sccmpich")


def test_model_mode(build, mpi, scratch):
    test_mpi.test_model_mode(build, mpi, scratch, "sccmpich")


def channel_statistics(build, mpi, scratch, channel: str, size: int, iters: int) -> list[dict]:
    """Each UE's channel statistics (summary.json) after an mpi_bench ping-pong of `size` bytes."""
    job = Path(scratch) / f"job-{channel}-{size}"
    res = test_mpi.run_mpi(build, mpi, 2, "--mpi-channel", channel, "--trace", "targets", "--job-dir", job,
                           test_mpi.bench_program(mpi, scratch), "latency", size, iters)
    assert res.rc == lib.RC_OK, res
    return [u["mpi"] for u in json.loads((job / "summary.json").read_text())["ues"]]


def test_protocols_by_length(build, mpi, scratch):
    """Tagged flags carry every short packet whole: one round per packet.  64 KiB messages go by
    rendezvous: a request-to-send, then chunks of at most 2016 bytes (half the rendezvous buffer at 2
    UEs); no round carries more than the flag's 60 bytes and a 1984-byte eager slot."""
    for u in channel_statistics(build, mpi, scratch, "sccmpich", 8, 50):
        assert u["packets_sent"] > 0 and u["rounds_sent"] == u["packets_sent"], u
        assert u["gews_rounds"] == 0 and u["gews_chunks"] == 0, u
    for u in channel_statistics(build, mpi, scratch, "sccmpich", 65536, 5):
        assert u["bytes_sent"] > 5 * 65536 and u["rounds_sent"] >= u["bytes_sent"] / 2044, u


SMALL_MPB_CHIP = "base = scc\nname = scc-1k-mpb\nmpb_bytes_per_core = 1024\n"


def small_mpb_chip(scratch) -> Path:
    chip = Path(scratch) / "small-mpb.chip"
    chip.write_text(SMALL_MPB_CHIP)
    return chip


def test_stress_with_no_room_for_eager_slots(build, mpi, scratch):
    """A 1 KB MPB at 10 UEs: 960 bytes of flags leave no eager slot and 32-byte rendezvous halves, so
    everything beyond a tagged flag's 28 bytes goes by rendezvous, one line per chunk."""
    prog = mpi_program(mpi, "stress", scratch)
    res = test_mpi.run_mpi(build, mpi, 10, "--chip", small_mpb_chip(scratch), "--mpi-channel", "sccmpich", prog,
                           4096, timeout=300)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (10 ranks, up to 4096 bytes)" in res.out, res


def test_layout_that_does_not_fit_fails_the_job(build, mpi, scratch):
    """11 UEs on a 1 KB MPB: 1056 bytes of flags alone; rccerun refuses the job with the channel's reason
    before any rank starts."""
    prog = mpi_program(mpi, "stress", scratch)
    res = test_mpi.run_mpi(build, mpi, 11, "--chip", small_mpb_chip(scratch), "--mpi-channel", "sccmpich",
                           "--timeout", 120, prog, 1024)
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith(
        "rccerun: the sccmpich channel needs 1120 bytes of MPB per core for 11 UEs (96 bytes of flags per UE and a "
        "2-line rendezvous buffer); this chip has 1024; use fewer UEs or a chip with a larger MPB"), res
    assert res.out == "", res


@pytest.mark.parametrize("scenario, gone", [("owner-finishes", "finished"), ("owner-exits", "exited")])
def test_rendezvous_buffer_outlives_its_owner(build, fi_provider, scratch, scenario, gone):
    """tests/mpi/fi_provider.c at 3 UEs: UE 0 grants its rendezvous buffer to UE 1's 64 KiB send, and
    UE 1 leaves with it: it closes its fabric, which gives up on the send after 5 s (UE 0 took
    nothing meanwhile), or exits without closing it.  UE 2's 64 KiB send to UE 0 then waits for the
    buffer: UE 0 takes it back from UE 1 (finished: marked so by its provider; exited: its process
    is gone) and UE 2's message arrives intact (before: UE 2 and UE 0 waited forever, ended as a
    deadlock)."""
    require(build, "openmpi")
    res = lib.rccerun(build, "--mpi", "openmpi", "-nue", 3, "--mpi-channel", "sccmpich", "--timeout", 120,
                      fi_provider, scenario, cwd=scratch)
    assert res.rc == lib.RC_OK, res
    assert f"fi_provider {scenario}: OK" in res.out, res
    assert (f"openscc mpi channel: UE 0: UE 1 {gone} while holding this UE's rendezvous buffer (52 of its "
            "65568-byte packet received): the packet is dropped and the buffer goes to UE 2, the next sender "
            "waiting") in res.err_lines, res

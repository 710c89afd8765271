"""Unmodified MPI programs on the emulated SCC (docs/mpi.md): built with each MPI library's own
compiler wrapper, run with `rccerun --mpi openmpi|mpich`, every byte between ranks through
OpenSCC's libfabric provider and the SCC channel protocols over the MPB.  The programs in
tests/mpi/ and apps/mpi/ are ordinary MPI programs that check their own results."""
from __future__ import annotations

import contextlib
import csv
import os
import shutil
from pathlib import Path

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun
from test_mpi_launch import mpi, mpi_program, mpich_prefix, require  # noqa: F401 (mpi: the fixture)

CHANNELS = ("rckmpi", "rckmpi-original")
MPI_DIR = lib.REPO / "tests" / "mpi"


def built_with_mpicc(mpi: str, source: Path, scratch) -> Path:
    """A program of the repository built with the MPI library's own mpicc, as users build theirs."""
    return mpi_program(mpi, source.stem, scratch, source)


def app_program(mpi: str, scratch) -> Path:
    return built_with_mpicc(mpi, lib.REPO / "apps" / "mpi" / "hda_star.c", scratch)


def bench_program(mpi: str, scratch) -> Path:
    return built_with_mpicc(mpi, lib.REPO / "bench" / "mpi" / "mpi_bench.c", scratch)


def run_mpi(build, mpi, nranks, *args, timeout=lib.HARD_TIMEOUT):
    return rccerun(build, "--mpi", mpi, "-nue", nranks, *args, timeout=timeout)


def only_release(build) -> None:
    """The 48-rank runs take long on a 2-CPU host; the provider is the same (unsanitised) object in
    both builds, so they run once, on the Release build."""
    if build.asan:
        pytest.skip("48 ranks: Release build only")


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("nranks", [2, 8])
def test_stress(build, mpi, scratch, nranks, channel):
    """Point-to-point 0 B..1 MiB, any-source, probes, every collective, communicators, datatypes and
    one-sided operations, each checked by the program."""
    prog = mpi_program(mpi, "stress", scratch)
    res = run_mpi(build, mpi, nranks, "--mpi-channel", channel, prog, 1 << 20)
    assert res.rc == lib.RC_OK, res
    assert f"stress: OK ({nranks} ranks, up to {1 << 20} bytes)" in res.out, res


def test_stress_48_ranks(build, mpi, scratch):
    only_release(build)
    prog = mpi_program(mpi, "stress", scratch)
    res = run_mpi(build, mpi, 48, prog, 65536, timeout=300)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (48 ranks, up to 65536 bytes)" in res.out, res


@pytest.mark.parametrize("nranks, channel", [(64, "rckmpi"), (96, "rckmpi-original")])
def test_stress_across_two_boards(build, mpi, scratch, nranks, channel):
    """[SCC-2BOARD]'s one MPI session over two boards on one host (rccerun --boards 2): every byte between
    the boards through the other board's MPB; the stress program checks what arrives."""
    only_release(build)
    prog = mpi_program(mpi, "stress", scratch)
    res = run_mpi(build, mpi, nranks, "--boards", 2, "--mpi-channel", channel, prog, 65536, timeout=600)
    assert res.rc == lib.RC_OK, res
    assert f"stress: OK ({nranks} ranks, up to 65536 bytes)" in res.out, res


@pytest.mark.parametrize("channel, needs", [("rckmpi", 10240), ("sccmpich", 9280)])
def test_a_channel_that_cannot_fit_is_refused_before_any_rank_starts(build, mpi, scratch, channel, needs):
    """96 UEs on two boards: the rckmpi and sccmpich layouts need more than the SCC's 8 KB of MPB per core;
    rccerun says so once, with the remedy, and starts nothing (no rank prints the provider's error)."""
    res = run_mpi(build, mpi, 96, "--boards", 2, "--mpi-channel", channel, mpi_program(mpi, "stress", scratch))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith(f"rccerun: the {channel} channel needs {needs} bytes of MPB per core for 96 UEs"), res
    assert "openscc provider" not in res.err and res.out == "", res


def test_stress_4_mib(build, mpi, scratch):
    prog = mpi_program(mpi, "stress", scratch)
    res = run_mpi(build, mpi, 2, prog, 4 << 20)
    assert res.rc == lib.RC_OK, res
    assert f"stress: OK (2 ranks, up to {4 << 20} bytes)" in res.out, res


@pytest.mark.parametrize("nranks", [2, 8])
def test_mpi4py_numpy(build, mpi, nranks):
    python = mpich_prefix() / "bin" / "python"
    if not os.access(python, os.X_OK):
        pytest.skip(f"no project venv python at {python} (scripts/install-deps.sh)")
    res = run_mpi(build, mpi, nranks, python, MPI_DIR / "numpy_ring.py")
    assert res.rc == lib.RC_OK, res
    assert f"numpy_ring: OK ({nranks} ranks)" in res.out, res


@pytest.mark.parametrize("nranks", [2, 8])
def test_fortran(build, scratch, nranks):
    require(build, "openmpi")
    mpif90 = shutil.which("mpif90.openmpi")
    if not mpif90:
        pytest.skip("no mpif90.openmpi (gfortran: scripts/install-deps.sh)")
    prog = Path(scratch) / "ring"
    built = lib.run([mpif90, "-O2", MPI_DIR / "ring.f90", "-o", prog])
    assert built.rc == 0, built
    res = run_mpi(build, "openmpi", nranks, prog)
    assert res.rc == lib.RC_OK, res
    assert f"ring.f90: OK ({nranks} ranks)" in res.out, res


def assert_hda_star_optimal(res, nranks: int) -> None:
    """The optimal length, found without expanding any node whose f exceeds it (the app's f bound)."""
    assert res.rc == lib.RC_OK, res
    assert f"on {nranks} ranks: 34 moves; sequential IDA*: 34 moves -> optimal" in res.out, res
    assert "largest f 34," in res.out, res


@pytest.mark.parametrize("nranks", [1, 3, 8])
def test_hda_star_finds_the_optimal_solution(build, mpi, scratch, nranks):
    """The example app ([AIPLAN-2011]'s hash-distributed search): any-source batches, Iprobe,
    non-blocking allreduces; rank 0 checks the length against a sequential IDA*."""
    res = run_mpi(build, mpi, nranks, app_program(mpi, scratch), 4, 40, 3)
    assert_hda_star_optimal(res, nranks)


@contextlib.contextmanager
def on_one_cpu():
    """Runs what this process starts meanwhile on one CPU (children inherit the affinity)."""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cpus)


def test_hda_star_stays_bounded_on_one_cpu(build, mpi, scratch):
    """Regression: with every rank time-sliced on one CPU, a rank whose low-f nodes lived on a
    descheduled rank raced through ever larger f layers (f up to 84 for this 34-move instance,
    millions of nodes, runs that outlived the timeout).  The waves' f bound keeps every run within
    the optimal f; repeated runs vary the interleaving."""
    prog = app_program(mpi, scratch)
    with on_one_cpu():
        for _ in range(8):
            assert_hda_star_optimal(run_mpi(build, mpi, 3, prog, 4, 40, 3), 3)


def test_hda_star_48_ranks(build, mpi, scratch):
    only_release(build)
    res = run_mpi(build, mpi, 48, app_program(mpi, scratch), 4, 40, 3, timeout=300)
    assert_hda_star_optimal(res, 48)


def matrix_bytes(job: Path) -> dict[tuple[int, int], int]:
    with open(job / "comm_matrix.csv") as f:
        return {(int(r["src"]), int(r["dst"])): int(r["bytes"]) for r in csv.DictReader(f)}


@pytest.mark.parametrize("channel", CHANNELS)
def test_payload_travels_through_the_mpb(build, mpi, scratch, channel):
    """No bypass: the bytes the channel carried between the two ranks (comm_matrix.csv, recorded
    by the channel for every packet) cover the program's payload both ways, and every rank's MPB
    counters saw them."""
    prog = bench_program(mpi, scratch)
    job = Path(scratch) / "job"
    size, iters = 65536, 20
    res = run_mpi(build, mpi, 2, "--mpi-channel", channel, "--trace", "targets", "--job-dir", job, prog, "latency",
                  size, iters)
    assert res.rc == lib.RC_OK, res
    moved = matrix_bytes(job)
    payload = size * (iters + 10)  # mpi_bench's 10 untimed warm-up round trips, then the timed ones
    for pair in ((0, 1), (1, 0)):
        assert moved.get(pair, 0) >= payload, (pair, moved)
        assert moved[pair] < payload * 1.1 + 65536, (pair, moved)  # headers and protocol, no more


def broken_provider_tree(build, scratch) -> Path:
    """A copy of the build's bin/ and lib/ whose provider objects are not loadable libraries."""
    tree = Path(scratch) / "broken"
    shutil.copytree(build.dir / "bin", tree / "bin", symlinks=True)
    for flavour in (1, 2):
        so = tree / "lib" / f"openscc-fi-{flavour}" / "libopenscc-fi.so"
        so.parent.mkdir(parents=True)
        so.write_bytes(b"not a shared object\n")
    return tree


def test_failing_provider_fails_the_job(build, mpi, scratch):
    """A rank whose MPI library cannot use the openscc provider must not fall back to another
    transport: the job fails."""
    tree = broken_provider_tree(build, scratch)
    prog = mpi_program(mpi, "stress", scratch)
    res = lib.run([tree / "bin" / "rccerun", "--mpi", mpi, "-nue", 2, "--timeout", 60, prog, 1024],
                  env=lib.base_env(build), cwd=scratch)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "stress: OK" not in res.out, res
    # The library says why (it found no usable transport), and rccerun names the failed rank.
    why = {"openmpi": "PML cm cannot be selected", "mpich": "OFI call getinfo failed"}[mpi]
    assert why in res.err, res
    assert any(ln.startswith("rccerun: rank ") and ("exited with status" in ln or "crashed" in ln)
               for ln in res.err_lines), res


@pytest.mark.parametrize("channel", CHANNELS)
def test_model_mode(build, mpi, scratch, channel):
    """--model scc: the ranks' virtual clocks advance with the channel's MPB traffic, and the job
    has an energy."""
    job = Path(scratch) / "job"
    res = run_mpi(build, mpi, 2, "--model", "scc", "--mpi-channel", channel, "--job-dir", job,
                  bench_program(mpi, scratch), "latency", 1024, 50)
    assert res.rc == lib.RC_OK, res
    s = lib.check_summary(job / "summary.json")
    assert s["job"]["model"] == "scc" and s["job"]["mpi_channel"] == channel, s["job"]
    assert all(u["seconds"] > 0 and u["comm_s"] > 0 for u in s["ues"]), s["ues"]
    assert s["chip_totals"]["energy_j"] > 0, s["chip_totals"]


UNEXPECTED_BACKLOG = r"""
#include <mpi.h>
#include <stdio.h>
/* Every rank but 0 sends PER messages to rank 0, which takes none of them until the barrier:
 * they all wait in rank 0's provider as unexpected messages.  Rank 0 then probes and receives
 * them one by one (no byte moves through the MPB meanwhile) while the others wait for it in
 * the second barrier. */
enum { PER = 30 };
int main(int argc, char **argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (me != 0)
    for (int i = 0; i < PER; i++) MPI_Send(&i, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int n = 0; me == 0 && n < (np - 1) * PER; n++) {
    MPI_Status st;
    int v = -1;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    if (v != st.MPI_TAG) {
      printf("backlog: message %d from rank %d holds %d, tag %d\n", n, st.MPI_SOURCE, v, st.MPI_TAG);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("backlog: OK (%d messages)\n", (np - 1) * PER);
  MPI_Finalize();
  return 0;
}
"""


def test_unexpected_backlog_is_not_a_deadlock(build, mpi, scratch):
    """A rank working through unexpected messages (served without the MPB) while every other rank
    waits for it is busy, not deadlocked: before the provider ended its idle stretch on every
    completion, it napped after each message as in one unbroken sleep, and rccerun reported a
    deadlock (every run at 4 ranks; `tests/mpi/stress.c` at 48 ranks, in MPI_Probe's fan-in)."""
    source = Path(scratch) / "backlog.c"
    source.write_text(UNEXPECTED_BACKLOG)
    res = run_mpi(build, mpi, 4, built_with_mpicc(mpi, source, scratch))
    assert res.rc == lib.RC_OK, res
    assert "backlog: OK (90 messages)" in res.out, res

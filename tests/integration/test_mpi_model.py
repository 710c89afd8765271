"""MPI programs in model mode (docs/mpi.md "Model mode"): MPI_Wtime is the rank's virtual clock
under --model and the library's host clock without it; counted builds of MPI programs
(`OPENSCC_CC=mpicc rccecc --model-build`) count their blocks in the provider's timing layer; the
SKaMPI-style benchmark apps/mpi/skampi.c runs on both channels."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import openscc_testlib as lib
from test_mpi_launch import mpi, mpi_program, mpich_prefix, require  # noqa: F401 (mpi: the fixture)

CHANNELS = ("rckmpi", "rckmpi-original")
VIRTUAL_TICK = 1e-12

# Each rank: MPI_Wtime at the start, an optional host pause (a sleep: no computation), ten
# ring exchanges, MPI_Wtime, PMPI_Wtime and MPI_Wtick; with "final", MPI_Wtime once more after
# MPI_Finalize (the virtual clock is frozen there, as RCCE_wtime's at RCCE_finalize).
WTIME_PROBE = r"""
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np, pause = 0, final = 0;
  for (int i = 1; i < argc; i++) {
    pause |= strcmp(argv[i], "pause") == 0;
    final |= strcmp(argv[i], "final") == 0;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  double t0 = MPI_Wtime();
  if (pause) nanosleep(&(struct timespec){0, 200000000}, NULL);
  static char out[4096], in[4096];
  for (int i = 0; i < 10; i++)
    MPI_Sendrecv(out, sizeof out, MPI_BYTE, (me + 1) % np, 0, in, sizeof in, MPI_BYTE, (me + np - 1) % np, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double t1 = MPI_Wtime(), p1 = PMPI_Wtime(), tick = MPI_Wtick();
  MPI_Finalize();
  printf("wtime rank=%d t0=%.12f t1=%.12f p1=%.12f final=%.12f tick=%g\n", me, t0, t1, p1,
         final ? MPI_Wtime() : 0.0, tick);
  return 0;
}
"""


def probe(mpi: str, scratch, counted_with: Path | None = None) -> Path:
    """WTIME_PROBE built with the library's mpicc, or counted with `OPENSCC_CC=mpicc rccecc --model-build`."""
    src = Path(scratch) / "wtime_probe.c"
    src.write_text(WTIME_PROBE)
    if counted_with is None:
        return mpi_program(mpi, "wtime_probe", scratch, src)
    return counted_program(counted_with, mpi, src, scratch)


def mpicc(mpi: str) -> str:
    return "mpicc.openmpi" if mpi == "openmpi" else str(mpich_prefix() / "bin" / "mpicc")


def counted_program(build, mpi: str, src: Path, scratch) -> Path:
    out = Path(scratch) / f"{src.stem}-{mpi}-counted"
    res = lib.run([build.rccecc, "--model-build", "-O2", src, "-o", out], env=lib.base_env(OPENSCC_CC=mpicc(mpi)))
    assert res.rc == 0, res
    return out


def wtimes(out: str) -> dict[int, dict[str, float]]:
    rows = {}
    for m in re.finditer(r"wtime rank=(\d+)((?: \w+=\S+)+)$", out, re.MULTILINE):
        rows[int(m[1])] = {k: float(v) for k, v in (kv.split("=") for kv in m[2].split())}
    return rows


def run_model(build, mpi, job: Path, prog: Path, *args):
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, "--model", "scc", "--job-dir", job, prog, *args)
    assert res.rc == lib.RC_OK, res
    return wtimes(res.out), lib.check_summary(job / "summary.json")


def test_wtime_is_the_virtual_clock(build, mpi, scratch):
    """Under --model a rank's MPI_Wtime and PMPI_Wtime read its virtual clock: after MPI_Finalize
    MPI_Wtime is the rank's end time in summary.json, to the picosecond the summary keeps; MPI_Wtick
    is the clock's picosecond."""
    times, summary = run_model(build, mpi, Path(scratch) / "job", probe(mpi, scratch), "final")
    assert sorted(times) == [0, 1], times
    for rank, t in times.items():
        seconds = summary["ues"][rank]["seconds"]
        assert t["final"] == pytest.approx(seconds, rel=1e-8, abs=1e-11), (t, seconds)
        assert 0 <= t["t0"] < t["t1"] <= t["p1"] <= t["final"], t
        assert t["tick"] == VIRTUAL_TICK, t


def test_wtime_is_host_time_without_model(build, mpi, scratch):
    """Without --model MPI_Wtime is the library's own clock: it sees the 0.2 s host pause, and
    MPI_Wtick is the library's."""
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, probe(mpi, scratch), "pause")
    assert res.rc == lib.RC_OK, res
    for t in wtimes(res.out).values():
        assert t["t1"] - t["t0"] >= 0.2 and t["tick"] != VIRTUAL_TICK, t


# Python and Fortran reach the virtual clock through the library's entry points: each rank prints
# its Wtime after a barrier and Wtick.
# One write per line (print writes the text and its newline separately when stdout is unbuffered,
# and the launcher may forward the two ranks' pieces interleaved).
WTIME_PY = """
import sys
from mpi4py import MPI
MPI.COMM_WORLD.Barrier()
sys.stdout.write(f"wtime rank={MPI.COMM_WORLD.Get_rank()} t1={MPI.Wtime():.12f} tick={MPI.Wtick()}\\n")
sys.stdout.flush()
"""
WTIME_F90 = """
program wtime_probe
  use mpi
  integer :: ierr, me
  double precision :: t1
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  t1 = MPI_WTIME()
  print '(A,I0,A,F0.12,A,ES11.5)', 'wtime rank=', me, ' t1=', t1, ' tick=', MPI_WTICK()
  call MPI_FINALIZE(ierr)
end program
"""


def assert_virtual(times: dict, summary: dict) -> None:
    assert sorted(times) == [0, 1], times
    for rank, t in times.items():
        assert 0 < t["t1"] <= summary["ues"][rank]["seconds"] and t["tick"] == VIRTUAL_TICK, (t, summary["ues"])


def test_mpi4py_wtime_is_virtual(build, mpi, scratch):
    python = mpich_prefix() / "bin" / "python"
    if not python.exists():
        pytest.skip(f"no project venv python at {python} (scripts/install-deps.sh)")
    script = Path(scratch) / "wtime_probe.py"
    script.write_text(WTIME_PY)
    assert_virtual(*run_model(build, mpi, Path(scratch) / "job", python, script))


def test_fortran_wtime_is_virtual(build, scratch):
    require(build, "openmpi")
    mpif90 = shutil.which("mpif90.openmpi")
    if not mpif90:
        pytest.skip("no mpif90.openmpi (gfortran: scripts/install-deps.sh)")
    src, prog = Path(scratch) / "wtime_probe.f90", Path(scratch) / "wtime_probe_f90"
    src.write_text(WTIME_F90)
    built = lib.run([mpif90, "-O2", src, "-o", prog])
    assert built.rc == 0, built
    assert_virtual(*run_model(build, "openmpi", Path(scratch) / "job", prog))


def test_counted_mpi_build(build, mpi, scratch):
    """`OPENSCC_CC=mpicc rccecc --model-build` builds an MPI program whose blocks the provider's
    timing layer counts (summary: computation "counted"): a host pause is no computation, so the
    virtual time between the two MPI_Wtime calls stays far below it; the same binary runs natively."""
    prog = probe(mpi, scratch, counted_with=build)
    times, summary = run_model(build, mpi, Path(scratch) / "job", prog, "pause", "final")
    assert summary["job"]["computation"] == "counted", summary["job"]
    for rank, t in times.items():
        assert t["t1"] - t["t0"] < 0.2 / 10, t  # ten ring exchanges, no 0.2 s of computation
        assert t["final"] == pytest.approx(summary["ues"][rank]["seconds"], rel=1e-8, abs=1e-11), t
    native = lib.rccerun(build, "--mpi", mpi, "-nue", 2, prog, "pause")
    assert native.rc == lib.RC_OK, native
    assert all(t["t1"] - t["t0"] >= 0.2 for t in wtimes(native.out).values()), native.out


# Rank 0 computes (counted: virtual time) and then sends; rank 1 waits in host time only (a sleep
# costs no virtual time in a counted build), so rank 0's round is in rank 1's MPB, stamped in rank
# 1's virtual future, before rank 1 sends its own message.
CAUSALITY_PROBE = r"""
#include <mpi.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  long out = me, in = -1;
  if (me == 0) {
    /* Rank 1 must be out of MPI_Init when this message lands: most likely, Open MPI's last MPI_Init step polls
       the provider while it waits for its PMIx fence, and a poll that finds nothing else to do takes
       the earliest round in the MPB (rck_after_wait), so rank 1's clock jumped to this send. */
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    volatile long sum = 0;
    for (long i = 0; i < 200000; i++) sum += i;
    double sent = MPI_Wtime();
    MPI_Send(&out, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("causality rank=0 sent=%.12f in=%ld\n", sent, in);
  } else {
    nanosleep(&(struct timespec){0, 500000000}, NULL);
    double t0 = MPI_Wtime();
    MPI_Send(&out, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    MPI_Recv(&in, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t2 = MPI_Wtime();
    printf("causality rank=1 t0=%.12f t1=%.12f t2=%.12f in=%ld\n", t0, t1, t2, in);
  }
  MPI_Finalize();
  return 0;
}
"""


def test_a_message_from_the_virtual_future_waits_for_its_time(build, mpi, scratch):
    """Ranks run in host order, not virtual-time order: a round already in the receiver's MPB but
    stamped after the receiver's clock counts only once the receiver waits (docs/mpi-channel.md,
    "Model mode: messages from the virtual future"). Rank 1's eager send, made while rank 0's
    message (sent at virtual time `sent`) already sits in its MPB, completes in its own time; its
    receive then ends after `sent`."""
    src = Path(scratch) / "causality_probe.c"
    src.write_text(CAUSALITY_PROBE)
    prog = counted_program(build, mpi, src, scratch)
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, "--model", "scc", prog)
    assert res.rc == lib.RC_OK, res
    rows = {int(m[1]): {k: float(v) for k, v in (kv.split("=") for kv in m[2].split())}
            for m in re.finditer(r"causality rank=(\d+)((?: \w+=\S+)+)$", res.out, re.MULTILINE)}
    assert rows[0]["in"] == 1 and rows[1]["in"] == 0, res.out
    sent, r1 = rows[0]["sent"], rows[1]
    assert r1["t0"] < sent / 4, rows  # rank 1 starts its send long before rank 0's
    assert r1["t1"] - r1["t0"] < (sent - r1["t0"]) / 4, rows  # ... and finishes it in its own time
    assert r1["t2"] > sent, rows  # the receive waits for the message's virtual arrival


def test_rccecc_mpi_showme(build):
    """With an MPI compiler wrapper rccecc links no librcce (and no sanitizer): a counted build links
    the no-op hooks the preloaded provider overrides."""
    env = lib.base_env(OPENSCC_CC="mpicc.openmpi")
    plain = lib.run([build.rccecc, "--showme"], env=env)
    counted = lib.run([build.rccecc, "--model-build", "--showme"], env=env)
    assert plain.rc == 0 and counted.rc == 0, (plain, counted)
    assert "-lrcce" not in plain.out and "-fsanitize=address" not in plain.out, plain.out
    assert counted.out.split()[-3:] == [f"-L{build.dir / 'lib'}", "-lopenscc-model-hooks",
                                        f"-Wl,-rpath,{build.dir / 'lib'}"], counted.out
    assert "-fsanitize-coverage=trace-pc" in counted.out, counted.out


SKAMPI_LINE = re.compile(r"skampi op=(\w+) size=(\d+) ranks=4 usec=([\d.]+)")


@pytest.mark.parametrize("channel", CHANNELS)
def test_skampi_in_model_mode(build, mpi, scratch, channel):
    """apps/mpi/skampi.c, counted, at 4 ranks on each channel: every operation checks the data it
    delivered and reports a positive virtual latency."""
    prog = counted_program(build, mpi, lib.REPO / "apps" / "mpi" / "skampi.c", scratch)
    job = Path(scratch) / "job"
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 4, "--model", "scc", "--mpi-channel", channel, "--job-dir", job,
                      prog, 2, "sendrecv", 16384, "gather", 1024, "scatter", 5792, "bcast", 1024, "barrier", 0)
    assert res.rc == lib.RC_OK, res
    got = [(m[1], int(m[2]), float(m[3])) for m in SKAMPI_LINE.finditer(res.out)]
    assert [(op, size) for op, size, _ in got] == [("sendrecv", 16384), ("gather", 1024), ("scatter", 5792),
                                                   ("bcast", 1024), ("barrier", 0)], res.out
    assert all(usec > 0 for _, _, usec in got), got
    assert lib.check_summary(job / "summary.json")["job"]["mpi_channel"] == channel


def test_skampi_rejects_bad_arguments(build, mpi, scratch):
    prog = mpi_program(mpi, "skampi", scratch, lib.REPO / "apps" / "mpi" / "skampi.c")
    res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, prog, 3, "allgather", 8)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "skampi: unknown OP" in res.err, res


# Rank 0 times four eager 8-byte sends (one message call each into the provider); rank 1 receives them.
SENDS_PROBE = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me;
  long v[4] = {0, 1, 2, 3};
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 4; i++) MPI_Send(&v[i], 1, MPI_LONG, 1, i, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    printf("sends seconds=%.12f\n", t1 - t0);
  } else {
    for (int i = 0; i < 4; i++) {
      long got = -1;
      MPI_Recv(&got, 1, MPI_LONG, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (got != i) printf("sends wrong %d: %ld\n", i, got);
    }
  }
  MPI_Finalize();
  return 0;
}
"""


def test_counted_build_charges_the_library_per_message_call(build, mpi, scratch):
    """A counted build charges the MPI library's own work (the chip key time_mpi_<library>_call_cycles,
    docs/model.md "The MPI library's own work") at each message call into the provider: four eager
    sends take 4 x the key's cycles more when the key grows, at the default 533 MHz tile clock, and the
    other library's key adds nothing. Both within a few microseconds, against 1.9 ms a call: the sends'
    MPB accesses meet rank 1's at other moments from run to run (contention and a free section follow
    the host's interleaving of the two ranks, docs/mpi-channel.md "Model mode")."""
    src = Path(scratch) / "sends_probe.c"
    src.write_text(SENDS_PROBE)
    prog = counted_program(build, mpi, src, scratch)
    other = "mpich" if mpi == "openmpi" else "openmpi"

    def seconds(**keys) -> float:
        chip = Path(scratch) / "library.chip"
        chip.write_text("base = scc\n" + "".join(f"time_mpi_{k}_call_cycles = {v}\n" for k, v in keys.items()))
        res = lib.rccerun(build, "--mpi", mpi, "-nue", 2, "--model", "scc", "--chip", chip, prog)
        assert res.rc == lib.RC_OK and "wrong" not in res.out, res
        return float(re.search(r"sends seconds=(\S+)", res.out)[1])

    base = seconds(**{mpi: 0, other: 0})
    assert seconds(**{mpi: 0, other: 1_000_000}) == pytest.approx(base, abs=1e-4)
    extra = seconds(**{mpi: 1_000_000, other: 0}) - base
    assert extra == pytest.approx(4 * 1_000_000 / (1600 / 3 * 1e6), abs=1e-4), extra

"""Debian's own MPI applications, unmodified, on the emulated SCC (docs/mpi.md "Debian's MPI
applications"): the HPC Challenge suite `hpcc` and NetPIPE's MPI binary `NPopenmpi` (package
netpipe-openmpi), both built by Debian against Open MPI, run with `rccerun --mpi openmpi`, every
byte between ranks through OpenSCC's provider (the MPB counters and comm_matrix.csv account for it).
scripts/install-deps.sh installs both; without them a test skips, under CI (CI set) it fails."""
from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

import openscc_testlib as lib
from test_mpi_launch import require

HPCC = "/usr/bin/hpcc"
NETPIPE = "/usr/bin/NPopenmpi"

# HPL's input (hpccinf.txt, the format of HPL.dat plus PTRANS's lines): one small problem, N=240 in
# blocks of 40 on a 2x2 process grid, so every HPCC test runs at 4 ranks in seconds.  HPCC sizes its
# other tests (STREAM, DGEMM, FFT, RandomAccess, PTRANS) from the HPL problem's memory.
HPCCINF = """HPLinpack benchmark input file
OpenSCC tests/integration/test_mpi_apps.py: a tiny problem for 4 ranks
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
240          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
2            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200                            values of N
0                               number of additional blocking sizes for PTRANS
40                              values of NB
"""
HPCC_BANDWIDTH_BYTES = 2000000  # HPCC's ping-pong and ring bandwidth messages ("done with 2000000 bytes")


def require_app(path: str, package: str) -> None:
    """Skips when Debian's package is not installed, outside CI only (as test_mpi_launch.require)."""
    if os.access(path, os.X_OK):
        return
    absent = f"{path} is not installed (Debian's {package}: scripts/install-deps.sh)"
    if os.environ.get("CI"):
        pytest.fail(absent + " under CI")
    pytest.skip(absent)


@pytest.fixture
def openmpi(build) -> str:
    require(build, "openmpi")
    return "openmpi"


def test_hpcc(build, openmpi, scratch):
    """Every HPCC test at 4 ranks: HPL's and PTRANS's residual checks pass, RandomAccess finds no
    error, FFT's error is at rounding level, the summary says Success=1; each rank moved at least
    HPCC's bandwidth messages through its MPB channel.  Before: MPIRandomAccess's MPI_Testany between
    every two updates napped in the provider, and the job was reported deadlocked (docs/mpi-provider.md
    "Progress and waiting")."""
    require_app(HPCC, "hpcc")
    work = Path(scratch) / "hpcc"
    work.mkdir()
    (work / "hpccinf.txt").write_text(HPCCINF)
    job = work / "job"
    res = lib.rccerun(build, "--mpi", openmpi, "-nue", 4, "--trace", "counters", "--job-dir", job, "--timeout", 240,
                      HPCC, cwd=work, timeout=300)
    assert res.rc == lib.RC_OK, res
    out = (work / "hpccoutf.txt").read_text()
    assert "Success=1" in out.splitlines(), out[-3000:]
    assert "1 tests completed and passed residual checks," in out, out  # HPL
    failed = re.findall(r"(\d+) tests completed and failed residual checks", out)  # PTRANS, HPL
    assert len(failed) == 2 and set(failed) == {"0"}, failed
    for key in ("MPIRandomAccess_ErrorsFraction", "MPIRandomAccess_LCG_ErrorsFraction"):
        assert f"{key}=0" in out.splitlines(), out
    errors = [float(e) for e in re.findall(r"max\(\|x-x0\|\): (\S+)", out)]
    assert errors and all(e < 1e-12 for e in errors), errors
    ues = json.loads((job / "summary.json").read_text())["ues"]
    assert all(u["mpi"]["bytes_sent"] >= HPCC_BANDWIDTH_BYTES for u in ues), ues


NETPIPE_LINE = re.compile(r"^\s*\d+:\s+(\d+) bytes\s+(\d+) times -->\s+Integrity check passed$")


def test_netpipe(build, openmpi, scratch):
    """NetPIPE's integrity mode (-i: every message's contents checked) at 2 ranks, 1 B to 64 KiB,
    5 round trips per size: every size passes, and comm_matrix.csv shows each direction carried the
    payload (with the provider's headers, and nothing around the MPB)."""
    require_app(NETPIPE, "netpipe-openmpi")
    work = Path(scratch) / "netpipe"
    work.mkdir()
    job = work / "job"
    res = lib.rccerun(build, "--mpi", openmpi, "-nue", 2, "--trace", "targets", "--job-dir", job, "--timeout", 100,
                      NETPIPE, "-i", "-l", 1, "-u", 65536, "-p", 0, "-n", 5, "-o", work / "np.out", cwd=work,
                      timeout=150)
    assert res.rc == lib.RC_OK, res
    # NetPIPE reports each size on stderr.
    sizes = [(int(m[1]), int(m[2])) for m in map(NETPIPE_LINE.match, res.err_lines) if m]
    assert len(sizes) == 32 and sizes[0][0] == 1 and sizes[-1][0] == 65536, res
    payload = sum(size * reps for size, reps in sizes)
    with open(job / "comm_matrix.csv") as f:
        moved = {(int(r["src"]), int(r["dst"])): int(r["bytes"]) for r in csv.DictReader(f)}
    for pair in ((0, 1), (1, 0)):
        assert payload <= moved.get(pair, 0) < payload * 1.1 + 65536, (pair, moved, payload)


SCALAPACK_TESTS = Path("/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests")


def test_scalapack_generalized_eigensolver(build, openmpi, scratch):
    """ScaLAPACK's own test of its complex generalized symmetric eigensolver (Debian's
    scalapack-mpi-test, xcgsep with its SEP.dat) at 4 ranks: every check passes.  Its 1x1 process
    grids leave rank 0 making communicators alone while ranks 1-3 wait in the next grid's
    MPI_Comm_create.  Before: each of Open MPI's empty progress calls napped 20 ms in the provider,
    and the launcher reported a deadlock in every run (docs/mpi-channel.md "Waiting")."""
    xcgsep = SCALAPACK_TESTS / "xcgsep"
    require_app(str(xcgsep), "scalapack-mpi-test")
    work = Path(scratch) / "scalapack"
    work.mkdir()
    for dat in SCALAPACK_TESTS.glob("*.dat"):
        (work / dat.name).write_bytes(dat.read_bytes())
    res = lib.rccerun(build, "--mpi", openmpi, "-nue", 4, "--timeout", 120, xcgsep, cwd=work, timeout=200)
    assert res.rc == lib.RC_OK, res
    assert re.search(r"^\s*120 tests completed and passed residual checks\.$", res.out, re.M), res.out[-3000:]
    assert re.search(r"^\s*0 tests completed and failed\.$", res.out, re.M), res.out[-3000:]
    assert "END OF TESTS." in res.out, res


def test_hpcc_and_netpipe_are_open_mpi_builds():
    """Debian builds both against Open MPI only (libmpi.so.40): they run with --mpi openmpi, not MPICH."""
    for path, package in ((HPCC, "hpcc"), (NETPIPE, "netpipe-openmpi")):
        require_app(path, package)
        ldd = lib.run(["ldd", path])
        assert "libmpi.so.40" in ldd.out and "libmpi.so.12" not in ldd.out, ldd

"""make mpi-library-cost (validate/mpi_library_cost.py; docs/model.md "The MPI library's own work"): the
callgrind profile reader, the pricing of executed instructions, and a measurement of the installed MPICH
that must agree between its two ranks and with the preset the counted builds charge."""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import openscc_testlib as lib

sys.path.insert(0, str(lib.REPO / "validate"))
import mpi_library_cost as cost  # noqa: E402

# Position compression as callgrind writes it: absolute, relative and repeated addresses; the line after
# calls= is the call's inclusive cost (not the caller's own); cob=/ob= name objects by number once.
PROFILE = """positions: instr
events: Ir
ob=(1) /lib/a.so
fn=(1) f
0x100 5
+2 5
+3 1
calls=1 0x900
* 999
-5 2
ob=(2) /lib/b.so
fn=(2) g
0x10 7
ob=(1)
fn=(1)
0x100 1
"""


def test_profile_reader_follows_position_compression(tmp_path):
    p = tmp_path / "callgrind.1"
    p.write_text(PROFILE)
    got = cost.self_costs(p)
    assert {k: dict(v) for k, v in got.items()} == {"/lib/a.so": {0x100: 8, 0x102: 5, 0x105: 1},
                                                   "/lib/b.so": {0x10: 7}}


def test_pricing_uses_the_p54c_tables():
    """Two independent simple instructions pair (one cycle for both), a dependent pair does not; a block
    is priced once per execution."""
    text = {0: "add    %eax,%ebx", 2: "add    %ecx,%edx", 4: "ret", 5: "add    %eax,%ebx", 7: "add    %ebx,%ecx"}
    paired = cost.priced_cycles({0: 10, 2: 10}, text)
    dependent = cost.priced_cycles({5: 10, 7: 10}, text)
    assert paired == 10 and dependent == 20, (paired, dependent)


def test_measures_the_installed_mpich(build, scratch):
    """Both ranks of the ping-pong execute the same library work per round trip (spinning left out: it
    would differ between them by its host-dependent poll counts; a run's one-off work, some 25 000
    instructions, is within 5 % of 600 round trips), and the result is the preset time_mpi_mpich_call_cycles within 10 % (a
    different MPICH wheel needs make mpi-library-cost and a new preset)."""
    if build.asan:
        pytest.skip("measures the library with the plain build's provider")
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed (scripts/install-deps.sh installs it)")
    out = Path(scratch) / "cost.json"
    res = lib.run([sys.executable, lib.REPO / "validate" / "mpi_library_cost.py", "--build", build.dir, "--library",
                   "mpich", "--round-trips", "300", "--out", out])
    assert res.rc == 0, res
    (mpich,) = json.loads(out.read_text())
    a, b = mpich["cycles_per_round_trip_by_rank"]
    assert abs(a - b) <= 0.05 * max(a, b), mpich
    preset = float(re.search(r"mpi_mpich_call_cycles = (\d+)", (lib.REPO / "src/chip/chip_preset.c").read_text())[1])
    assert mpich["cycles_per_call"] == pytest.approx(preset, rel=0.10), mpich
    assert "time_mpi_mpich_call_cycles = " in res.out, res.out

"""The application stand-ins of make validate (docs/model.md "Whole applications"): their results do
not depend on how the grid is split, and bad input is refused."""
import platform
import re
import subprocess

import pytest

import openscc_testlib as lib


def standin(build, scratch, program, nue, *args):
    return lib.rccerun(build, "-nue", str(nue), "--model", "scc", "--job-dir", str(scratch / f"job{nue}"),
                       "--replace-job-dir", build.dir / "validate" / program, *map(str, args))


@pytest.mark.parametrize("program,size,splits", [
    ("ssor_lu", 17, {1: (1, 1), 2: (2, 1), 4: (2, 2), 8: (4, 2)}),  # LU's px >= py, powers of two
    ("adi_bt", 12, {1: (1, 1), 4: (2, 2), 9: (3, 3)}),             # BT's square numbers
])
def test_standins_give_the_same_solution_on_every_split(build, scratch, program, size, splits):
    got = {}
    for nue in splits:
        res = standin(build, scratch, program, nue, size, 2)
        assert res.rc == lib.RC_OK, res
        m = re.search(rf"{program} n {size} ues {nue} px (\d+) py (\d+) .* (?:rsd|rhs)_norm (\S+) u_sum (\S+)", res.out)
        assert m, res
        got[nue] = (int(m[1]), int(m[2]), float(m[3]), float(m[4]))
    assert {n: got[n][:2] for n in splits} == splits
    for n in splits:  # the same arithmetic per point; only the sums' order differs
        assert got[n][2] == pytest.approx(got[1][2], rel=1e-12) and got[n][3] == pytest.approx(got[1][3], rel=1e-12)
        assert got[n][2] > 0


@pytest.mark.parametrize("program,nue,args", [
    ("ssor_lu", 3, (17, 1)), ("ssor_lu", 1, (3, 1)), ("ssor_lu", 2, (17, 0)), ("ssor_lu", 8, (7, 1)),
    ("adi_bt", 2, (12, 1)), ("adi_bt", 1, (4, 1)), ("adi_bt", 9, (5, 1)),
])
def test_standins_refuse_what_they_cannot_split(build, scratch, program, nue, args):
    res = standin(build, scratch, program, nue, *args)
    assert res.rc != lib.RC_OK and f"{program}: usage:" in res.err, res


def test_a_counted_run_repeats_exactly_on_one_ue(build, scratch):
    """docs/model.md "Caches": UEs run without address-space randomisation in model mode, so the cache
    sets a UE's data fall into, and its predicted time, are the same on every run.  (On 8 UEs the
    stand-in differs by 1 ps in about one run in ten: docs/model.md "Contention".)"""
    nue = 1
    if subprocess.run(["setarch", platform.machine(), "-R", "true"]).returncode != 0:
        pytest.skip("this system refuses personality(ADDR_NO_RANDOMIZE) (a seccomp filter): randomisation stays on")
    times = set()
    for _ in range(3):
        res = standin(build, scratch, "ssor_lu", nue, 17, 2)
        assert res.rc == lib.RC_OK, res
        times.add(re.search(r"seconds (\S+)", res.out)[1])
    assert len(times) == 1, times

"""The application stand-ins of make validate (docs/model.md "Whole applications"): their results do
not depend on how the grid is split, and bad input is refused."""
import re

import pytest

import openscc_testlib as lib


def ssor_lu(build, scratch, nue, *args):
    res = lib.rccerun(build, "-nue", str(nue), "--model", "scc", "--job-dir", str(scratch / f"job{nue}"),
                      "--replace-job-dir", build.dir / "validate" / "ssor_lu", *map(str, args))
    return res


def test_ssor_lu_gives_the_same_solution_on_every_split(build, scratch):
    got = {}
    for nue in (1, 2, 4, 8):
        res = ssor_lu(build, scratch, nue, 17, 2)
        assert res.rc == lib.RC_OK, res
        m = re.search(r"px (\d+) py (\d+) .* rsd_norm (\S+) u_sum (\S+)", res.out)
        got[nue] = (int(m[1]), int(m[2]), float(m[3]), float(m[4]))
    assert [got[n][:2] for n in (1, 2, 4, 8)] == [(1, 1), (2, 1), (2, 2), (4, 2)]  # LU's px >= py split
    for n in (2, 4, 8):  # the same arithmetic per point; only the norms' sums are ordered differently
        assert got[n][2] == pytest.approx(got[1][2], rel=1e-12) and got[n][3] == pytest.approx(got[1][3], rel=1e-12)


@pytest.mark.parametrize("nue,args", [(3, (17, 1)), (1, (3, 1)), (2, (17, 0)), (8, (7, 1))])
def test_ssor_lu_refuses_what_it_cannot_split(build, scratch, nue, args):
    res = ssor_lu(build, scratch, nue, *args)
    assert res.rc != lib.RC_OK and "ssor_lu: usage:" in res.err, res

"""Remote create and sync (include/scc_rpc.h, docs/svp.md): results intact, creates from two UEs on one
place, every error code; the matrix-multiply example over 1..8 places natively and in model mode."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun


def test_creates_syncs_and_errors(build, compile_program):
    prog = compile_program(build, "svp")
    res = rccerun(build, "-nue", 3, prog)
    assert res.rc == lib.RC_OK, res
    assert sorted(res.out.splitlines()) == ["svp ue 0: sum 3030", "svp ue 1: sum 3030", "svp ue 2: served 43",
                                            "svp: OK"], res


@pytest.mark.parametrize("ues", [2, 3, 9])
def test_matrix_multiply_over_places(build, ues):
    res = rccerun(build, "-nue", ues, build.dir / "apps" / "svp_matmul", 64)
    assert res.rc == lib.RC_OK, res
    assert f"svp_matmul: n 64, {ues - 1} places," in res.out and "svp_matmul: OK" in res.out, res


def test_matrix_multiply_in_model_mode_scales_with_places(build):
    """Counted build: the family's virtual time falls as places are added (the product's O(n^3) work is
    split; O(n^2) travels)."""
    seconds = {}
    for ues in (2, 5):
        res = rccerun(build, "-nue", ues, "--model", "scc", build.dir / "model-apps" / "svp_matmul", 96)
        assert res.rc == lib.RC_OK and "svp_matmul: OK" in res.out, res
        seconds[ues - 1] = float(re.search(r"places, (\S+) seconds", res.out)[1])
    assert seconds[4] < seconds[1] / 2, seconds

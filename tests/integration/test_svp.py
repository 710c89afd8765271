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


def test_kill(build, compile_program):
    """SVP's kill (docs/svp.md "Kill"): a family of 1000 slow threads killed at once stops early and its sync
    says SCC_RPC_KILLED; the place then serves the next family in full; a plain create and creates on the
    creator's own place run to their end; a second kill does nothing; a kill without a create is
    RCCE_ERROR_NO_ACTIVE_RPC_REQUEST."""
    res = rccerun(build, "-nue", 2, compile_program(build, "svp_kill"))
    assert res.rc == lib.RC_OK, res
    lines = res.out.splitlines()
    assert len(lines) == 2 and lines[1] == "svp_kill: OK", res
    ran = int(re.fullmatch(r"svp_kill: killed after (\d+) of 1000 threads", lines[0])[1])
    assert ran < 1000, res


@pytest.mark.parametrize("ues", [2, 3, 9])
def test_matrix_multiply_over_places(build, ues):
    res = rccerun(build, "-nue", ues, build.dir / "apps" / "svp_matmul", 64)
    assert res.rc == lib.RC_OK, res
    assert f"svp_matmul: n 64, {ues - 1} places," in res.out and "svp_matmul: OK" in res.out, res


def test_matrix_multiply_in_model_mode_follows_the_decomposition(build):
    """Counted build: one decomposition step makes eight products ([SVP-SCC] Fig. 2), handed out round-robin:
    4 places take two each and are about twice as fast as 2; a fifth place leaves two rounds and gains
    nothing; 8 places take one each and are about twice as fast as 4 (the O(n^2) data and the additions on
    UE 0 keep the gains below 2)."""
    seconds = {}
    for places in (2, 4, 5, 8):
        res = rccerun(build, "-nue", places + 1, "--model", "scc", build.dir / "model-apps" / "svp_matmul", 96)
        assert res.rc == lib.RC_OK and "svp_matmul: OK" in res.out, res
        seconds[places] = float(re.search(r"places, (\S+) seconds", res.out)[1])
    assert 1.5 < seconds[2] / seconds[4] < 2.05 and 1.5 < seconds[4] / seconds[8] < 2.05, seconds
    assert 0.95 < seconds[4] / seconds[5] < 1.1, seconds


@pytest.mark.parametrize("ues, way, steps", [(2, "messages", 2), (10, "messages", 2), (5, "messages", 3),
                                            (2, "distributed", 2), (9, "distributed", 2), (18, "distributed", 2)])
def test_matrix_multiply_in_several_steps(build, ues, way, steps):
    """Two and three decomposition steps (64 and 512 products, Fig. 6's benchmark) from UE 0, and the two
    steps split over nodes (Fig. 7: the first eight places make the second step over the others; with 1 or
    8 places they have no workers and multiply themselves)."""
    res = rccerun(build, "-nue", ues, build.dir / "apps" / "svp_matmul", 64, way, steps)
    assert res.rc == lib.RC_OK, res
    assert f"seconds ({way}, {steps} steps)" in res.out and "svp_matmul: OK" in res.out, res


def test_matrix_multiply_locally_and_its_errors(build):
    """The local baseline runs on one UE; a size the steps cannot split, an unknown way, and too little
    private memory for remap are refused with the usage."""
    res = rccerun(build, "-nue", 1, build.dir / "apps" / "svp_matmul", 64, "local")
    assert res.rc == lib.RC_OK and "0 places" in res.out and "svp_matmul: OK" in res.out, res
    for args, opts in (((66, "messages", 2), ()), ((64, "sideways"), ()), ((64,), ()), ((64, "distributed", 3), ()),
                       ((256, "remap"), ("--private-size", "1M"))):
        res = rccerun(build, "-nue", 1 if args == (64,) else 2, *opts, build.dir / "apps" / "svp_matmul", *args)
        assert res.rc == lib.RC_UE_FAILED and "svp_matmul: needs 2..N UEs (1 for local)" in res.err, (args, res)


@pytest.mark.parametrize("ues, way, opts", [(2, "messages", []), (4, "messages", []), (4, "remap", []),
                                            (3, "copy", ["--copy-cores", "2"]), (8, "remap", [])])
def test_families(build, compile_program, ues, way, opts):
    """A family over the indices 3, 7, ..., 19: inputs in, outputs and in-out buffers back, the shared channel
    threaded in index order; counting families from every UE on one exclusive place, each seeing the count the
    ones before it left; every error code (docs/svp.md "Families")."""
    res = rccerun(build, "-nue", ues, *opts, compile_program(build, "svp_family"), way)
    assert res.rc == lib.RC_OK, res
    families = 1 + 1 + 3 * (ues - 1)  # the unregistered one, the squares, three counting families per creator
    assert sorted(res.out.splitlines()) == [
        "svp_family: OK", f"svp_family: place ran {families} families, {6 * (ues - 1)} counting threads"], res


@pytest.mark.parametrize("way, opts", [("messages", []), ("remap", []), ("copy", ["--copy-cores", "4"])])
def test_matrix_multiply_each_way(build, way, opts):
    res = rccerun(build, "-nue", 4, *opts, build.dir / "apps" / "svp_matmul", 96, way)
    assert res.rc == lib.RC_OK and "3 places, " in res.out and f"seconds ({way}, 1 step)" in res.out, res
    assert "svp_matmul: OK" in res.out, res


def test_remapped_families_in_model_mode(build):
    """Counted: every way gives the product and the same virtual time on every run."""
    lib.skip_without_memory_hooks(build)
    prog = build.dir / "model-apps" / "svp_matmul"
    for way, opts in (("remap", []), ("copy", ["--copy-cores", "4"])):
        runs = [rccerun(build, "-nue", 5, "--model", "scc", *opts, prog, 64, way) for _ in range(2)]
        assert all(r.rc == lib.RC_OK and "svp_matmul: OK" in r.out for r in runs), runs
        assert runs[0].out == runs[1].out, runs


@pytest.mark.parametrize("model", [False, True])
def test_families_create_families(build, compile_program, model):
    """SVP is hierarchical: each thread of a family on UE 1 creates a family on UE 2 and syncs on it; the
    shared channels carry the sum back up (natively and in model mode)."""
    res = rccerun(build, "-nue", 3, *(["--model", "scc"] if model else []), compile_program(build, "svp_nested"))
    assert res.rc == lib.RC_OK and res.out.splitlines() == ["svp_nested: sum 612", "svp_nested: OK"], res

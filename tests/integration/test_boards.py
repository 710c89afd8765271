"""Several boards in one job (rccerun --boards, docs/cluster.md): UEs numbered across the boards, iRCCE's board
queries, messages between boards natively and in model mode (the link between boards costs what [SCC-2BOARD]'s
figures give; on one board nothing changes), the summary and report, and the errors of the option and the keys."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun


def test_board_queries(build, compile_program):
    """UEs on cores 0, 1, 48 and 95 of two SCC boards: boards 0, 0, 1, 1, two UEs on each."""
    prog = compile_program(build, "boards")
    res = rccerun(build, "-nue", 4, "--boards", 2, "--cores", "0,1,48,95", prog)
    assert res.rc == lib.RC_OK, res
    lines = sorted(line for line in res.out.splitlines() if line.startswith("ue "))
    assert lines == ["ue 0 dev 0 of 2: 2 2", "ue 1 dev 0 of 2: 2 2", "ue 2 dev 1 of 2: 2 2",
                     "ue 3 dev 1 of 2: 2 2"], res
    res = rccerun(build, "-nue", 2, prog)  # one board: every UE on board 0
    assert res.rc == lib.RC_OK, res
    assert "ue 1 dev 0 of 1: 2" in res.out, res


@pytest.mark.parametrize("app, args", [("shift", ["200", "128"]), ("stencil", [])])
def test_96_ues_over_two_boards(build, app, args):
    res = rccerun(build, "-nue", 96, "--boards", 2, build.app(app), *args)
    assert res.rc == lib.RC_OK, res
    assert f"{app}: OK" in res.out, res


def half_rtt(build, prog, cores, *opts):
    res = rccerun(build, "-nue", 2, "--model", "scc", "--cores", cores, *opts, prog, 8, 20)
    assert res.rc == lib.RC_OK, res
    return float(re.search(r"half_rtt_us (\S+)", res.out)[1])


def test_the_link_between_boards_in_model_mode(build, compile_program, scratch):
    """A ping-pong between boards costs the link ([SCC-2BOARD]: a remote read about 32 us, a write arriving
    after 16 us); between cores of one board --boards changes nothing (counted build: exact virtual times)."""
    prog = compile_program(build, "boards", "--model-build")
    on_die = half_rtt(build, prog, "0,1")
    assert half_rtt(build, prog, "0,1", "--boards", 2) == on_die
    across = half_rtt(build, prog, "0,48", "--boards", 2)
    # LPRG: the sent flag arrives 16 us after it is written, the 8 bytes are one remote read of 32 us
    assert 16 + 32 < across < 16 + 32 + 2 * on_die + 10, (on_die, across)
    job = scratch / "job"
    res = rccerun(build, "-nue", 2, "--boards", 2, "--model", "scc", "--cores", "0,48", "--trace", "sizes",
                  "--job-dir", job, prog, 8, 20)
    assert res.rc == lib.RC_OK, res
    s = lib.check_summary(job / "summary.json")
    assert s["job"]["mesh"]["boards"] == 2 and s["job"]["mesh"]["system_interface"] == [3, 0]
    assert [(u["core"], u["board"], u["tile"]) for u in s["ues"]] == [(0, 0, [0, 0]), (48, 1, [0, 0])]
    res = lib.run([build.dir / "bin" / "openscc", "report", job], env=lib.base_env(build))
    assert res.rc == 0, res
    assert (job / "report" / "mesh_traffic.png").stat().st_size > 0
    assert (job / "report" / "comm_matrix.png").stat().st_size > 0  # with a line between the boards


def test_board_errors(build, scratch):
    hello = build.app("hello")
    cases = [(["--boards", 0], "--boards needs a number of boards from 1 to 8, got '0'"),
             (["--boards", 9], "--boards needs a number of boards from 1 to 8, got '9'"),
             (["-nue", 97, "--boards", 2], "97 UEs do not fit chip 'scc' with 96 cores")]
    for opts, message in cases:
        res = rccerun(build, *(opts if opts[0] == "-nue" else ["-nue", 2, *opts]), hello)
        assert res.rc == lib.RC_USAGE and res.err_lines[0] == f"rccerun: {message}", res
    chip = scratch / "two.chip"
    chip.write_text("boards = 2\nsif_tile_x = 6\n")
    res = rccerun(build, "-nue", 2, "--chip", chip, hello)
    assert res.rc == lib.RC_USAGE and "sif_tile_x, sif_tile_y = 6,0 lies outside the mesh" in res.err, res
    chip.write_text("boards = 2\n")
    res = rccerun(build, "-nue", 96, "--chip", chip, hello)
    assert res.rc == lib.RC_OK and "over 96 UEs" in res.out, res

"""RCCE 2.0's extensions to the basic interface (tests/programs/rcce2_api.c; docs/rcce.md "RCCE 2.0's
extensions"): RCCE_isend/RCCE_irecv with test, push and wait and RCCE's codes, the _pipe, _tagged,
_mcast, _cancel and _probe variants, RCCE_memcpy_put/get, every barrier algorithm (the non-blocking
ones polled), RCCE_shrealloc, the coupled-board queries, and the errors of misuse."""
from __future__ import annotations

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

FLAGS = {"bigflags": (), "singlebit": ("-DSINGLEBITFLAGS",)}


def run_mode(build, compile_program, mode, nue, *opts, flags=()):
    res = rccerun(build, *opts, "-nue", nue, compile_program(build, "rcce2_api", *flags), mode)
    assert res.rc == lib.RC_OK, res
    assert f"rcce2: {mode} OK ({nue} UEs)" in res.out, res
    return res


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("mode", ["ring", "variants", "barriers", "shm"])
@pytest.mark.parametrize("nue", [2, 8, 48])
def test_rcce2_extensions(build, compile_program, mode, nue, flags):
    res = run_mode(build, compile_program, mode, nue, flags=flags)
    assert res.err_lines == [], res


@pytest.mark.parametrize("opts", [("--model", "scc"), ("--scheme", "rplg"), ("--flags", "tagged")],
                         ids=["model", "rplg", "tagged"])
@pytest.mark.parametrize("mode", ["ring", "variants", "barriers"])
def test_rcce2_extensions_under_protocol_options(build, compile_program, mode, opts):
    run_mode(build, compile_program, mode, 4, *opts)


def test_board_queries_across_two_boards(build, compile_program):
    run_mode(build, compile_program, "devs", 96, "--boards", "2")
    run_mode(build, compile_program, "devs", 3)


def test_misuse_gives_rcce_error_codes(build, compile_program):
    res = run_mode(build, compile_program, "misuse", 3, "--debug")
    for where, what in [("RCCE_isend_test", "never started"), ("RCCE_isend", "still pending"),
                        ("RCCE_send_tagged", "-1 bytes"), ("RCCE_tree_init", "fanout 0"),
                        ("RCCE_shrealloc", "not returned by RCCE_shmalloc")]:
        assert any(f"in {where}:" in ln and what in ln for ln in res.err_lines), (where, res)

"""The protocol options and extensions (docs/ircce.md): remote-put/local-get
and tagged flags give the same results as RCCE's default; RCCE_peek,
iRCCE_ANY_LENGTH, size checks, tagged flags, the pipelined iRCCE_ssend and
the iRCCE collectives (tests/programs/ircce_ext.c); a randomized stress of
every send and receive call under every option (tests/programs/ircce_stress.c)."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

# rccerun options: both schemes, both flag kinds, with and without the single-copy path
OPTIONS = {
    "lprg": (),
    "lprg-tagged": ("--flags", "tagged"),
    "rplg": ("--scheme", "rplg"),
    "rplg-tagged": ("--scheme", "rplg", "--flags", "tagged"),
    "rplg-chunks": ("--scheme", "rplg", "--no-single-copy"),
    "lprg-tagged-chunks": ("--flags", "tagged", "--no-single-copy"),
}
SINGLEBIT_OPTIONS = {k: v for k, v in OPTIONS.items() if "tagged" not in k}


def run_stress(build, program, nue, seed, rounds, max_bytes, opts):
    res = rccerun(build, *opts, "-nue", nue, program, seed, rounds, max_bytes)
    assert res.rc == lib.RC_OK, res
    m = re.search(rf"^ircce_stress: OK \({nue} UEs, seed {seed}, {rounds} rounds, (\d+) messages, (\d+) bytes\)$",
                  res.out, re.M)
    assert m and int(m.group(1)) > 0, res
    assert res.err_lines == [], res
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("opts", OPTIONS.values(), ids=OPTIONS.keys())
@pytest.mark.parametrize("nue,seed,rounds", [(2, 1, 40), (3, 2, 25), (8, 3, 12), (48, 4, 3)])
def test_stress_big_flags(build, compile_program, opts, nue, seed, rounds):
    run_stress(build, compile_program(build, "ircce_stress"), nue, seed, rounds, 200000, opts)


@pytest.mark.parametrize("opts", SINGLEBIT_OPTIONS.values(), ids=SINGLEBIT_OPTIONS.keys())
@pytest.mark.parametrize("nue,seed,rounds", [(2, 5, 40), (8, 6, 12), (48, 7, 3)])
def test_stress_singlebit(build, compile_program, opts, nue, seed, rounds):
    run_stress(build, compile_program(build, "ircce_stress", "-DSINGLEBITFLAGS"), nue, seed, rounds, 200000, opts)


def test_same_schedule_same_totals_under_every_option(build, compile_program):
    """The schedule, and so the message and byte totals, do not depend on the protocol."""
    prog = compile_program(build, "ircce_stress")
    totals = {name: run_stress(build, prog, 4, 9, 10, 100000, opts) for name, opts in OPTIONS.items()}
    assert len(set(totals.values())) == 1, totals


def run_ext(build, program, mode, nue, opts=()):
    res = rccerun(build, *opts, "-nue", nue, program, mode)
    assert res.rc == lib.RC_OK, res
    assert f"ircce_ext: {mode} OK ({nue} UEs)" in res.out, res
    assert res.err_lines == [], res


@pytest.mark.parametrize("opts", OPTIONS.values(), ids=OPTIONS.keys())
@pytest.mark.parametrize("mode", ["peek", "anylength", "tagged", "pipeline", "mcast"])
def test_extensions(build, compile_program, mode, opts):
    run_ext(build, compile_program(build, "ircce_ext"), mode, 3, opts)


@pytest.mark.parametrize("mode,nue", [("peek", 48), ("anylength", 8), ("mcast", 48), ("pipeline", 8)])
def test_extensions_many_ues(build, compile_program, mode, nue):
    run_ext(build, compile_program(build, "ircce_ext"), mode, nue)


@pytest.mark.parametrize("mode", ["peek", "pipeline", "mcast", "busy"])
def test_extensions_singlebit(build, compile_program, mode):
    """Single-bit flags: peeking is refused (no size in the flag), the rest works."""
    run_ext(build, compile_program(build, "ircce_ext", "-DSINGLEBITFLAGS"), mode, 3)


def test_collective_over_busy_send_buffer_is_refused(build, compile_program):
    run_ext(build, compile_program(build, "ircce_ext"), "busy", 3)


def test_size_mismatch_is_reported_in_debug_mode(build, compile_program):
    res = rccerun(build, "--debug", "-nue", 2, compile_program(build, "ircce_ext"), "anylength")
    assert res.rc == lib.RC_OK, res
    assert any("in RCCE_recv:" in ln and "the message from UE 1 has 300 bytes, the receive expects 299" in ln
               for ln in res.err_lines), res


def test_tagged_flags_need_big_flags(build, compile_program):
    res = rccerun(build, "--flags", "tagged", "-nue", 2, compile_program(build, "ircce_ext", "-DSINGLEBITFLAGS"), "peek")
    assert res.rc == lib.RC_UE_FAILED, res
    assert "tagged flags (rccerun --flags tagged) need big flags" in res.err, res


@pytest.mark.parametrize("args,message", [
    (("--flags", "fat"), "--flags takes normal or tagged, got 'fat'"),
    (("--scheme", "rpgl"), "--scheme takes lprg or rplg, got 'rpgl'"),
    (("--scheme",), "option '--scheme' needs a value"),
])
def test_bad_protocol_options(build, args, message):
    res = rccerun(build, *args)
    assert res.rc == lib.RC_USAGE, res
    assert message in res.err, res


@pytest.mark.parametrize("flags", [(), ("-DSINGLEBITFLAGS",)], ids=["bigflags", "singlebit"])
def test_header_has_ircce_20_types(build, compile_program, flags):
    """tests/programs/ircce_api.c asserts every function's iRCCE 2.0 type at compile time."""
    res = rccerun(build, "-nue", 1, compile_program(build, "ircce_api", "-Werror", *flags))
    assert res.rc == lib.RC_OK, res
    assert "SUCCESS 0 ERROR -1 PENDING -2 RESERVED -3 NOT_ENQUEUED -4 ANY_SOURCE -1" in res.out, res
    assert ("iRCCE_MAX_TAGGED_LEN 28" in res.out) == (flags == ()), res

"""iRCCE requests (tests/programs/ircce.c): non-blocking send/receive with
buffers in globals, out-of-order completion, wait lists, wait_any fairness
with many senders, any-source receives and probes, cancel, mixing with
blocking RCCE, misuse errors."""
from __future__ import annotations

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

FLAGS = {"bigflags": (), "singlebit": ("-DSINGLEBITFLAGS",)}


def run_mode(build, compile_program, mode, nue, *args, flags=()):
    res = rccerun(build, "-nue", nue, compile_program(build, "ircce", *flags), mode, *args)
    assert res.rc == lib.RC_OK, res
    assert f"ircce: {mode} OK ({nue} UEs)" in res.out, res
    assert res.err_lines == [], res
    return res


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("nue", [2, 3, 8, 48])
def test_ring_of_outstanding_requests(build, compile_program, nue, flags):
    run_mode(build, compile_program, "ring", nue, flags=flags)


@pytest.mark.parametrize("nue", [2, 8, 48])
def test_wait_any_collects_every_sender_in_order(build, compile_program, nue):
    """47 senders to one receiver: every message arrives, per sender in order."""
    rounds = 5 if nue == 48 else 30
    res = run_mode(build, compile_program, "waitany", nue, rounds)
    assert f"ircce: waitany collected {(nue - 1) * rounds} messages from {nue - 1} senders" in res.out, res


@pytest.mark.parametrize("nue", [2, 3])
def test_cancel_and_misuse(build, compile_program, nue):
    run_mode(build, compile_program, "cancel", nue)


def test_cancel_misuse_is_reported_in_debug_mode(build, compile_program):
    res = rccerun(build, "--debug", "-nue", 2, compile_program(build, "ircce"), "cancel")
    assert res.rc == lib.RC_OK, res
    assert any("in iRCCE_isend_wait:" in ln and "never started" in ln for ln in res.err_lines), res
    assert any("in iRCCE_isend_cancel:" in ln and "not queued" in ln for ln in res.err_lines), res
    assert any("in iRCCE_isend:" in ln and "still pending" in ln for ln in res.err_lines), res


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("nue", [2, 8])
def test_blocking_rcce_and_ircce_on_one_pair(build, compile_program, nue, flags):
    run_mode(build, compile_program, "mixed", nue, flags=flags)


def test_without_single_copy(build, compile_program):
    run_mode(build, compile_program, "ring", 3)
    res = rccerun(build, "--no-single-copy", "-nue", 3, compile_program(build, "ircce"), "ring")
    assert res.rc == lib.RC_OK and "ircce: ring OK (3 UEs)" in res.out, res


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("nue", [2, 3, 8, 48])
def test_any_source_receives(build, compile_program, nue, flags):
    """iRCCE_ANY_SOURCE with 4 receives posted: every sender's messages arrive, in order."""
    run_mode(build, compile_program, "anysource", nue, 4 if nue == 48 else 12, flags=flags)


@pytest.mark.parametrize("nue", [2, 8, 48])
def test_probe_finds_every_sender(build, compile_program, nue):
    run_mode(build, compile_program, "probe", nue)

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


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("nue", [2, 3])
def test_blocking_send_moves_any_source_receive(build, compile_program, nue, flags):
    """A blocking RCCE_send made while an any-source receive waits unbound
    keeps it moving (docs/ircce.md "Progress"): the peer's message that only
    it can take arrives, and neither UE blocks forever.  Every round is a
    fresh chance for the message to arrive after the receive was posted."""
    run_mode(build, compile_program, "anyblock", nue, 50, flags=flags)


@pytest.mark.parametrize("nue", [2, 8, 48])
def test_probe_finds_every_sender(build, compile_program, nue):
    run_mode(build, compile_program, "probe", nue)


def ring_program(build):
    """bench/ircce/ring_bench.c, the polling ring of the benchmark (issue 12 item 20)."""
    src = lib.REPO / "bench" / "ircce" / "ring_bench.c"
    out = build.work / "programs" / "ring_bench"
    out.parent.mkdir(parents=True, exist_ok=True)
    res = lib.run([str(build.rccecc), "-O2", "-Wall", "-Wextra", "-Werror", str(src), "-o", str(out)])
    assert res.rc == 0, res
    return out


@pytest.mark.parametrize("mode", ["poll", "wait"])
def test_polling_ring_delivers_in_order(build, mode):
    """8 UEs (oversubscribed on a small host) each spin on iRCCE_isend_test /
    iRCCE_irecv_test (or wait): every message arrives, in order, and the
    polling UEs let the UEs they wait for run (the job finishes)."""
    prog = ring_program(build)
    for _ in range(3):
        res = rccerun(build, "-nue", 8, prog, mode, 1000)
        assert res.rc == lib.RC_OK, res
        assert f"ring: OK (8 UEs, 1000 messages of 64 bytes, {mode})" in res.out, res
        assert res.err_lines == [], res


def test_polling_ring_rejects_bad_mode(build):
    res = rccerun(build, "-nue", 2, ring_program(build), "spin")
    assert res.rc == lib.RC_UE_FAILED, res
    assert "ring: UE 0: bad argument (usage: ring_bench poll|wait [messages] [bytes])" in res.err, res

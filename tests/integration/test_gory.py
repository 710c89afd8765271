"""The gory interface (tests/programs/gory.c), big and single-bit flags."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

FORMS = {"big": (), "singlebit": ("-DSINGLEBITFLAGS",)}


@pytest.mark.parametrize("nue", (1, 2, 3, 8, 48))
@pytest.mark.parametrize("form", FORMS)
def test_gory(build, compile_program, form, nue):
    prog = compile_program(build, "gory", "-DGORY", *FORMS[form])
    res = rccerun(build, "-nue", nue, prog, 2)
    assert res.rc == lib.RC_OK, res
    flags = "single-bit" if form == "singlebit" else "big"
    m = re.search(rf"^gory: OK \({nue} UEs, {flags} flags, chunk (\d+), (\d+) messages per UE\)$", res.out, re.M)
    assert m, res
    # 3 comm-buffer sizes x 2 rounds x 7 message sizes, when there is a ring
    assert int(m.group(2)) == (42 if nue > 1 else 0), res
    assert int(m.group(1)) == 4096, res  # largest power of two in the free 8 KB MPB
    assert res.err_lines == [], res


def test_gory_no_single_copy(build, compile_program):
    prog = compile_program(build, "gory", "-DGORY")
    res = rccerun(build, "--no-single-copy", "-nue", 4, prog, 3)
    assert res.rc == lib.RC_OK, res
    assert "gory: OK (4 UEs, big flags, chunk 4096, 63 messages per UE)\n" in res.out, res


def test_gory_scattered_cores(build, compile_program):
    prog = compile_program(build, "gory", "-DGORY", "-DSINGLEBITFLAGS")
    res = rccerun(build, "--cores", "47,1,30,12,8", "-nue", 5, prog, 2)
    assert res.rc == lib.RC_OK, res
    assert "gory: OK (5 UEs, single-bit flags" in res.out, res


def test_gory_larger_mpb(build, compile_program):
    """A 32 KB MPB: RCCE_malloc_request hands out a 16 KB chunk."""
    prog = compile_program(build, "gory", "-DGORY")
    res = rccerun(build, "--chip", "6x4x2:32768", "-nue", 3, prog, 1)
    assert res.rc == lib.RC_OK, res
    assert "gory: OK (3 UEs, big flags, chunk 16384, 21 messages per UE)\n" in res.out, res


@pytest.mark.parametrize("flags", [(), ("-DSINGLEBITFLAGS",)], ids=["big", "singlebit"])
def test_basic_interface_both_flag_forms(build, compile_program, flags):
    """The same basic-interface program built with and without -DSINGLEBITFLAGS."""
    prog = compile_program(build, "stress", *flags)
    res = rccerun(build, "-nue", 5, prog, 61, 30, 30000)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (5 UEs, seed 61, 30 rounds" in res.out, res


def test_singlebit_app_source(build, scratch):
    """An example app compiled by the user with -DSINGLEBITFLAGS."""
    out = scratch / "stencil_sb"
    cc = lib.run([build.rccecc, "-O2", "-DSINGLEBITFLAGS", lib.REPO / "apps" / "stencil.c", "-o", out, "-lm"])
    assert cc.rc == 0, cc
    res = rccerun(build, "-nue", 8, out, 4, 10, 8, "--pairs")
    assert res.rc == lib.RC_OK, res
    assert "stencil: OK\n" in res.out, res
    res = rccerun(build, "-nue", 8, out, 4, 10)
    assert res.rc == lib.RC_OK, res
    assert "stencil: OK\n" in res.out, res


@pytest.mark.parametrize("form", FORMS)
def test_gory_wait_until_deadlock(build, compile_program, form):
    """Every UE waits in RCCE_wait_until for a flag nobody sets: a deadlock,
    reported with the flag's MPB offset (the first flag below the two barrier
    lines at the top of the 8 KB MPB: 0x2000 - 3 * 32 = 0x1fa0)."""
    prog = compile_program(build, "gory", "-DGORY", *FORMS[form])
    res = rccerun(build, "--cores", "4,9,30", "-nue", 3, prog, "deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    lines = res.err.splitlines()
    i = lines.index("rccerun: deadlock: every running UE is blocked in the runtime and none can proceed")
    assert lines[i + 1:i + 4] == [
        f"  UE {u} (core {c}): blocked in RCCE_wait_until, waiting for the flag at MPB offset 0x1fa0 to become SET"
        for u, c in enumerate((4, 9, 30))], res

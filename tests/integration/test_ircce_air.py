"""iRCCE's atomic increment registers (tests/programs/ircce_air.c, built with -DAIR; docs/ircce.md
"Atomic increment registers"): tickets taken exactly once, counts visible to all, 2 registers per UE,
foreign handles refused; natively at 1..48 UEs and in model mode."""
from __future__ import annotations

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun


@pytest.mark.parametrize("opts", [(), ("--model", "scc")], ids=["native", "model"])
@pytest.mark.parametrize("nue", [1, 2, 8, 48])
def test_atomic_increment_registers(build, compile_program, nue, opts):
    res = rccerun(build, *opts, "-nue", nue, compile_program(build, "ircce_air", "-DAIR"))
    assert res.rc == lib.RC_OK, res
    assert f"ircce_air: OK ({nue} UEs)" in res.out, res


def test_misuse_is_reported(build, compile_program):
    res = rccerun(build, "--debug", "-nue", 2, compile_program(build, "ircce_air", "-DAIR"))
    assert res.rc == lib.RC_OK, res
    assert any("in iRCCE_atomic_alloc:" in ln and "all 4 registers are taken" in ln for ln in res.err_lines), res
    assert any("in iRCCE_atomic_write:" in ln and "not a register from iRCCE_atomic_alloc" in ln
               for ln in res.err_lines), res

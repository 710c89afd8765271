"""Which processes may ptrace a UE (docs/rccerun.md, "Single-copy transfers
and ptrace"): the single-copy path needs its peers to read a UE's memory, so
each UE declares rccerun its Yama ptracer (rccerun and its descendants, the
UEs of the job), never "any process"; with --no-single-copy it declares
nothing.  tests/programs/ptracer.c records the runtime's PR_SET_PTRACER calls
(the kernel keeps no readable trace of them) and tries a peer's memory."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

YAMA = Path("/proc/sys/kernel/yama/ptrace_scope")


def yama_scope() -> int | None:
    try:
        return int(YAMA.read_text())
    except (OSError, ValueError):
        return None


def declared(res: lib.Result, nue: int) -> set[str]:
    """What the UEs declared as their ptracer ("none", "rccerun", "any", "pid P"), one line per UE."""
    said = [ln.split(" declared ", 1)[1] for ln in res.out.splitlines() if " declared " in ln]
    assert len(said) == nue, res
    return set(said)


def test_ues_declare_rccerun_for_single_copy(build, compile_program):
    res = rccerun(build, "-nue", 3, compile_program(build, "ptracer"))
    assert res.rc == lib.RC_OK, res
    assert declared(res, 3) == {"rccerun"}, res
    if (yama_scope() or 0) < 2:  # scopes 2 and 3 allow only admins to attach, whatever is declared
        assert "ptracer: UE 1 read UE 0: ok\n" in res.out, res  # the job's own UEs may copy


def test_no_single_copy_declares_nothing(build, compile_program):
    res = rccerun(build, "--no-single-copy", "-nue", 3, compile_program(build, "ptracer"))
    assert res.rc == lib.RC_OK, res
    assert declared(res, 3) == {"none"}, res


def test_one_ue_declares_nothing(build, compile_program):
    res = rccerun(build, "-nue", 1, compile_program(build, "ptracer"))
    assert res.rc == lib.RC_OK, res
    assert declared(res, 1) == {"none"}, res


@pytest.mark.skipif(yama_scope() != 1 or os.geteuid() == 0,
                    reason="needs Yama with ptrace_scope 1 (restricted ptrace) and no CAP_SYS_PTRACE (not root)")
def test_no_single_copy_keeps_peers_out_under_yama(build, compile_program):
    """Under Yama scope 1 a sibling UE may read a UE's memory only when the UE
    declared a ptracer: so --no-single-copy really closes the UEs."""
    res = rccerun(build, "--no-single-copy", "-nue", 2, compile_program(build, "ptracer"))
    assert res.rc == lib.RC_OK, res
    assert "ptracer: UE 1 read UE 0: errno 1 (Operation not permitted)\n" in res.out, res

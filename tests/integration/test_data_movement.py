"""Moving data without the MPB (docs/data-movement.md): lookup tables over the UEs' private memory
(include/scc_lut.h), copy cores (include/scc_copy.h, rccerun --copy-cores) and [SVP-SCC]'s ping-pong
(apps/copy_pingpong): data intact through every mapping and at every size and alignment, the errors as
documented, the copy cores' placement and supervision, model mode repeatable."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun


@pytest.mark.parametrize("ues", [1, 2, 8])
def test_lut_maps_another_ues_private_memory(build, compile_program, ues):
    """Each UE reads its neighbour's 12 MB through its LUT (MPBT) and writes a word the neighbour
    finds in its own memory; the shared memory and an MPB through LUT entries; every error code."""
    res = rccerun(build, "-nue", ues, compile_program(build, "lut"))
    assert res.rc == lib.RC_OK and res.out.strip() == "lut: OK", res


@pytest.mark.parametrize("how, says", [("unmapped", "through LUT entry 200, which maps nothing"),
                                       ("beyond", "through LUT entry 201, beyond the memory it maps")])
def test_a_touch_outside_a_mapping_names_the_entry(build, compile_program, how, says):
    res = rccerun(build, "-nue", 2, compile_program(build, "lut"), how)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "UE 1: access to " in res.err and says in res.err, res
    assert "UE 1 (core 1) crashed" in res.err, res


def test_lut_in_model_mode(build, compile_program):
    """A counted build: the accesses through the windows are charged, and the run repeats exactly."""
    lib.skip_without_memory_hooks(build)
    prog = compile_program(build, "lut", "--model-build")
    outs = [rccerun(build, "-nue", 2, "--model", "scc", prog) for _ in range(2)]
    assert all(r.rc == lib.RC_OK and "lut: OK" in r.out for r in outs), outs
    assert outs[0].err == outs[1].err.replace(*_job_ids(outs[1].err, outs[0].err)), outs


def _job_ids(a: str, b: str) -> tuple[str, str]:
    """The job directory names of two runs' reports (the only thing allowed to differ)."""
    pick = lambda s: re.search(r"runs/(\S+)/summary.json", s)[1]  # noqa: E731
    return pick(a), pick(b)


@pytest.mark.parametrize("ues, copy_cores", [(1, 1), (2, 4), (3, 16), (8, 4)])
def test_copy_cores_copy_exactly(build, compile_program, ues, copy_cores):
    """Every size from 1 byte to 3 MB at odd alignments, two copies in flight, shared to private."""
    res = rccerun(build, "-nue", ues, "--copy-cores", copy_cores, compile_program(build, "copy"))
    assert res.rc == lib.RC_OK and res.out.strip() == f"copy: OK ({copy_cores} copy cores)", res


def test_copy_without_copy_cores_says_so(build, compile_program):
    res = rccerun(build, "-nue", 2, compile_program(build, "copy"), "nocores")
    assert res.rc == lib.RC_OK and res.out.strip() == "copy: OK", res


def test_copy_cores_sit_next_to_the_memory_controllers(build, compile_program, scratch):
    """--copy-cores 4: one copy core beside each controller (tiles (0,0), (5,0), (0,2), (5,2)), after
    the program's UEs, marked in summary.json with what they copied."""
    job = scratch / "job"
    res = rccerun(build, "-nue", 2, "--copy-cores", 4, "--trace", "counters", "--job-dir", job,
                  compile_program(build, "copy"))
    assert res.rc == lib.RC_OK, res
    summary = lib.check_summary(job / "summary.json")
    assert summary["job"]["copy_cores"] == 4 and summary["job"]["nue"] == 6
    copy_ues = [u for u in summary["ues"] if u.get("copy_core")]
    assert [u["ue"] for u in copy_ues] == [2, 3, 4, 5]
    assert [tuple(u["tile"]) for u in copy_ues] == [(1, 0), (5, 0), (0, 2), (5, 2)], copy_ues
    assert all(u["copy_requests"] > 0 and u["copy_bytes"] > 0 for u in copy_ues), copy_ues


@pytest.mark.parametrize("args, says", [
    (["--copy-cores", "47"], "2 UEs and 47 copy cores (--copy-cores) do not fit chip 'scc' with 48 cores"),
    (["--private-size", "5G"], "--private-size 5368709120 bytes is more than a lookup table reaches"),
    (["--copy-cores", "-1"], "--copy-cores needs a number of UEs from 0 to"),
])
def test_bad_options_are_refused(build, compile_program, args, says):
    res = rccerun(build, "-nue", 2, *args, compile_program(build, "copy"))
    assert res.rc == lib.RC_USAGE and says in res.err, res


def test_too_many_ues_for_copy_cores(build, compile_program):
    res = rccerun(build, "-nue", 129, "--boards", 3, "--copy-cores", 1, compile_program(build, "copy"))
    assert res.rc == lib.RC_USAGE and "129 UEs are too many for copy cores" in res.err, res


def test_a_program_waiting_on_nothing_with_idle_copy_cores_is_a_deadlock(build, compile_program):
    """UE 0 waits for a message nobody sends while the copy cores wait for work: the report lists both."""
    res = rccerun(build, "-nue", 2, "--copy-cores", 2, compile_program(build, "crash"), "deadlock", timeout=60)
    assert res.rc == lib.RC_DEADLOCK, res
    assert "copy core, waiting for copy requests" in res.err, res


def test_copy_pingpong_natively(build):
    res = rccerun(build, "-nue", 2, "--copy-cores", 4, build.dir / "apps" / "copy_pingpong", 1 << 20, 2)
    assert res.rc == lib.RC_OK and "copy_pingpong: OK" in res.out, res
    lines = re.findall(r"copy_pingpong: (\d+) (direct|remap|copy) ", res.out)
    sizes = sorted({int(b) for b, _ in lines})
    assert sizes == [4 ** k for k in range(1, 11)] and len(lines) == 3 * len(sizes), res.out


def test_copy_pingpong_in_model_mode(build):
    """Counted: the same numbers on every run; copying through 4 copy cores beats one core's remapping at
    16 MB, and every remap pays the level-2 flush (docs/data-movement.md "Model")."""
    lib.skip_without_memory_hooks(build)
    prog = build.dir / "model-apps" / "copy_pingpong"
    runs = [rccerun(build, "-nue", 2, "--copy-cores", 4, "--model", "scc", prog, 16 << 20, 1) for _ in range(2)]
    assert all(r.rc == lib.RC_OK for r in runs), runs
    assert runs[0].out == runs[1].out, runs
    t = {(int(b), w): float(us) for b, w, us in re.findall(r"copy_pingpong: (\d+) (\w+) (\S+) ", runs[0].out)}
    assert t[(16 << 20, "copy")] < t[(16 << 20, "remap")] / 2, t
    assert t[(4, "remap")] > 100 * t[(4, "direct")], t

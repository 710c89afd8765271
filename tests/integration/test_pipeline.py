"""Pipelines (include/scc_pipeline.h, openscc.pipeline; docs/data-movement.md "Pipelines"): the output equals
the stages applied one after another in every memory scheme and layout, at 1, 2 and 8 UEs, from C and from
Python; bad layouts give RCCE's error codes; in model mode the cost model's choice of stage order beats a
scattered one and its predictions stay near what the model measures."""
from __future__ import annotations

import re
import textwrap

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

LINE = re.compile(r"pipeline: (\S+) (ue-order|model-best) chunk (\d+) order (\S+) predicted_s (\S+) measured_s (\S+)")


def lines(out: str) -> list[tuple]:
    return [(m[1], m[2], int(m[3]), [int(u) for u in m[4].split(",")], float(m[5]), float(m[6]))
            for m in LINE.finditer(out)]


@pytest.mark.parametrize("ues", [1, 2, 8])
def test_pipeline_app_natively(build, ues):
    """Every memory scheme, in UE order and in the model's layout; the last stage checks every byte."""
    res = rccerun(build, "-nue", ues, build.dir / "apps" / "pipeline", 65536, 1000)
    assert res.rc == lib.RC_OK and "pipeline: OK" in res.out, res
    got = lines(res.out)
    assert [(g[0], g[1]) for g in got] == [(m, w) for m in ("private", "shared", "shared-cached")
                                           for w in ("ue-order", "model-best")], res.out
    assert all(sorted(g[3]) == list(range(ues)) for g in got), res.out


def test_pipeline_model_picks_a_better_order(build):
    """UEs scattered over the chip (--cores 0,47,2,45,...): in UE order every chunk crosses the mesh; the
    model's chain keeps neighbours together and is faster in the model's own measurement too (private
    memory), and every prediction is within a factor 1.5 of the measured virtual time."""
    lib.skip_without_memory_hooks(build)
    res = rccerun(build, "-nue", 8, "--cores", "0,47,2,45,4,43,6,41", "--model", "scc",
                  build.dir / "model-apps" / "pipeline", 131072, 4096)
    assert res.rc == lib.RC_OK and "pipeline: OK" in res.out, res
    got = {(g[0], g[1]): g for g in lines(res.out)}
    ue_order, best = got[("private", "ue-order")], got[("private", "model-best")]
    assert best[3] != list(range(8)) and best[4] < ue_order[4] and best[5] < ue_order[5], res.out
    assert all(0.67 < g[4] / g[5] < 1.5 for g in got.values()), res.out
    again = rccerun(build, "-nue", 8, "--cores", "0,47,2,45,4,43,6,41", "--model", "scc",
                    build.dir / "model-apps" / "pipeline", 131072, 4096)
    assert lines(again.out) == lines(res.out), (res.out, again.out)


PROGRAM = textwrap.dedent('''
    import sys
    from openscc import pipeline, rcce

    def stage(chunk, s):
        for i in range(len(chunk)):
            chunk[i] = (chunk[i] * 3 + s) & 255

    me, n = rcce.ue(), rcce.num_ues()
    order = list(reversed(range(n)))
    data = bytes(range(256)) * 40 if me == order[0] else None
    for memory in ("private", "shared", "shared-cached"):
        res = pipeline.run(stage, data, size=10240, chunk=1000, memory=memory, order=order)
        if res.out is not None:
            want = bytearray(bytes(range(256)) * 40)
            for s in range(n):
                want = bytearray((b * 3 + s) & 255 for b in want)
            print(f"ue {me} {memory} {res.out == bytes(want)} {res.predicted > 0}")
    for bad, kwargs in (("stages", {"stages": n + 1}), ("chunk", {"chunk": 0}), ("order", {"order": [0] * n})):
        try:
            pipeline.run(stage, data, size=10240, **kwargs)
        except rcce.RCCEError as e:
            if me == 0:
                print(f"{bad} refused {e.code}")
    try:
        pipeline.run(stage, data, size=10240, memory="elsewhere")
    except ValueError:
        if me == 0:
            print("memory refused")
''')


@pytest.mark.parametrize("ues", [1, 2, 8])
def test_python_pipeline(build, scratch, ues):
    if build.asan:
        pytest.skip("the Python interpreter is not built with AddressSanitizer (test_python.py)")
    res = lib.run_python_ues(build, scratch, PROGRAM, ues)
    assert res.rc == lib.RC_OK, res
    # RCCE_ERROR_NUM_UES, RCCE_ERROR_MESSAGE_LENGTH, RCCE_ERROR_ID (RCCE.h)
    assert sorted(res.out.splitlines()) == sorted([f"ue 0 {m} True True" for m in ("private", "shared", "shared-cached")]
                                                  + ["stages refused 1234327", "chunk refused 1234325"]
                                                  + (["order refused 1234324"] if ues > 1 else [])
                                                  + ["memory refused"]), res


def test_python_stage_exception_ends_the_ue(build, scratch):
    if build.asan:
        pytest.skip("the Python interpreter is not built with AddressSanitizer (test_python.py)")
    res = lib.run_python_ues(build, scratch, "from openscc import pipeline, rcce\n"
                             "def stage(chunk, s):\n    if s == 1:\n        raise ValueError('stage 1 fails')\n"
                             "pipeline.run(stage, b'x' * 100 if rcce.ue() == 0 else None, size=100, chunk=10)\n", 2)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "ValueError: stage 1 fails" in res.err and "UE 1 (core 1) exited with status 1" in res.err, res

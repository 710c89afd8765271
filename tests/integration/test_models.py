"""The programming models' examples in docs/models.md, cut out of the page as they stand: each built (C with
rccecc, C++ with rccec++) and run at 1, 2, 8 and 48 UEs, and in model mode, printing the numbers it must; a
remote call's crash is reported with the serving UE."""
from __future__ import annotations

import re
import sys

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

EXAMPLE = re.compile(r"<!-- example: (\S+) -->\n```\w+\n(.*?)```", re.S)
EXAMPLES = dict(EXAMPLE.findall((lib.REPO / "docs" / "models.md").read_text()))
UES = [1, 2, 8, 48]


def expected(name: str, n: int) -> str:
    """The line each example prints on n UEs, computed here from what it computes."""
    if name == "sum.py":
        s = 100_000 * 100_001 // 2
        return f"sum: {s} on {n} UEs, allreduce {s}, expected {s}"
    if name == "counter.py":
        return f"counter: {3 * n * (n - 1) // 2} after {3 * (n - 1)} calls from {n - 1} UEs"
    if name == "squares.c":
        s = sum(i * i for i in range(100_000))
        return f"squares: {s} from {max(n - 1, 1)} places, expected {s}"
    if name == "tally.cpp":
        return f"tally: {n} writers, sum {sum((u % 100) ** 2 for u in range(n))}; squares total 328350"
    raise AssertionError(f"docs/models.md has an example {name} this test does not know")


def test_the_page_has_one_example_per_model():
    assert sorted(EXAMPLES) == ["counter.py", "squares.c", "sum.py", "tally.cpp"]


@pytest.fixture(scope="module")
def command(tmp_path_factory):
    """command(build, name) -> the argv that runs example `name` (C and C++ built once per build)."""
    built = {}

    def make(build, name):
        if name.endswith(".py"):
            lib.skip_python_on_asan(build)
            src = build.work / "models" / name
            src.parent.mkdir(parents=True, exist_ok=True)
            src.write_text(EXAMPLES[name])
            return [sys.executable, src]
        key = (build.dir, name)
        if key not in built:
            d = build.work / "models"
            d.mkdir(parents=True, exist_ok=True)
            src, exe = d / name, d / name.rsplit(".", 1)[0]
            src.write_text(EXAMPLES[name])
            compiler = "rccec++" if name.endswith(".cpp") else "rccecc"
            p = lib.run([build.dir / "bin" / compiler, "-O2", "-Wall", "-Wextra", "-Werror", src, "-o", exe])
            assert p.rc == 0, p
            built[key] = exe
        return [built[key]]
    return make


@pytest.mark.parametrize("ues", UES)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_natively(build, command, name, ues):
    res = rccerun(build, "-nue", ues, *command(build, name))
    assert res.rc == lib.RC_OK, res
    assert res.out.splitlines() == [expected(name, ues)], res


@pytest.mark.parametrize("ues", [2, 48])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_in_model_mode(build, command, scratch, name, ues):
    res = rccerun(build, "-nue", ues, "--model", "scc", "--job-dir", scratch / "job", *command(build, name))
    assert res.rc == lib.RC_OK, res
    assert res.out.splitlines() == [expected(name, ues)], res
    assert lib.check_summary(scratch / "job" / "summary.json")["chip_totals"]["seconds"] > 0


CRASHING_SERVER = '''
import os
import openscc.rcce as rcce
from openscc import remote


class Fragile:
    def poke(self):
        os.abort()                              # the serving process dies inside the call


if rcce.ue() == 0:
    remote.serve({"fragile": Fragile()}, until_calls=1)
else:
    remote.proxy("fragile", ue=0).poke()
'''


def test_a_crash_inside_a_remote_call_names_the_serving_ue(build, scratch):
    lib.skip_python_on_asan(build)
    res = lib.run_python_ues(build, scratch, CRASHING_SERVER, 2)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "rccerun: UE 0 (core 0) crashed: killed by signal 6 (Aborted)" in res.err, res

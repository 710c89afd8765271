"""The job segment's layout hash (docs/architecture.md "The job segment"): a
program linked against a librcce.a whose shared regions differ from
rccerun's -- one region more, or a layer's block at another version, as an
older or newer OpenSCC builds it -- stops in RCCE_init with a message naming
the fix, the job fails, and no segment is left behind.  A program built with
this build's rccecc attaches, whatever layers it uses (librcce.a brings the
declarations of all of them)."""
from __future__ import annotations

import re
import shutil

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

NUE = 2
STALE = re.compile(r"^RCCE_init failed on UE (\d+): this program was built against a different OpenSCC than rccerun "
                   r"\(this program's layout ([0-9a-f]{16}), rccerun's ([0-9a-f]{16})\); rebuild it with rccecc$")


def fixture(build: lib.Build, name: str):
    """A copy of a stale-layout program (tests/unit/stale_layout.c) in the session directory."""
    src = build.dir / "tests" / name
    if not src.exists():
        pytest.fail(f"{src} is missing: build the tree first")
    dst = build.work / "programs" / name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)
    return dst


@pytest.mark.parametrize("name", ["stale_extra_region", "stale_fewer_regions", "stale_region_version"])
def test_stale_program_is_refused(build, name):
    r = rccerun(build, "-nue", str(NUE), fixture(build, name))
    assert r.rc == lib.RC_UE_FAILED, r
    assert "ran" not in r.out, r
    refused = [m for m in map(STALE.match, r.err_lines) if m]
    assert {int(m.group(1)) for m in refused} <= set(range(NUE)) and refused, r
    assert len({(m.group(2), m.group(3)) for m in refused}) == 1, r  # one program, one job: one pair of hashes
    mine, theirs = refused[0].group(2), refused[0].group(3)
    assert mine != theirs, r
    assert re.search(r"^rccerun: UE \d+ \(core \d+\) exited with status 1$", r.err, re.M), r


def test_rccecc_program_attaches(build):
    """hello uses neither mailboxes nor SVM: its hash still matches rccerun's."""
    out = build.work / "programs" / "hello_layout"
    out.parent.mkdir(parents=True, exist_ok=True)
    c = lib.run([build.rccecc, "-O2", lib.REPO / "apps" / "hello.c", "-o", out])
    assert c.rc == 0, c
    r = rccerun(build, "-nue", str(NUE), out)
    assert r.rc == 0, r
    assert sorted(ln for ln in r.out.splitlines() if ln.startswith("Hello")) == [
        f"Hello from UE {u} of {NUE}" for u in range(NUE)], r

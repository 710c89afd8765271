"""The apps of [SVM-2012]'s evaluation (docs/apps.md): laplace (message passing
and both SVM models), svm_table1 (Table 1) and mailbox_pingpong (Figs. 6-7).

laplace's checksum is compared with the same Jacobi iterations computed here
in Python, so a wrong halo, a stale SVM page or a lost row fails the test
whatever the three variants agree on among themselves."""
from __future__ import annotations

import functools
import re
import struct

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

COLS = 512
SMALL_ROWS, SMALL_ITERS = 64, 20  # 62 interior rows: uneven blocks at 3 and 4 UEs
VARIANTS = ("mp", "strong", "lazy")

LAPLACE = re.compile(
    r"^laplace: variant=(?P<variant>\w+) ues=(?P<ues>\d+) rows=(?P<rows>\d+) cols=(?P<cols>\d+) "
    r"iters=(?P<iters>\d+) time_s=(?P<time>\d+\.\d{6}) checksum=(?P<sum>\S+) bits=0x(?P<bits>[0-9a-f]{16}) "
    r"hash=0x(?P<hash>[0-9a-f]{16})$", re.M)
TABLE1 = re.compile(r"^table1: model=(strong|lazy) row=(\w+) us=(\S+)(?: rewrite_us=(\S+))?$", re.M)
PINGPONG = re.compile(
    r"^mailbox_pingpong: ues=(?P<ues>\d+) hops=(?P<hops>\d+) cores=(?P<c0>\d+),(?P<c1>\d+) "
    r"background=(?P<bg>on|off) round_trips=(?P<trips>\d+) latency_us=(?P<mean>\d+\.\d{3}) "
    r"median_us=(?P<median>\d+\.\d{3}) background_mails=(?P<mails>\d+)$", re.M)


@functools.lru_cache(maxsize=None)
def laplace_reference(rows: int, iters: int) -> tuple[str, str]:
    """(bits of the row-major sum, FNV-1a hash of the points' bits) as hex,
    for laplace's problem: row 0 at 1.0, everything else 0.0 at the start,
    u'[i][j] = 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1])."""
    old = [[1.0 if i == 0 else 0.0 for _ in range(COLS)] for i in range(rows)]
    new = [r[:] for r in old]
    for _ in range(iters):
        for i in range(1, rows - 1):
            up, mid, down, out = old[i - 1], old[i], old[i + 1], new[i]
            for j in range(1, COLS - 1):
                out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1])
        old, new = new, old
    total, h = 0.0, 14695981039346656037
    for row in old:
        for v in row:
            total += v  # in order: sum() would compensate (Python 3.12)
            for byte in struct.pack("<d", v):
                h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return struct.pack(">d", total).hex(), f"{h:016x}"


def assert_ok(app: str, res: lib.Result):
    assert res.rc == lib.RC_OK, res
    assert res.out.count(f"{app}: OK\n") == 1 and res.out.endswith(f"{app}: OK\n"), res
    assert res.err_lines == [], f"unexpected stderr:\n{res}"


def run_laplace(build, nue: int, variant: str, iters: int, rows: int, opts=()) -> re.Match:
    res = rccerun(build, *opts, "-nue", nue, build.app("laplace"), variant, iters, rows)
    assert_ok("laplace", res)
    lines = LAPLACE.findall(res.out)
    m = LAPLACE.search(res.out)
    assert len(lines) == 1 and m, res
    assert (m["variant"], int(m["ues"]), int(m["rows"]), int(m["cols"]), int(m["iters"])) == \
        (variant, nue, rows, COLS, iters), res
    assert struct.pack(">d", float(m["sum"])).hex() == m["bits"], res
    return m


# ---------------------------------------------------------------- laplace


@pytest.mark.parametrize("nue", (1, 2, 3, 4))
@pytest.mark.parametrize("variant", VARIANTS)
def test_laplace_matches_python(build, variant, nue):
    """Every variant and UE count gives the bits of the serial computation."""
    m = run_laplace(build, nue, variant, SMALL_ITERS, SMALL_ROWS)
    assert (m["bits"], m["hash"]) == laplace_reference(SMALL_ROWS, SMALL_ITERS), m.group(0)


@pytest.mark.parametrize("nue", (2, 4))
def test_laplace_lazy_under_svm_check_matches_python(build, nue):
    """With caches as on the SCC (--svm-check) the lazy variant is still right: its barriers release and acquire."""
    m = run_laplace(build, nue, "lazy", SMALL_ITERS, SMALL_ROWS, opts=("--svm-check",))
    assert (m["bits"], m["hash"]) == laplace_reference(SMALL_ROWS, SMALL_ITERS), m.group(0)


def test_laplace_full_rows_agree(build):
    """At the paper's 1024 x 512 (a row per page) and 8 UEs the three variants
    give the same bits, and so does one UE; the field has moved off zero."""
    got = {(v, n): run_laplace(build, n, v, 5, 1024) for v in VARIANTS for n in (1, 8)}
    results = {(m["bits"], m["hash"]) for m in got.values()}
    assert len(results) == 1, {k: m.group(0) for k, m in got.items()}
    assert float(next(iter(got.values()))["sum"]) > COLS, got  # row 0 alone sums to COLS


@pytest.mark.parametrize("args,message", [
    ((), "the first argument must be the variant mp, strong or lazy, got 'nothing'"),
    (("jacobi",), "the first argument must be the variant mp, strong or lazy, got 'jacobi'"),
    (("mp", "0"), "laplace: bad iterations '0'"),
    (("lazy", "10", "4"), "laplace: 4 rows leave 2 interior rows, fewer than the 3 UEs"),
])
def test_laplace_bad_arguments(build, args, message):
    res = rccerun(build, "-nue", 3, build.app("laplace"), *args)
    assert res.rc == lib.RC_UE_FAILED, res
    assert message in res.err, res
    assert "exited with status 2" in res.err, res


# ------------------------------------------------------------- svm_table1


def table1_rows(res: lib.Result) -> dict[tuple[str, str], tuple[str, str | None]]:
    return {(model, row): (us, rewrite or None) for model, row, us, rewrite in TABLE1.findall(res.out)}


@pytest.mark.parametrize("opts", ([], ["--model", "scc"]), ids=("native", "model"))
def test_svm_table1(build, scratch, opts):
    """All eight cells of Table 1 (the lazy model's last one a dash), on the
    paper's cores 0 and 30; the program verifies the values both UEs wrote."""
    if opts:
        opts = opts + ["--job-dir", scratch / "job"]
    res = rccerun(build, "-nue", 2, "--cores", "0,30", *opts, build.app("svm_table1"))
    if opts:  # model mode adds its summary lines on stderr
        assert res.rc == lib.RC_OK and res.out.endswith("svm_table1: OK\n"), res
    else:
        assert_ok("svm_table1", res)
    rows = table1_rows(res)
    keys = ("alloc_4mb", "page_alloc", "page_map", "page_permission")
    assert set(rows) == {(m, k) for m in ("strong", "lazy") for k in keys}, res
    for (model, key), (us, rewrite) in rows.items():
        if (model, key) == ("lazy", "page_permission"):
            assert us == "n/a" and float(rewrite) >= 0.0, res
        else:
            assert rewrite is None and float(us) > 0.0, res
    for title in ("allocation of 4 MByte", "physical allocation of a page frame", "mapping of a page frame",
                  "retrieve the access permission of a page frame"):
        assert re.search(rf"^{title} +\d+\.\d{{3}} us +(\d+\.\d{{3}} us|-)$", res.out, re.M), res


def test_svm_table1_extra_ues_join(build):
    """UEs beyond the two measured ones only join the collectives."""
    res = rccerun(build, "-nue", 4, build.app("svm_table1"))
    assert_ok("svm_table1", res)
    assert len(table1_rows(res)) == 8, res


# ------------------------------------------------------- mailbox_pingpong


def run_pingpong(build, nue: int, cores: str, *args, mailbox: str = "irq") -> re.Match:
    res = rccerun(build, "-nue", nue, "--cores", cores, "--mailbox", mailbox, build.app("mailbox_pingpong"),
                  *map(str, args))
    assert_ok("mailbox_pingpong", res)
    m = PINGPONG.search(res.out)
    assert m and int(m["ues"]) == nue, res
    assert float(m["mean"]) > 0.0 and float(m["median"]) > 0.0, res
    return m


@pytest.mark.parametrize("background", (False, True), ids=("idle", "background"))
@pytest.mark.parametrize("mailbox", ("irq", "poll"))
def test_mailbox_pingpong(build, mailbox, background):
    """UEs 0 and 1 on cores 0 and 30 (5 hops), two or three more active cores:
    in pairs mailing each other with --background (the odd one waits), else
    waiting for UE 0's stop mail."""
    extra = ["--background"] if background else []
    m = run_pingpong(build, 5, "0,30,2,3,4", 300, 20, *extra, mailbox=mailbox)
    assert (int(m["hops"]), m["c0"], m["c1"], int(m["trips"])) == (5, "0", "30", 300), m.group(0)
    assert m["bg"] == ("on" if background else "off"), m.group(0)
    # every background round is one mail each way, and there is at least one
    assert (int(m["mails"]) >= 2 and int(m["mails"]) % 2 == 0) if background else int(m["mails"]) == 0, m.group(0)


@pytest.mark.parametrize("cores,hops", [("0,1", 0), ("0,2", 1), ("0,30", 5), ("0,47", 8), ("47,12", 7)])
def test_mailbox_pingpong_hops(build, cores, hops):
    m = run_pingpong(build, 2, cores, 50, 5)
    assert int(m["hops"]) == hops, m.group(0)


def test_mailbox_pingpong_48_ues_background(build):
    m = run_pingpong(build, 48, "0,30," + ",".join(str(c) for c in range(48) if c not in (0, 30)),
                     100, 10, "--background")
    assert int(m["mails"]) >= 2 * 23, m.group(0)  # 23 pairs, each at least one round


def test_mailbox_pingpong_one_ue(build):
    res = rccerun(build, "-nue", 1, build.app("mailbox_pingpong"))
    assert res.rc == lib.RC_OK and res.out == "mailbox_pingpong: needs at least 2 UEs, nothing to do with 1\n", res

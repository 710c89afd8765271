"""The iRCCE example apps (docs/apps.md): ircce_pingpong, ircce_pingping,
gather_server and peek_server, on 1..48 UEs and under the rccerun options that
change the transfer protocol (--flags tagged, --scheme rplg, --no-single-copy)."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

IRCCE_APPS = ("ircce_pingpong", "ircce_pingping", "gather_server", "peek_server")

# Protocol variants: every app must give the same, verified results under each.
VARIANTS = {
    "default": [],
    "tagged": ["--flags", "tagged"],
    "rplg": ["--scheme", "rplg"],
    "rplg_tagged": ["--scheme", "rplg", "--flags", "tagged"],
    "lprg_normal": ["--scheme", "lprg", "--flags", "normal"],
    "no_single_copy": ["--no-single-copy"],
}

# Short runs that still cross one MPB chunk, the single-copy threshold and the
# sizes where the pipelined protocol takes over.
PP_MAX = 262144
PP_ARGS = [str(PP_MAX), "3"]

# One row of the pingpong / ircce_pingpong / ircce_pingping tables:
# bytes, iterations, time in us, MB/s.
ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+\.\d{3})\s+(\d+\.\d{2})$", re.M)


def assert_clean_stderr(res: lib.Result):
    assert res.err_lines == [], f"unexpected stderr:\n{res}"


def assert_ok_once(app: str, res: lib.Result):
    assert res.rc == lib.RC_OK, res
    assert res.out.endswith(f"{app}: OK\n"), res
    assert res.out.count(f"{app}: OK") == 1, res
    assert "FAILED" not in res.out + res.err, res


def table_rows(res: lib.Result) -> list[tuple[int, int, float, float]]:
    return [(int(b), int(i), float(t), float(m)) for b, i, t, m in ROW.findall(res.out)]


def check_table(app: str, nue: int, res: lib.Result, max_bytes: int, iterations: int, factor: float):
    """Header lines, one row per size 1..max_bytes, and consistent numbers:
    MB/s = factor * bytes / time_us (factor 1 for a half round trip, 2 for
    the pair's aggregate in a ping-ping exchange)."""
    idle = ", last UE idle" if nue % 2 else ""
    assert res.out.startswith(f"{app}: {nue // 2} pair(s) running concurrently{idle}; "
                              f"table for UEs 0 <-> 1\n"), res
    col = "latency_us" if app == "ircce_pingpong" else "exchange_us"
    assert re.search(rf"^\s+bytes\s+iters\s+{col}\s+MB/s$", res.out, re.M), res
    rows = table_rows(res)
    sizes = [1 << k for k in range(max_bytes.bit_length()) if 1 << k <= max_bytes]
    assert [r[0] for r in rows] == sizes, res
    for nbytes, iters, t_us, mbs in rows:
        assert 1 <= iters <= iterations, res
        assert t_us > 0.0, res
        expect = factor * nbytes / t_us
        # both printed values are rounded: allow the rounding error of each
        tol = 0.006 + expect * 0.0005 / t_us + 1e-9
        assert abs(mbs - expect) <= max(tol, expect * 0.01), (nbytes, t_us, mbs, expect, str(res))


def check_gather(nue: int, res: lib.Result, rounds: int, payload: int, window: int):
    assert_ok_once("gather_server", res)
    head = (f"gather_server: {nue - 1} client(s) x {rounds} records of {8 + payload} bytes, "
            f"{min(window, (nue - 1) * rounds)} any-source receives posted\n")
    assert head in res.out, res
    counts = {int(u): int(n) for u, n in re.findall(r"^gather_server: UE (\d+): (\d+) records$", res.out, re.M)}
    assert counts == {u: rounds for u in range(1, nue)}, res
    assert re.search(rf"^gather_server: {(nue - 1) * rounds} records in \d+\.\d+ s$", res.out, re.M), res


def check_peek(nue: int, res: lib.Result, rounds: int, max_body: int):
    assert_ok_once("peek_server", res)
    assert f"peek_server: {nue - 1} client(s) x {rounds} requests (bodies 0..{max_body} bytes)\n" in res.out, res
    served = {int(u): int(n) for u, n in
              re.findall(r"^peek_server: UE (\d+): (\d+) requests served$", res.out, re.M)}
    assert served == {u: rounds for u in range(1, nue)}, res
    m = re.search(r"^peek_server: (\d+) requests in \d+\.\d+ s, (\d+) over-long peeks refused, "
                  r"\d+ empty polling rounds$", res.out, re.M)
    assert m and int(m.group(1)) == (nue - 1) * rounds, res
    # every BYE (16 bytes) and every short request is peeked at past its end once
    assert int(m.group(2)) >= nue - 1, res


# ------------------------------------------------------------------ apps


@pytest.mark.parametrize("app", IRCCE_APPS)
def test_ircce_app_one_ue(build, app):
    res = rccerun(build, "-nue", 1, build.app(app))
    assert res.rc == lib.RC_OK, res
    assert res.out == f"{app}: needs at least 2 UEs, nothing to do with 1\n", res
    assert_clean_stderr(res)


@pytest.mark.parametrize("nue", (2, 3, 8, 48))
@pytest.mark.parametrize("app", ("ircce_pingpong", "ircce_pingping"))
def test_pair_apps(build, app, nue):
    """All pairs run at once; UE 0 prints its pair's table; every byte is checked."""
    args = PP_ARGS if nue <= 8 else ["65536", "2"]
    res = rccerun(build, "-nue", nue, build.app(app), *args)
    assert_ok_once(app, res)
    check_table(app, nue, res, int(args[0]), int(args[1]), 1.0 if app == "ircce_pingpong" else 2.0)
    assert_clean_stderr(res)


def test_ircce_pingpong_parses_like_pingpong(build):
    """ircce_pingpong's rows have pingpong's format (tools read both alike)."""
    a = rccerun(build, "-nue", 2, build.app("pingpong"), "4096", "3")
    b = rccerun(build, "-nue", 2, build.app("ircce_pingpong"), "4096", "3")
    assert a.rc == lib.RC_OK and b.rc == lib.RC_OK, f"{a}\n{b}"
    ra, rb = table_rows(a), table_rows(b)
    assert [r[0] for r in ra] == [0] + [r[0] for r in rb], f"{a}\n{b}"
    head = lambda res: [ln for ln in res.out.splitlines() if ln.lstrip().startswith("bytes")]
    assert head(a) == head(b), f"{a}\n{b}"


@pytest.mark.parametrize("nue", (2, 3, 8, 48))
def test_gather_server(build, nue):
    res = rccerun(build, "-nue", nue, build.app("gather_server"))
    check_gather(nue, res, 20, 120, 4)
    assert_clean_stderr(res)


@pytest.mark.parametrize("rounds,payload,window", [(50, 20, 1), (30, 0, 16), (5, 100000, 3), (40, 7000, 64)])
@pytest.mark.parametrize("nue", (2, 8, 48))
def test_gather_server_shapes(build, nue, rounds, payload, window):
    """Tiny (tagged-flag sized) and empty payloads, several MPB chunks and the
    single-copy path; one to 64 any-source receives kept posted."""
    if nue == 48 and payload >= 7000:
        rounds = 3  # 47 clients x large records: keep the run short
    res = rccerun(build, "-nue", nue, build.app("gather_server"), rounds, payload, window)
    check_gather(nue, res, rounds, payload, window)
    assert_clean_stderr(res)


@pytest.mark.parametrize("nue", (2, 3, 8, 48))
def test_peek_server(build, nue):
    rounds = 10 if nue <= 8 else 4
    res = rccerun(build, "-nue", nue, build.app("peek_server"), rounds)
    check_peek(nue, res, rounds, 20000)
    assert_clean_stderr(res)


@pytest.mark.parametrize("max_body", (0, 60, 100000))
def test_peek_server_body_sizes(build, max_body):
    """Header-only messages; messages that all fit a tagged flag or one line;
    bodies of several MPB chunks (the single-copy path): the peek still shows
    the header and RCCE_recv still gets the whole message."""
    res = rccerun(build, "-nue", 4, build.app("peek_server"), 12, max_body)
    check_peek(4, res, 12, max_body)
    assert_clean_stderr(res)


# -------------------------------------------------------- protocol variants


@pytest.mark.parametrize("nue", (2, 8))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("app", IRCCE_APPS)
def test_ircce_apps_under_protocol_options(build, app, variant, nue):
    opts = VARIANTS[variant]
    if app in ("ircce_pingpong", "ircce_pingping"):
        res = rccerun(build, "-nue", nue, *opts, build.app(app), *PP_ARGS)
        assert_ok_once(app, res)
        check_table(app, nue, res, PP_MAX, 3, 1.0 if app == "ircce_pingpong" else 2.0)
    elif app == "gather_server":
        # 28-byte records: small enough to travel inside a tagged flag
        res = rccerun(build, "-nue", nue, *opts, build.app(app), 30, 20, 4)
        check_gather(nue, res, 30, 20, 4)
    else:
        res = rccerun(build, "-nue", nue, *opts, build.app(app), 8, 40000)
        check_peek(nue, res, 8, 40000)
    assert_clean_stderr(res)


@pytest.mark.parametrize("variant", ("tagged", "rplg", "rplg_tagged"))
@pytest.mark.parametrize("app", ("gather_server", "peek_server"))
def test_servers_48_ues_under_protocol_options(build, app, variant):
    opts = VARIANTS[variant]
    if app == "gather_server":
        res = rccerun(build, "-nue", 48, *opts, build.app(app), 10, 20, 8)
        check_gather(48, res, 10, 20, 8)
    else:
        res = rccerun(build, "-nue", 48, *opts, build.app(app), 3)
        check_peek(48, res, 3, 20000)
    assert_clean_stderr(res)


# ------------------------------------------------------------ command line


@pytest.mark.parametrize("app,usage", [
    ("ircce_pingpong", "usage: ircce_pingpong [max_bytes=1048576] [iterations=100]\n"),
    ("ircce_pingping", "usage: ircce_pingping [max_bytes=1048576] [iterations=100]\n"),
    ("gather_server", "usage: gather_server [rounds=20] [payload=120] [window=4]\n"),
    ("peek_server", "usage: peek_server [rounds=10] [max_body=20000]\n"),
])
def test_ircce_app_help_and_bad_argument(build, app, usage):
    res = rccerun(build, "-nue", 2, build.app(app), "-h")
    assert res.rc == lib.RC_OK, res
    assert res.out.startswith(usage) and res.out.count("usage:") == 1, res
    res = rccerun(build, "-nue", 2, build.app(app), "0")
    assert res.rc == lib.RC_UE_FAILED, res
    assert re.search(rf"^{app}: bad \w+ '0'$", res.err, re.M), res
    assert re.search(r"^rccerun: UE [01] \(core [01]\) exited with status 2$", res.err, re.M), res

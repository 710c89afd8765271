"""The example apps (docs/apps.md) on 1..48 UEs, placements, clocks and chips."""
from __future__ import annotations

import re
import shutil

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

UE_COUNTS = (1, 2, 3, 8, 48)

# Arguments that keep every run short while still crossing the interesting
# sizes (pingpong/bcast go past one MPB chunk and past the 32 KiB single-copy
# threshold).
APP_ARGS = {
    "hello": [],
    "pingpong": ["65536", "3"],
    "shift": ["50", "1000"],
    "share": ["10", "256"],
    "stencil": ["4", "10"],
    "bcast": ["40000", "2"],
    "power": [],
}
NEEDS_PARTNER = {"pingpong", "shift"}


def assert_clean_stderr(res: lib.Result):
    assert res.err_lines == [], f"unexpected stderr:\n{res}"


def check_app_output(app: str, nue: int, res: lib.Result, cores=None):
    cores = list(range(nue)) if cores is None else cores
    out = res.out
    if nue == 1 and app in NEEDS_PARTNER:
        assert f"{app}: needs at least 2 UEs, nothing to do with 1\n" in out, res
        assert f"{app}: OK" not in out, res
        return
    assert out.endswith(f"{app}: OK\n") or f"\n{app}: OK\n" in out, res
    assert out.count(f"{app}: OK") == 1, res
    if app == "hello":
        for u in range(nue):
            assert out.count(f"Hello from UE {u} of {nue}\n") == 1, res
        assert len(re.findall(r"^Hello from UE", out, re.M)) == nue, res
        assert f"hello: sum of (ue+1) over {nue} UEs = {nue * (nue + 1) // 2}\n" in out, res
    elif app == "power":
        domains = {lib.scc_domain(c) for c in cores}
        assert f"power: {nue} UE(s) in {len(domains)} power domain(s)\n" in out, res
        assert len(re.findall(r"^power: UE \d+ in power domain", out, re.M)) == nue, res
        for d in domains:
            assert re.search(rf"^power: domain {d} now at divider 4 \(400 MHz\), voltage level \d+$", out, re.M), res
    elif app == "shift":
        assert f"shift: ring of {nue} UEs, 50 iterations x 1000 bytes" in out, res
    elif app == "share":
        assert f"share: ring of {nue} UE(s), 10 iterations over 256 shared words" in out, res
    elif app == "stencil":
        assert f"stencil: {4 * nue} x 8 grid on {nue} UE(s), 10 iterations" in out, res
    elif app == "bcast":
        assert f"bcast: UE 0 to {nue - 1} other UE(s), 2 iterations per size" in out, res
        sizes = [int(m) for m in re.findall(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+$", out, re.M)]
        assert sizes == [1 << k for k in range(16)], res  # 1 .. 32768 <= 40000
    elif app == "pingpong":
        sizes = [int(m) for m in re.findall(r"^\s+(\d+)\s+\d+\s+[\d.]+\s+[\d.]+$", out, re.M)]
        assert sizes == [0] + [1 << k for k in range(17)], res  # 0, 1 .. 65536


@pytest.mark.parametrize("nue", UE_COUNTS)
@pytest.mark.parametrize("app", lib.APPS)
def test_app(build, app, nue):
    res = rccerun(build, "-nue", nue, build.app(app), *APP_ARGS[app])
    assert res.rc == lib.RC_OK, res
    check_app_output(app, nue, res)
    assert_clean_stderr(res)


@pytest.mark.parametrize("app", ["shift", "share", "stencil", "pingpong"])
def test_app_pairs_odd(build, app):
    """--pairs (or pingpong's pairs) with an odd count: the last UE idles."""
    args = APP_ARGS[app] + (["--pairs"] if app != "pingpong" else [])
    res = rccerun(build, "-nue", 5, build.app(app), *args)
    assert res.rc == lib.RC_OK, res
    assert f"{app}: OK\n" in res.out, res
    if app != "pingpong":
        assert f"{app}: 2 pair(s) (last UE idle)" in res.out, res
    else:
        assert "pingpong: 2 pair(s) running concurrently, last UE idle" in res.out, res
    assert_clean_stderr(res)


def test_app_bad_argument_exits_2(build):
    res = rccerun(build, "-nue", 2, build.app("shift"), "notanumber")
    assert res.rc == lib.RC_UE_FAILED, res
    assert "shift: bad iterations 'notanumber'" in res.err, res
    assert re.search(r"^rccerun: UE [01] \(core [01]\) exited with status 2$", res.err, re.M), res


def test_pingpong_far_cores(build):
    """UEs on cores 0 and 47, the opposite corners of the mesh."""
    res = rccerun(build, "-nue", 2, "--cores", "0,47", build.app("pingpong"), "65536", "5")
    assert res.rc == lib.RC_OK, res
    check_app_output("pingpong", 2, res)
    assert_clean_stderr(res)
    res = rccerun(build, "-nue", 2, "--cores", "0,47", build.app("power"))
    assert res.rc == lib.RC_OK, res
    check_app_output("power", 2, res, cores=[0, 47])
    assert "power: UE 1 in power domain 5 (1 UE(s), master UE 1)\n" in res.out, res


def probe_lines(res: lib.Result):
    ues = re.findall(r"^probe: UE (\d+) of (\d+): power domain (\d+) \(size (\d+), master (\d+)\)$", res.out, re.M)
    divs = dict(re.findall(r"^probe: domain (\d+) divider (\d+)$", res.out, re.M))
    return [tuple(map(int, t)) for t in ues], {int(k): int(v) for k, v in divs.items()}


def test_cores_option_places_ues(build, compile_program):
    probe = compile_program(build, "probe")
    cores = [47, 0, 20, 21, 5]
    res = rccerun(build, "-nue", 5, "--cores", ",".join(map(str, cores)), probe)
    assert res.rc == lib.RC_OK and "probe: OK\n" in res.out, res
    ues, _ = probe_lines(res)
    assert [(u, lib.scc_domain(c)) for u, c in enumerate(cores)] == [(u, d) for u, _, d, _, _ in ues], res
    # UEs 2 and 3 (cores 20, 21: one tile) share domain 2, whose master is UE 2
    assert ues[2][3:] == (2, 2) and ues[3][3:] == (2, 2), res


def test_core_ranges(build, compile_program):
    probe = compile_program(build, "probe")
    res = rccerun(build, "-nue", 6, "--cores", "40-43,2,3", probe)
    assert res.rc == lib.RC_OK, res
    ues, _ = probe_lines(res)
    assert [d for _, _, d, _, _ in ues] == [lib.scc_domain(c) for c in (40, 41, 42, 43, 2, 3)], res


def test_hostfile(build, compile_program, scratch):
    """An SCC hostfile (-f): core numbers as rckNN or NN, comments, blank lines."""
    hostfile = scratch / "hosts"
    hostfile.write_text("# my SCC hosts\nrck00\nrck47   # far corner\n\n 20\n21 33\n")
    probe = compile_program(build, "probe")
    res = rccerun(build, "-nue", 3, "-f", hostfile, probe)
    assert res.rc == lib.RC_OK and "probe: OK\n" in res.out, res
    ues, _ = probe_lines(res)
    assert [(u, d) for u, _, d, _, _ in ues] == [(0, 0), (1, 5), (2, 2)], res
    # The core numbers appear in rccerun's reports.
    crash = compile_program(build, "crash")
    res = rccerun(build, "-nue", 4, "-f", hostfile, crash, "exit_status")
    assert res.rc == lib.RC_UE_FAILED, res
    assert "rccerun: UE 2 (core 20) exited with status 3\n" in res.err, res


@pytest.mark.parametrize("clock,divider", [(None, 3), ("0.8", 2), ("0.533", 3), ("0.4", 4), ("0.1", 16)])
def test_clock(build, compile_program, clock, divider):
    """-clock GHZ sets the initial tile divider (1600 MHz / divider)."""
    probe = compile_program(build, "probe")
    opts = ["-clock", clock] if clock else []
    res = rccerun(build, *opts, "-nue", 8, probe)
    assert res.rc == lib.RC_OK and "probe: OK\n" in res.out, res
    _, divs = probe_lines(res)
    assert divs == {0: divider, 1: divider}, res


def test_power_app_at_0_8_ghz(build):
    res = rccerun(build, "-clock", "0.8", "-nue", 16, build.app("power"))
    assert res.rc == lib.RC_OK, res
    check_app_output("power", 16, res)
    assert_clean_stderr(res)


def test_parametric_chip_100_ues_singlebit(build, compile_program):
    """An 8x8 mesh with 2 cores per tile runs 100 UEs (single-bit flags)."""
    stress = compile_program(build, "stress", "-DSINGLEBITFLAGS")
    res = rccerun(build, "--chip", "8x8x2", "-nue", 100, stress, 7, 4, 65536)
    assert res.rc == lib.RC_OK, res
    assert re.search(r"^stress: OK \(100 UEs, seed 7, 4 rounds, \d+ messages", res.out, re.M), res
    assert_clean_stderr(res)


@pytest.mark.parametrize("nue", [127, 128, 200])
def test_parametric_chip_big_flags_too_many_ues_fail_clearly(build, compile_program, nue):
    """From 127 UEs on, 2 big-flag lines per UE leave no room in an 8 KB MPB
    (256 lines) for the barrier and the send buffer: RCCE_init must say why
    and what to do, on every UE, one whole line each."""
    stress = compile_program(build, "stress")
    res = rccerun(build, "--chip", "16x8x2", "-nue", nue, stress, 1, 1, 64)
    assert res.rc == lib.RC_UE_FAILED, res
    want = re.compile(rf"RCCE_init failed on UE (\d+): {nue} UEs need more flag lines than a 8192-byte MPB holds; "
                      r"compile with -DSINGLEBITFLAGS or use a chip with a larger MPB \(--chip WxHxC:BYTES\)")
    init_lines = [ln for ln in res.err.splitlines() if "RCCE_init" in ln]
    assert init_lines, res
    for ln in init_lines:
        assert want.fullmatch(ln), f"not one whole, clear line: {ln!r}\n{res}"
    assert re.search(r"^rccerun: UE (\d+) \(core \1\) exited with status 1$", res.err, re.M), res


def test_parametric_chip_larger_mpb_takes_big_flags(build, compile_program):
    """The same 128 UEs fit with a 16 KB MPB (WxHxC:MPB_BYTES)."""
    stress = compile_program(build, "stress")
    res = rccerun(build, "--chip", "8x8x2:16384", "-nue", 128, stress, 1, 1, 256)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (128 UEs, seed 1, 1 rounds" in res.out, res


def test_chip_file(build, compile_program, scratch):
    chip = scratch / "mychip.chip"
    chip.write_text("# a small chip with a big MPB\nbase = 4x4x2\nname = testchip\n"
                    "mpb_bytes_per_core = 16384   # 16 KB per core\n")
    res = rccerun(build, "--chip", chip, "-nue", 32, build.app("hello"))
    assert res.rc == lib.RC_OK, res
    check_app_output("hello", 32, res)
    # The MPB size reaches RCCE: the basic send buffer is larger than 8 KB.
    stress = compile_program(build, "stress")
    res = rccerun(build, "--chip", chip, "-nue", 4, stress, 3, 10, 100000)
    assert res.rc == lib.RC_OK, res
    m = re.search(r"^stress: OK \(4 UEs, .* chunk (\d+)\)$", res.out, re.M)
    assert m and 8192 < int(m.group(1)) < 16384, res
    res = rccerun(build, "--chip", chip, "-nue", 33, build.app("hello"))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith("rccerun: 33 UEs do not fit chip 'testchip' with 32 cores\n"), res


def test_chip_file_errors(build, scratch):
    bad = scratch / "bad.chip"
    bad.write_text("base = scc\ntiles_x = 3\nbogus = 1\n")
    res = rccerun(build, "--chip", bad, "-nue", 2, build.app("hello"))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith(f"rccerun: {bad}:3: unknown key 'bogus'\n"), res
    bad.write_text("tiles_x = many\n")
    res = rccerun(build, "--chip", bad, "-nue", 2, build.app("hello"))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith(f"rccerun: {bad}:1: tiles_x = 'many': expected an integer from 1 to 1024 (tiles)\n"), res
    res = rccerun(build, "--chip", scratch / "missing.chip", "-nue", 2, build.app("hello"))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith(f"rccerun: cannot open chip file '{scratch / 'missing.chip'}': "
                              f"No such file or directory\n"), res


def test_program_on_path_and_in_cwd(build, scratch):
    """rccerun finds a program in the current directory (as on the SCC) and on PATH."""
    shutil.copy2(build.app("hello"), scratch / "myhello")
    res = rccerun(build, "-nue", 2, "myhello", cwd=scratch)
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res
    env = lib.base_env(build, PATH=f"{scratch}:/usr/bin:/bin")
    res = rccerun(build, "-nue", 2, "myhello", env=env, cwd=build.work)
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res


def test_program_arguments_reach_every_ue(build):
    res = rccerun(build, "-nue", 3, "--", build.app("stencil"), "2", "3", "5")
    assert res.rc == lib.RC_OK, res
    assert "stencil: 6 x 5 grid on 3 UE(s), 3 iterations" in res.out, res


def test_locks_and_shared_memory(build, compile_program):
    locks = compile_program(build, "locks")
    for nue in (2, 8, 48):
        res = rccerun(build, "-nue", nue, locks, 100)
        assert res.rc == lib.RC_OK, res
        assert f"locks: OK ({nue} UEs, 100 iterations)\n" in res.out, res
        assert_clean_stderr(res)


def test_shm_size(build, compile_program):
    locks = compile_program(build, "locks")
    res = rccerun(build, "--shm-size", "1M", "-nue", 2, locks, 10, 2 << 20)
    assert res.rc == lib.RC_OK, res
    assert "locks: RCCE_shmalloc(2097152) NULL\n" in res.out, res
    res = rccerun(build, "--shm-size", "4M", "-nue", 2, locks, 10, 2 << 20)
    assert res.rc == lib.RC_OK, res
    assert "locks: RCCE_shmalloc(2097152) ok\n" in res.out, res


@pytest.mark.parametrize("nue", UE_COUNTS)
def test_collectives(build, compile_program, nue):
    """Reductions (all types, operators, roots), broadcasts (1 byte to several
    chunks), RCCE_comm_split / RCCE_comm_free and the 8-communicator budget."""
    prog = compile_program(build, "collectives")
    count = 3000 if nue < 48 else 1500
    res = rccerun(build, "-nue", nue, prog, count)
    assert res.rc == lib.RC_OK, res
    assert re.search(rf"^collectives: OK \({nue} UEs, count {count}, chunk \d+\)$", res.out, re.M), res
    assert_clean_stderr(res)


@pytest.mark.parametrize("nue", (3, 48))
def test_collectives_singlebit(build, compile_program, nue):
    prog = compile_program(build, "collectives", "-DSINGLEBITFLAGS")
    res = rccerun(build, "-nue", nue, prog, 2000)
    assert res.rc == lib.RC_OK, res
    assert f"collectives: OK ({nue} UEs, count 2000" in res.out, res


def test_example_chip_file(build):
    """chips/small-2x2.chip from the repository: 8 cores."""
    chip = lib.REPO / "chips" / "small-2x2.chip"
    res = rccerun(build, "--chip", chip, "-nue", 8, build.app("stencil"), 4, 10)
    assert res.rc == lib.RC_OK and "stencil: OK\n" in res.out, res
    res = rccerun(build, "--chip", chip, "-nue", 9, build.app("hello"))
    assert res.rc == lib.RC_USAGE, res
    assert res.err.startswith("rccerun: 9 UEs do not fit chip 'small-2x2' with 8 cores\n"), res


def test_app_help(build):
    """An app's -h prints its usage on stdout (UE 0) and every UE exits 0."""
    res = rccerun(build, "-nue", 3, build.app("pingpong"), "-h")
    assert res.rc == lib.RC_OK, res
    assert res.out.startswith("usage: pingpong [max_bytes=4194304] [iterations=100]\n"), res
    assert res.out.count("usage:") == 1, res


@pytest.mark.parametrize("nue", (2, 3, 8, 48))
def test_communicator_churn(build, compile_program, nue):
    """split / barrier / free, over and over: the freed barrier line comes back
    at once, and no UE may be stranded in the barrier of the freed communicator."""
    prog = compile_program(build, "churn")
    res = rccerun(build, "-nue", nue, prog, 300)
    assert res.rc == lib.RC_OK, res
    assert f"churn: OK ({nue} UEs, 300 iterations)\n" in res.out, res

"""rccerun's command line, rccecc, `make install`, the pkg-config file and the openscc command."""
from __future__ import annotations

import re
import shutil

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

SEE_HELP = "(see rccerun --help)\n"


def usage_error(build, *args, cwd=None) -> lib.Result:
    res = rccerun(build, *args, cwd=cwd)
    assert res.rc == lib.RC_USAGE, res
    assert res.out == "", res
    assert res.err.endswith(SEE_HELP), res
    return res


def first_line(res: lib.Result) -> str:
    return res.err.splitlines()[0]


def test_help(build):
    for opt in ("--help", "-h"):
        res = rccerun(build, opt)
        assert res.rc == lib.RC_OK, res
        assert res.out.startswith("usage: rccerun -nue N [options] [--] program [args...]\n"), res
        for o in ("-nue N", "--cores LIST", "-f FILE", "--chip NAME|FILE", "-clock GHZ", "--timeout S",
                  "--shm-size BYTES", "--debug", "--no-single-copy"):
            assert o in res.out, res
        assert res.err == "", res


def test_missing_nue(build):
    res = usage_error(build, build.app("hello"))
    assert first_line(res) == "rccerun: missing -nue N", res


@pytest.mark.parametrize("value", ["0", "-3", "1025", "abc", "2x", ""])
def test_bad_nue(build, value):
    res = usage_error(build, "-nue", value, build.app("hello"))
    assert first_line(res) == f"rccerun: -nue needs a number of UEs from 1 to 1024, got '{value}'", res


def test_nue_needs_value(build):
    res = usage_error(build, "-nue")
    assert first_line(res) == "rccerun: option '-nue' needs a value", res


def test_too_many_ues_for_scc(build):
    res = usage_error(build, "-nue", "49", build.app("hello"))
    assert first_line(res) == "rccerun: 49 UEs do not fit chip 'scc' with 48 cores", res
    res = usage_error(build, "--nue", "100", "--chip", "4x4", build.app("hello"))
    assert first_line(res) == "rccerun: 100 UEs do not fit chip '4x4' with 32 cores", res


@pytest.mark.parametrize("cores", ["0,x", "a-b", "3-1", "-", "0;1", "1-", "5-2,7", "0,-1"])
def test_bad_cores_list(build, cores):
    res = usage_error(build, "-nue", "2", "--cores", cores, build.app("hello"))
    assert first_line(res) == f"rccerun: bad --cores list '{cores}' (expected e.g. 0,47 or 0-7,16)", res


def test_core_48_on_scc(build):
    res = usage_error(build, "-nue", "2", "--cores", "0,48", build.app("hello"))
    assert first_line(res) == "rccerun: core 48 does not exist on chip 'scc' (cores 0..47)", res


def test_duplicate_core(build):
    res = usage_error(build, "-nue", "3", "--cores", "4,7,4", build.app("hello"))
    assert first_line(res) == "rccerun: core 4 is listed twice (UEs 0 and 2)", res


def test_extra_cores_are_ignored(build):
    res = rccerun(build, "-nue", "2", "--cores", "7,9,11", build.app("hello"))
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res


def test_fewer_cores_than_ues(build):
    res = usage_error(build, "-nue", "3", "--cores", "0,1", build.app("hello"))
    assert first_line(res) == "rccerun: 2 cores listed for 3 UEs", res


def test_hostfile_errors(build, scratch):
    res = usage_error(build, "-nue", "2", "-f", scratch / "nope", build.app("hello"))
    assert first_line(res) == f"rccerun: cannot open hostfile '{scratch / 'nope'}': No such file or directory", res
    bad = scratch / "hosts"
    bad.write_text("rck00\nrckXY\n")
    res = usage_error(build, "-nue", "2", "-f", bad, build.app("hello"))
    assert first_line(res) == f"rccerun: {bad}:2: 'rckXY' is not a core number (00 to 1023, or rck00 to rck1023)", res
    bad.write_text("rck00\n")
    res = usage_error(build, "-nue", "2", "-f", bad, build.app("hello"))
    assert first_line(res) == "rccerun: 1 cores listed for 2 UEs", res
    res = usage_error(build, "-nue", "2", "-f", bad, "--cores", "0,1", build.app("hello"))
    assert first_line(res) == "rccerun: give either --cores or -f, not both", res


@pytest.mark.parametrize("chip", ["foo", "scc2", "0x4", "4x4x2:abc", "4x4y"])
def test_unknown_chip(build, chip):
    res = usage_error(build, "-nue", "2", "--chip", chip, build.app("hello"), cwd=build.work)
    line = first_line(res)
    if chip == "0x4":
        assert line == "rccerun: chip '0x4': tiles_x = '0': expected an integer from 1 to 1024 (tiles)", res
    elif chip[0].isdigit():
        assert line == (f"rccerun: bad parametric chip name '{chip}' "
                        f"(expected WxH, WxHxC or WxHxC:MPB_BYTES)"), res
    else:
        assert line == (f"rccerun: unknown chip '{chip}' (presets: scc, WxH[xC][:MPB_BYTES]; a chip file is named "
                        f"by a path with a '/' or an extension, e.g. ./{chip})"), res


def test_missing_program(build):
    res = usage_error(build, "-nue", "2")
    assert first_line(res) == "rccerun: missing the program to run", res
    res = usage_error(build, "-nue", "2", "--")
    assert first_line(res) == "rccerun: missing the program to run", res


def test_program_not_found(build, scratch):
    missing = scratch / "no-such-program"
    res = usage_error(build, "-nue", "2", missing)
    assert first_line(res) == f"rccerun: cannot execute program '{missing}' (not found or not executable)", res
    res = usage_error(build, "-nue", "2", "no-such-program-xyz", cwd=scratch)
    assert first_line(res) == ("rccerun: cannot execute program 'no-such-program-xyz' "
                               "(not found or not executable)"), res
    text = scratch / "not-executable"
    text.write_text("hello\n")
    text.chmod(0o644)
    res = usage_error(build, "-nue", "2", text)
    assert first_line(res) == f"rccerun: cannot execute program '{text}' (not found or not executable)", res


@pytest.mark.parametrize("value", ["abc", "0", "-1", "5s", "", "nan"])
def test_bad_timeout(build, value):
    res = usage_error(build, "-nue", "2", "--timeout", value, build.app("hello"))
    assert first_line(res) == (f"rccerun: --timeout needs a positive number of seconds up to 31536000 (a year), "
                               f"got '{value}'"), res


@pytest.mark.parametrize("value", ["abc", "0", "12X", "-5M"])
def test_bad_shm_size(build, value):
    res = usage_error(build, "-nue", "2", "--shm-size", value, build.app("hello"))
    assert first_line(res) == (f"rccerun: --shm-size needs a size from 1 byte to 1T like 64M (suffixes K, M, G, T), "
                               f"got '{value}'"), res


@pytest.mark.parametrize("value", ["5", "0", "-1", "fast", "0.05"])
def test_bad_clock(build, value):
    res = usage_error(build, "-nue", "2", "-clock", value, build.app("hello"))
    assert first_line(res) == (f"rccerun: -clock '{value}' is no tile clock of this chip "
                               f"(global clock / divider in the allowed range: 0.1 to 0.8 GHz)"), res


def test_unknown_option(build):
    res = usage_error(build, "-nue", "2", "--frobnicate", build.app("hello"))
    assert first_line(res) == "rccerun: unknown option '--frobnicate'", res


def test_options_after_program_belong_to_it(build):
    """Everything after the program name is the program's: rccerun must not
    take the app's --pairs (or a -nue) for its own."""
    res = rccerun(build, "-nue", "4", build.app("shift"), "20", "64", "--pairs")
    assert res.rc == lib.RC_OK, res
    assert "shift: 2 pair(s), 20 iterations x 64 bytes" in res.out, res


def test_usage_errors_start_nothing(build):
    """A usage error creates no segment and starts no UE (the autouse fixture
    checks processes and segments; here: nothing was even printed by a UE)."""
    before = lib.shm_segments()
    res = usage_error(build, "-nue", "49", build.app("hello"))
    assert "Hello" not in res.out + res.err
    assert lib.leftover_segments(before) == []


# ----------------------------------------------------------------- rccecc


def test_rccecc_showme(build):
    res = lib.run([build.rccecc, "--showme"])
    assert res.rc == 0, res
    line = res.out.strip()
    assert f"-I{build.source / 'include'}" in line.split(), res
    assert f"-L{build.dir / 'lib'}" in line.split(), res
    assert line.split()[-2:] == ["-lrcce", "-lpthread"], res
    assert "<args>" in line, res
    assert ("-fsanitize=address,undefined" in line) == build.asan, res
    res = lib.run([build.rccecc, "--showme", "-c"])
    assert res.rc == 0 and "-lrcce" not in res.out and f"-I{build.source / 'include'}" in res.out, res


def test_rccecc_compile_and_link_steps(build, scratch):
    """rccecc -c then rccecc to link, like any cc."""
    obj = scratch / "hello.o"
    exe = scratch / "hello"
    res = lib.run([build.rccecc, "-O2", "-c", lib.REPO / "apps" / "hello.c", "-o", obj])
    assert res.rc == 0 and obj.exists(), res
    res = lib.run([build.rccecc, obj, "-o", exe])
    assert res.rc == 0 and exe.exists(), res
    res = rccerun(build, "-nue", 3, exe)
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res


def test_rccecc_reports_compile_errors(build, scratch):
    bad = scratch / "bad.c"
    bad.write_text('#include "RCCE.h"\nint RCCE_APP(int argc, char **argv) { return RCCE_no_such_call(); }\n')
    res = lib.run([build.rccecc, "-Werror=implicit-function-declaration", bad, "-o", scratch / "bad"])
    assert res.rc != 0, res
    assert "RCCE_no_such_call" in res.err, res


def test_program_runs_standalone(build):
    """Started without rccerun, an RCCE program is a 1-UE job on core 0."""
    res = lib.run([build.app("hello")], env=lib.base_env(build))
    assert res.rc == 0, res
    assert "Hello from UE 0 of 1\n" in res.out and "hello: OK\n" in res.out, res


# ------------------------------------------------------ make install, pkg-config


@pytest.fixture(scope="session")
def installed(build):
    """`make install PREFIX=<tmp>` of this build, once per build."""
    prefix = build.work / "prefix"
    if not (prefix / "bin" / "rccerun").exists():
        res = lib.run(["make", "-C", lib.REPO, "install", f"PREFIX={prefix}", f"BUILD={build.dir}"], timeout=600)
        assert res.rc == 0, res
    return prefix


def test_make_install_layout(build, installed):
    for rel in ("bin/rccerun", "bin/rccecc", "bin/openscc", "lib/librcce.a", "include/openscc/RCCE.h",
                "include/openscc/RCCE_lib.h", "lib/pkgconfig/openscc-rcce.pc",
                "share/openscc/python/openscc/cli.py", "share/openscc/python/openscc/summary.schema.json",
                "share/openscc/python/openscc/templates/report.html.j2"):
        assert (installed / rel).exists(), rel


def test_installed_rccecc_points_into_prefix(build, installed):
    res = lib.run([installed / "bin" / "rccecc", "--showme"])
    assert res.rc == 0, res
    words = res.out.split()
    assert f"-I{installed}/include/openscc" in words, res
    assert f"-L{installed}/lib" in words, res


def test_installed_tools_build_and_run_an_app(build, installed, scratch):
    exe = scratch / "stencil"
    res = lib.run([installed / "bin" / "rccecc", "-O2", lib.REPO / "apps" / "stencil.c", "-o", exe, "-lm"])
    assert res.rc == 0, res
    res = lib.run([installed / "bin" / "rccerun", "-nue", 4, exe, 4, 10], env=lib.base_env(build), cwd=scratch)
    assert res.rc == 0, res
    assert "stencil: OK\n" in res.out, res


def test_installed_rccerun_runs_mpi_jobs(build, installed, scratch):
    """make install puts the rank wrapper and every provider flavour the build has where an installed rccerun
    --mpi looks for them (<prefix>/bin/../lib/openscc-fi-N), and runs an MPI job with them."""
    assert (installed / "bin" / "openscc-rank").exists()
    flavours = [n for n in (1, 2) if (build.dir / "lib" / f"openscc-fi-{n}" / "libopenscc-fi.so").exists()]
    for n in flavours:
        assert (installed / "lib" / f"openscc-fi-{n}" / "libopenscc-fi.so").exists(), n
    if 1 not in flavours or not shutil.which("mpirun.openmpi"):
        pytest.skip("no Open MPI provider in this build, or no Open MPI")
    res = lib.run([installed / "bin" / "rccerun", "--mpi", "openmpi", "-nue", 2, build.app("hello")],
                  env=lib.base_env(build), cwd=scratch)
    assert res.rc == 0, res
    assert "hello: sum of (ue+1) over 2 UEs = 3" in res.out, res


@pytest.mark.parametrize("where", ["build tree", "installed"])
def test_openscc_command_reports_a_job(build, installed, scratch, where):
    """`openscc report` as a command beside rccerun: the build tree's runs the
    package from the source tree, the installed one its copy under the prefix."""
    bindir = build.dir / "bin" if where == "build tree" else installed / "bin"
    env = lib.base_env(build)
    env.pop("PYTHONPATH", None)
    job = scratch / "job"
    res = lib.run([bindir / "rccerun", "-nue", 2, "--trace", "sizes", "--job-dir", job, build.app("pingpong"), 64, 3],
                  env=env, cwd=scratch)
    assert res.rc == 0, res
    res = lib.run([bindir / "openscc", "report", job], env=env, cwd=scratch)
    assert res.rc == 0 and res.out == f"{job}/report/index.html\n", res
    assert "Message sizes" in (job / "report" / "index.html").read_text()
    package = lib.REPO / "python" if where == "build tree" else installed / "share" / "openscc" / "python"
    assert f'PYTHONPATH="{package}' in (bindir / "openscc").read_text()


def expected_pc_flags(prefix):
    return [f"-I{prefix}/include/openscc"], [f"-L{prefix}/lib", "-lrcce", "-lpthread"]


def test_pkg_config_file(build, installed):
    pc = installed / "lib" / "pkgconfig" / "openscc-rcce.pc"
    text = pc.read_text()
    fields = dict(re.findall(r"^([A-Za-z]+): *(.*)$", text, re.M))
    assert fields.get("Name") == "openscc-rcce", text
    assert re.fullmatch(r"\d+\.\d+\.\d+", fields.get("Version", "")), text
    cflags, libs = expected_pc_flags(installed)
    if shutil.which("pkg-config"):
        env = lib.base_env(PKG_CONFIG_PATH=str(pc.parent))
        env.pop("PKG_CONFIG_LIBDIR", None)
        res = lib.run(["pkg-config", "--cflags", "openscc-rcce"], env=env)
        assert res.rc == 0 and res.out.split() == cflags, res
        res = lib.run(["pkg-config", "--libs", "openscc-rcce"], env=env)
        assert res.rc == 0 and res.out.split() == libs, res
    else:  # expand the variables by hand
        vars_ = {}
        for k, v in re.findall(r"^([A-Za-z_]+)=(.*)$", text, re.M):
            vars_[k] = re.sub(r"\$\{(\w+)\}", lambda m: vars_[m.group(1)], v)
        expand = lambda s: re.sub(r"\$\{(\w+)\}", lambda m: vars_[m.group(1)], s)  # noqa: E731
        assert expand(fields["Cflags"]).split() == cflags, text
        assert expand(fields["Libs"]).split() == libs, text


def test_pkg_config_builds_a_program(build, installed, scratch):
    """A Makefile-style build with plain cc and pkg-config (Release build:
    sanitizer flags are not pkg-config's business)."""
    if build.asan:
        pytest.skip("plain cc cannot link a sanitizer-instrumented librcce")
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config not installed")
    env = lib.base_env(PKG_CONFIG_PATH=str(installed / "lib" / "pkgconfig"))
    cflags = lib.run(["pkg-config", "--cflags", "openscc-rcce"], env=env)
    libs = lib.run(["pkg-config", "--libs", "openscc-rcce"], env=env)
    assert cflags.rc == 0 and libs.rc == 0, f"{cflags}\n{libs}"
    exe = scratch / "hello"
    res = lib.run(["cc", "-O2", *cflags.out.split(), lib.REPO / "apps" / "hello.c", "-o", exe, *libs.out.split()])
    assert res.rc == 0, res
    res = lib.run([installed / "bin" / "rccerun", "-nue", 2, exe], env=lib.base_env(build), cwd=scratch)
    assert res.rc == 0 and "hello: OK\n" in res.out, res

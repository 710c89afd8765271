"""Bad input is a precise error, never a crash, a hang or a silently changed
value: chip files and names (docs/chips.md), hostfiles, numeric options
(docs/rccerun.md), and summary.json for arguments that are not UTF-8
(docs/monitoring.md)."""
from __future__ import annotations

import json
import os

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

SEE_HELP = "(see rccerun --help)\n"
QUICK = 30.0  # seconds: a refused input returns at once; a hang fails here, not at the hard timeout


def usage_error(build, *args, cwd=None) -> str:
    """Runs rccerun expecting a usage error; returns its message line."""
    res = rccerun(build, *args, cwd=cwd, timeout=QUICK)
    assert res.rc == lib.RC_USAGE, res
    assert res.out == "" and res.err.endswith(SEE_HELP), res
    assert res.err.count("\n") == 2, res
    return res.err.splitlines()[0]


# ------------------------------------------------------------- chip files


@pytest.mark.parametrize("text, line", [
    # 4 x 1073741825 x 1 cores wrapped around to 4 and crashed rccerun.
    ("tiles_x = 4\ntiles_y = 1073741825\ncores_per_tile = 1\n",
     "2: tiles_y = '1073741825': expected an integer from 1 to 1024 (tiles)"),
    ("mpb_bytes_per_core = 4294975488\n",
     "1: mpb_bytes_per_core = '4294975488': expected an integer from 32 to 1048576 (bytes)"),
    ("base = scc\nlat_ddr_core = nan\n", "2: lat_ddr_core = 'nan': expected a number from 0 to 1000000 (core cycles)"),
    ("power_uncore = inf\n", "1: power_uncore = 'inf': expected a number from 0 to 10000 (W)"),
    ("power_domain_static = 5e9\n", "1: power_domain_static = '5e9': expected a number from 0 to 10000 (W)"),
    ("time_compute_slowdown = -1\n",
     "1: time_compute_slowdown = '-1': expected a number from 0 to 1000 (P54C time / host time)"),
    ("tiles_y = 32\n# a comment\ntiles_x = 32\n",
     "3: tiles_x x tiles_y x cores_per_tile = 32 x 32 x 2 = 2048 cores, more than 1024"),
    ("name = small\ntiles_x = 2\n", "2: mc = 5,0 lies outside the mesh of tiles_x x tiles_y = 2 x 4 tiles"),
    ("divider_min = 4\n", "1: default_divider = 3 is outside divider_min..divider_max = 4..16"),
])
def test_chip_file_errors_name_file_line_key(build, scratch, text, line):
    chip = scratch / "bad.chip"
    chip.write_text(text)
    assert usage_error(build, "-nue", 2, "--chip", chip, build.app("hello")) == f"rccerun: {chip}:{line}"


def test_chip_file_has_no_line_limit(build, scratch):
    """A key inside a long comment stays commented out (the old reader cut
    lines at 511 bytes and applied the tail); a long line is read whole."""
    chip = scratch / "long.chip"
    chip.write_text("# " + "x" * 600 + " tiles_x = 1\n" + "name = " + "n" * 10 + " " * 1000 + "# padded\n")
    res = rccerun(build, "-nue", 48, "--chip", chip, "--trace", "counters", "--job-dir", scratch / "job",
                  build.app("hello"))
    assert res.rc == lib.RC_OK, res
    job = lib.check_summary(scratch / "job" / "summary.json")["job"]
    assert job["chip"] == "nnnnnnnnnn" and job["mesh"]["tiles_x"] == 6, job


def test_bare_preset_name_is_the_preset(build, scratch):
    """A file named scc in the current directory is not the scc preset, with
    or without --chip; ./scc is that file."""
    (scratch / "scc").write_text("tiles_x = 1\nmc = 0,0\n")
    for args in ((), ("--chip", "scc")):
        res = rccerun(build, "-nue", 48, *args, build.app("hello"), cwd=scratch)
        assert res.rc == lib.RC_OK, res
    assert usage_error(build, "-nue", 48, "--chip", "./scc", build.app("hello"), cwd=scratch) == \
        "rccerun: 48 UEs do not fit chip 'scc' with 8 cores"
    (scratch / "mychip").write_text("tiles_x = 1\n")
    assert usage_error(build, "-nue", 2, "--chip", "mychip", build.app("hello"), cwd=scratch) == (
        "rccerun: unknown chip 'mychip' (presets: scc, WxH[xC][:MPB_BYTES]; a chip file is named by a path with "
        "a '/' or an extension, e.g. ./mychip)")


@pytest.mark.parametrize("option, what", [("--chip", "chip file"), ("-f", "hostfile")])
def test_only_regular_files_are_read(build, scratch, option, what):
    """A directory, /dev/zero and a FIFO without a writer are refused at once."""
    fifo = scratch / "fifo"
    os.mkfifo(fifo)
    for path, kind in ((f"{scratch}/", "a directory"), ("/dev/zero", "a device"), (str(fifo), "a FIFO")):
        assert usage_error(build, "-nue", 2, option, path, build.app("hello")) == \
            f"rccerun: {what} '{path}' is {kind}, not a regular file"


def test_parametric_chip_overflow(build):
    assert usage_error(build, "-nue", 2, "--chip", "4x1073741825x1", build.app("hello")) == \
        "rccerun: chip '4x1073741825x1': tiles_y = '1073741825': expected an integer from 1 to 1024 (tiles)"
    assert usage_error(build, "-nue", 2, "--chip", "4x4x2x3", build.app("hello")) == \
        "rccerun: bad parametric chip name '4x4x2x3' (expected WxH, WxHxC or WxHxC:MPB_BYTES)"


# ------------------------------------------------------------- hostfiles


def test_one_line_48_core_hostfile(build, scratch):
    """All 48 cores on one line (> 255 bytes), last one rck47 (was read as 4)."""
    hosts = scratch / "hosts"
    cores = list(range(47, -1, -1))
    hosts.write_text("   ".join(f"rck{c:02d}" for c in cores) + "   \n")
    assert len(hosts.read_text()) > 255
    res = rccerun(build, "-nue", 48, "-f", hosts, "--trace", "counters", "--job-dir", scratch / "job",
                  build.app("hello"))
    assert res.rc == lib.RC_OK, res
    ues = lib.check_summary(scratch / "job" / "summary.json")["ues"]
    assert [u["core"] for u in ues] == cores


def test_hostfile_comment_tail_is_no_core(build, scratch):
    hosts = scratch / "hosts"
    hosts.write_text("00 01\n# " + "x" * 300 + " 05 06\n")
    assert usage_error(build, "-nue", 3, "-f", hosts, build.app("hello")) == "rccerun: 2 cores listed for 3 UEs"
    hosts.write_text("00\n01 1024\n")
    assert usage_error(build, "-nue", 2, "-f", hosts, build.app("hello")) == \
        f"rccerun: {hosts}:2: '1024' is not a core number (00 to 1023, or rck00 to rck1023)"
    hosts.write_bytes(b"00 01\x00 02\n")
    assert usage_error(build, "-nue", 2, "-f", hosts, build.app("hello")) == \
        f"rccerun: {hosts}:1: contains a NUL byte (not a text file)"


# ------------------------------------------------------------- numeric options


SIZE = "needs a size from 1 byte to 1T like 64M (suffixes K, M, G, T), got '{v}'"
SLOWDOWN = "--compute-slowdown needs a number from 0 to 1000, got '{v}'"
TIMEOUT = "--timeout needs a positive number of seconds up to 31536000 (a year), got '{v}'"
CLOCK = "-clock '{v}' is no tile clock of this chip (global clock / divider in the allowed range: 0.1 to 0.8 GHz)"


@pytest.mark.parametrize("option, value, message", [
    ("--compute-slowdown", "1e12", SLOWDOWN),  # never finished
    ("--compute-slowdown", "1e15", SLOWDOWN),  # gave zero computation
    ("--compute-slowdown", "inf", SLOWDOWN),   # wrote invalid JSON
    ("--compute-slowdown", "nan", SLOWDOWN),
    ("--shm-size", "17179869185G", "--shm-size " + SIZE),  # wrapped to 1 GiB
    ("--shm-size", "1025G", "--shm-size " + SIZE),
    ("--svm-size", "18446744073709551616", "--svm-size " + SIZE),
    ("--svm-size", "2P", "--svm-size " + SIZE),
    ("--timeout", "inf", TIMEOUT),
    ("--timeout", "1e300", TIMEOUT),
    ("-clock", "inf", CLOCK),
    ("-clock", "1e-300", CLOCK),
    ("--trace-events", "4294967297", "--trace-events needs a number of events from 1 to 1073741824, got '{v}'"),
    ("-nue", "4294967298", "-nue needs a number of UEs from 1 to 1024, got '{v}'"),
])
def test_numeric_option_ranges(build, option, value, message):
    args = [option, value] + ([] if option == "-nue" else ["-nue", 1])
    assert usage_error(build, *args, build.app("hello")) == "rccerun: " + message.format(v=value)


@pytest.mark.parametrize("name, value, message", [
    ("OPENSCC_SPIN", "abc", "OPENSCC_SPIN needs a number of polls from 0 to 1000000000, got '{v}'"),
    ("OPENSCC_SPIN", "1e3", "OPENSCC_SPIN needs a number of polls from 0 to 1000000000, got '{v}'"),
    ("OPENSCC_SPIN", "4294967297", "OPENSCC_SPIN needs a number of polls from 0 to 1000000000, got '{v}'"),
    ("OPENSCC_YIELD", "-1", "OPENSCC_YIELD needs a number of yields from 0 to 1000000, got '{v}'"),
    ("OPENSCC_ASYM_FENCE", "yes", "OPENSCC_ASYM_FENCE takes 0 or 1, got '{v}'"),
])
def test_wait_environment_ranges(build, name, value, message):
    """The waiting policy's environment knobs are checked like options (they were read with atoi)."""
    res = rccerun(build, "-nue", 1, build.app("hello"), env=lib.base_env(build, **{name: value}), timeout=QUICK)
    assert res.rc == lib.RC_USAGE and res.out == "" and res.err.endswith(SEE_HELP), res
    assert res.err.splitlines()[0] == "rccerun: " + message.format(v=value), res


def test_wait_environment_in_range_runs(build):
    env = lib.base_env(build, OPENSCC_SPIN="4", OPENSCC_YIELD="4", OPENSCC_ASYM_FENCE="0")
    res = rccerun(build, "-nue", 2, build.app("hello"), env=env)
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res


# ------------------------------------------------------------- summary.json


def test_summary_json_is_utf8_for_any_argument(build, compile_program, scratch):
    """Arguments and program names are bytes: invalid UTF-8 becomes U+FFFD,
    control characters are escaped, and the file validates (schema)."""
    prog = scratch / "churn\udcff\udcfe"  # bytes 0xff 0xfe in the file name; churn takes any arguments
    prog.write_bytes(compile_program(build, "churn").read_bytes())
    prog.chmod(0o755)
    args = ["\udcc3(", "tab\tnew\nline\x01\x7f", "caf\u00e9 \u20ac \U0001F600", "\udced\udca0\udc80",
            'quote" back\\', "\udcc0\udcaf \udcf4\udc90\udc80\udc80"]  # an overlong '/', above U+10FFFF
    res = rccerun(build, "-nue", 2, "--model", "scc", "--trace", "counters", "--job-dir", scratch / "job",
                  prog, *args)
    assert res.rc == lib.RC_OK, res
    raw = (scratch / "job" / "summary.json").read_bytes()
    raw.decode("utf-8", errors="strict")
    assert b"\\u0001" in raw and b"\\u007f" in raw and b"\\ufffd" in raw
    job = lib.check_summary(scratch / "job" / "summary.json")["job"]
    assert job["program"] == f"{scratch}/churn\ufffd\ufffd"
    assert job["args"] == ["\ufffd(", "tab\tnew\nline\x01\x7f", "caf\u00e9 \u20ac \U0001F600", "\ufffd\ufffd\ufffd",
                           'quote" back\\', "\ufffd" * 2 + " " + "\ufffd" * 4]
    assert json.loads(raw)["job"]["compute_slowdown"] == 125


def test_summary_json_at_the_range_limits(build, scratch):
    """The largest values every key and option allows still give a finite,
    schema-valid model summary."""
    chip = scratch / "limits.chip"
    chip.write_text("power_core_dynamic = 0.1\npower_domain_static = 10000\npower_uncore = 10000\n"
                    "vlevel = 5,100000\nlat_ddr_core = 1e6\ntime_sw_call_cycles = 1e9\n")
    res = rccerun(build, "-nue", 2, "--chip", chip, "--model", "scc", "--compute-slowdown", 1000,
                  "--job-dir", scratch / "job", build.app("hello"))
    assert res.rc == lib.RC_OK, res
    doc = lib.check_summary(scratch / "job" / "summary.json")
    assert doc["job"]["compute_slowdown"] == 1000
    assert 0 < doc["chip_totals"]["energy_j"] < 1e9, doc["chip_totals"]

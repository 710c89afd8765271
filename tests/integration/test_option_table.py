"""rccerun's option table (src/launch/option_table.c): --help, the environment knobs and summary.json's
job section all come from its rows."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

SEE_HELP = "(see rccerun --help)\n"
QUICK = 30.0  # seconds: a refused input returns at once

# Every row of the table, as --help spells it: adding an option adds it here.
ROWS = ["-nue", "--nue", "--cores", "-f", "--chip", "--boards", "--hosts", "-clock", "--timeout", "--shm-size", "--svm-size", "--private-size", "--mpi", "--mpi-spawn-ues", "--copy-cores", "-h",
        "--help", "--mpi-channel", "--flags", "--scheme", "--no-single-copy", "--mailbox", "--svm-check", "--debug", "--model",
        "--compute-slowdown", "--trace", "--trace-events", "--job-dir", "--replace-job-dir",
        "OPENSCC_SPIN", "OPENSCC_YIELD", "OPENSCC_ASYM_FENCE"]


def help_text(build) -> str:
    res = rccerun(build, "--help")
    assert res.rc == lib.RC_OK and res.err == "", res
    return res.out


def help_names(text: str) -> list[str]:
    """The option and variable names of --help's rows ("  -nue N, --nue N   text")."""
    names = []
    for line in text.splitlines():
        if line.startswith("  ") and line[2] != " ":  # not a help text continued below a wide row
            left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
            names += [part.split()[0].split("=")[0] for part in left.split(", ")]
    return names


def test_help_lists_every_row_once(build):
    assert sorted(help_names(help_text(build))) == sorted(ROWS)


def test_help_shows_defaults_and_choices(build):
    text = help_text(build)
    for line in ("  --shm-size BYTES ", "(default 256M)", "(default 64M)", "(default 65536)",
                 "  --mailbox irq|poll ", "off|counters|messages|targets|sizes|timeline (default off)",
                 "  OPENSCC_SPIN=N ", "  OPENSCC_ASYM_FENCE=0|1\n", "Environment"):
        assert line in text, line


def test_help_matches_docs(build):
    """docs/rccerun.md shows what --help prints (generated from the table)."""
    docs = (lib.REPO / "docs" / "rccerun.md").read_text()
    block = re.search(r"```text\n(usage: rccerun .*?)```", docs, re.S)
    assert block, "docs/rccerun.md has no --help block"
    assert block.group(1) == help_text(build)


@pytest.mark.parametrize("name, value, message", [
    ("OPENSCC_SPIN", "1000000001", "OPENSCC_SPIN needs a number of polls from 0 to 1000000000, got '{v}'"),
    ("OPENSCC_SPIN", "", "OPENSCC_SPIN needs a number of polls from 0 to 1000000000, got '{v}'"),
    ("OPENSCC_YIELD", "1000001", "OPENSCC_YIELD needs a number of yields from 0 to 1000000, got '{v}'"),
    ("OPENSCC_YIELD", " 5", "OPENSCC_YIELD needs a number of yields from 0 to 1000000, got '{v}'"),
    ("OPENSCC_ASYM_FENCE", "2", "OPENSCC_ASYM_FENCE takes 0 or 1, got '{v}'"),
    ("OPENSCC_ASYM_FENCE", "", "OPENSCC_ASYM_FENCE takes 0 or 1, got '{v}'"),
])
def test_environment_knob_out_of_range(build, name, value, message):
    res = rccerun(build, "-nue", 1, build.app("hello"), env=lib.base_env(build, **{name: value}), timeout=QUICK)
    assert res.rc == lib.RC_USAGE and res.out == "" and res.err.endswith(SEE_HELP), res
    assert res.err.splitlines()[0] == "rccerun: " + message.format(v=value), res


@pytest.mark.parametrize("option", ["--model", "--trace", "--mailbox", "--job-dir"])
def test_missing_value_is_named(build, option):
    res = rccerun(build, "-nue", 1, option, timeout=QUICK)
    assert res.rc == lib.RC_USAGE and res.err == f"rccerun: option '{option}' needs a value\n" + SEE_HELP, res


@pytest.mark.parametrize("args, expected", [
    ((), {"trace": "counters", "model": "none", "flags": "tagged", "scheme": "lprg", "single_copy": True}),
    (("--scheme", "rplg", "--flags", "normal", "--no-single-copy"),
     {"trace": "counters", "model": "none", "flags": "normal", "scheme": "rplg", "single_copy": False}),
    (("--model", "scc", "--trace", "sizes"),
     {"trace": "sizes", "model": "scc", "flags": "normal", "scheme": "lprg", "single_copy": True}),
])
def test_options_round_trip_into_summary(build, scratch, args, expected):
    """An option's value reaches summary.json's job section (flags: the form the messages took)."""
    job = scratch / "job"
    res = rccerun(build, "-nue", 2, "--trace", "counters", *args, "--job-dir", job, build.app("pingpong"), 64, 2)
    assert res.rc == lib.RC_OK, res
    summary = lib.check_summary(job / "summary.json")["job"]
    assert {key: summary[key] for key in expected} == expected, summary


@pytest.mark.parametrize("fd, ue, message", [
    ("abc", "0", "OPENSCC_SHM_FD must be a file descriptor number (set by rccerun), got 'abc'"),
    ("3x", "0", "OPENSCC_SHM_FD must be a file descriptor number (set by rccerun), got '3x'"),
    ("-1", "0", "OPENSCC_SHM_FD must be a file descriptor number (set by rccerun), got '-1'"),
])
def test_ue_environment_is_checked(build, fd, ue, message):
    """RCCE_init reads rccerun's OPENSCC_SHM_FD whole (it was read with atoi)."""
    res = lib.run([build.app("hello")], env=lib.base_env(build, OPENSCC_SHM_FD=fd, OPENSCC_UE=ue), timeout=QUICK)
    assert res.rc != 0 and message in res.err, res


@pytest.mark.parametrize("ue, what", [("x", "a UE number"), ("0 ", "a UE number"), ("1", "a UE number from 0 to 0")])
def test_ue_number_is_checked(build, scratch, ue, what):
    """RCCE_init reads rccerun's OPENSCC_UE whole and within the job (a wrapper changes it before the UE starts)."""
    wrapper = scratch / "wrong-ue"
    wrapper.write_text(f"#!/bin/sh\nOPENSCC_UE='{ue}' exec '{build.app('hello')}'\n")
    wrapper.chmod(0o755)
    res = rccerun(build, "-nue", 1, wrapper, timeout=QUICK)
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"OPENSCC_UE must be {what} (set by rccerun), got '{ue}'" in res.err, res

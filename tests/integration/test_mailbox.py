"""Mailboxes (tests/programs/mailbox.c, scc_mailbox.h): all pairs sending at
once with nothing lost, duplicated or reordered, asynchronous handlers,
non-blocking receives, RCCE still working beside the mailboxes, errors."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

MODES = ("irq", "poll")


def run_mode(build, compile_program, mode, nue, *args, mailbox="irq", flags=(), options=()):
    res = rccerun(build, *options, "--mailbox", mailbox, "-nue", nue, compile_program(build, "mailbox", *flags), mode,
                  *args)
    assert res.rc == lib.RC_OK, res
    assert f"mailbox: {mode} OK ({nue} UEs)" in res.out, res
    return res


@pytest.mark.parametrize("mailbox", MODES)
@pytest.mark.parametrize("nue", [2, 5, 48])
def test_all_pairs_at_once_lose_nothing(build, compile_program, nue, mailbox):
    res = run_mode(build, compile_program, "stress", nue, 30 if nue < 48 else 10, mailbox=mailbox)
    assert res.err_lines == [], res


@pytest.mark.parametrize("mailbox", MODES)
@pytest.mark.parametrize("nue", [2, 48])
def test_handler_takes_every_mail_asynchronously(build, compile_program, nue, mailbox):
    res = run_mode(build, compile_program, "handler", nue, 30 if nue < 48 else 10, mailbox=mailbox)
    assert res.err_lines == [], res


@pytest.mark.parametrize("mailbox", MODES)
def test_nonblocking_receive(build, compile_program, mailbox):
    assert run_mode(build, compile_program, "nonblock", 3, mailbox=mailbox).err_lines == []


@pytest.mark.parametrize("flags", [(), ("-DSINGLEBITFLAGS",)], ids=["bigflags", "singlebit"])
@pytest.mark.parametrize("nue", [2, 48])
def test_rcce_messages_beside_the_mailboxes(build, compile_program, nue, flags):
    assert run_mode(build, compile_program, "rcce", nue, flags=flags).err_lines == []


def test_errors_name_the_ue_and_cause(build, compile_program):
    """docs/errors.md: misuse returns the documented codes (the program checks each);
    the report is printed only with --debug, which takes effect in RCCE_init."""
    res = run_mode(build, compile_program, "errors", 2, options=("--debug",))
    err = res.err_lines
    assert "mailbox_send before RCCE_init: call mailbox_init first" not in err, res
    assert "mailbox_send on UE 1: call mailbox_init first" in err, res
    assert "mailbox_send on UE 1: destination 2 is no UE of this job (0..1)" in err, res
    assert "mailbox_send on UE 0: mail of 29 bytes is longer than 28" in err, res
    assert "mailbox_recv on UE 0: a handler takes the mails" in err, res


def test_errors_are_silent_without_debug(build, compile_program):
    """docs/errors.md: without --debug the same misuse returns the same codes and prints nothing."""
    assert run_mode(build, compile_program, "errors", 2).err_lines == []


def test_bad_mailbox_option(build):
    res = rccerun(build, "--mailbox", "ipi", "-nue", 2, "true")
    assert res.rc == lib.RC_USAGE and "--mailbox takes irq or poll, got 'ipi'" in res.err, res


def test_mailboxes_that_do_not_fit_the_mpb(build, compile_program):
    """A chip with 1 KB MPBs has no room for 48 mailboxes beside RCCE's flags."""
    res = rccerun(build, "--debug", "--chip", "6x4x2:1024", "-nue", 48, compile_program(build, "mailbox", "-DSINGLEBITFLAGS"),
                  "stress")
    assert res.rc == lib.RC_UE_FAILED, res
    assert re.search(r"^mailbox_init on UE \d+: 48 mailboxes of 32 bytes do not fit the free MPB \(21 lines\)$",
                     res.err, re.M), res

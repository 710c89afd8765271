"""RCCE misuse (tests/programs/errors.c): exact return codes, RCCE_error_string,
and the "RCCE error on UE ..." lines of rccerun --debug."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

BASE = 1234321
ERR = {
    "SUCCESS": 0, "TARGET": BASE + 1, "SOURCE": BASE + 2, "ID": BASE + 3, "MESSAGE_LENGTH": BASE + 4,
    "FLAG_UNDEFINED": BASE + 5, "DEBUG_FLAG": BASE + 9, "FLAG_NOT_IN_COMM_BUFFER": BASE + 10,
    "FLAG_STATUS_UNDEFINED": BASE + 11, "FLAG_NOT_ALLOCATED": BASE + 12, "VAL_UNDEFINED": BASE + 13,
    "INVALID_ERROR_CODE": BASE + 14, "MULTIPLE_RPC_REQUESTS": BASE + 17, "FDIVIDER": BASE + 18,
    "FREQ_EXCEEDS_MHZ": BASE + 19, "NO_ACTIVE_RPC_REQUEST": BASE + 20, "STALE_RPC_REQUEST": BASE + 21,
    "COMM_UNDEFINED": BASE + 22,
    "ILLEGAL_OP": BASE + 23, "ILLEGAL_TYPE": BASE + 24, "MALLOC": BASE + 25,
}
# RCCE's own texts: RCCE_estrings[] of Intel's RCCE_debug.c (RCCE 1.0.13), index = code - RCCE_ERROR_BASE.
RCCE_TEXTS = [
    "Success", "Invalid target buffer", "Invalid source buffer", "Invalid UE ID", "Invalid message length",
    "Flag variable undefined", "Emulated NUEs do not match requested NUEs", "Message buffers overlap in comm buffer",
    "Data buffer misalignment", "Debug flag not defined", "RCCE_flag variable not inside comm buffer",
    "Flag status not defined", "Flag not allocated", "Value not defined", "Invalid error code",
    "RPC data structure not allocated", "RPC internal error", "Multiple outstanding RPC requests",
    "Invalid power step", "Maximum allowable frequency exceeded", "No active RPC request", "Stale RPC request",
    "Communicator undefined", "Illegal reduction operator", "Illegal data type", "Memory allocation error",
    "Communicator initialization error",
]
NUE = 2

# case -> [(C call as printed by errors.c, expected error name)]
CALLS = {
    "bad_rank": [
        ("RCCE_send(buf, 4, RCCE_num_ues())", "ID"),
        ("RCCE_send(buf, 4, -1)", "ID"),
        ("RCCE_recv(buf, 4, RCCE_num_ues())", "ID"),
        ("RCCE_recv(buf, 4, -1)", "ID"),
        ("RCCE_recv_test(buf, 4, RCCE_num_ues(), &test)", "ID"),
        ("RCCE_send(buf, 4, RCCE_ue())", "ID"),
        ("RCCE_recv(buf, 4, RCCE_ue())", "ID"),
    ],
    "reduce": [
        ("RCCE_allreduce((char *)in, (char *)out, 2, 42, RCCE_SUM, RCCE_COMM_WORLD)", "ILLEGAL_TYPE"),
        ("RCCE_allreduce((char *)in, (char *)out, 2, RCCE_INT, 42, RCCE_COMM_WORLD)", "ILLEGAL_OP"),
        ("RCCE_reduce((char *)in, (char *)out, 2, RCCE_TYPE_BASE + 4, RCCE_MAX, 0, RCCE_COMM_WORLD)",
         "ILLEGAL_TYPE"),
        ("RCCE_reduce((char *)in, (char *)out, 2, RCCE_DOUBLE, RCCE_OP_BASE + 4, 0, RCCE_COMM_WORLD)",
         "ILLEGAL_OP"),
    ],
    "bad_root": [
        ("RCCE_reduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, RCCE_num_ues(), RCCE_COMM_WORLD)", "ID"),
        ("RCCE_bcast(buf, sizeof buf, RCCE_num_ues(), RCCE_COMM_WORLD)", "ID"),
    ],
    "neg_root": [
        ("RCCE_bcast(buf, sizeof buf, -1, RCCE_COMM_WORLD)", "ID"),
        ("RCCE_reduce((char *)&in, (char *)&out, 1, RCCE_INT, RCCE_SUM, -1, RCCE_COMM_WORLD)", "ID"),
    ],
    "null_buffers": [  # as UE 0 sees them: the root of the first bcast and mcast
        ("RCCE_bcast(NULL, 64, 0, RCCE_COMM_WORLD)", "SOURCE"),
        ("RCCE_bcast(NULL, 64, 1, RCCE_COMM_WORLD)", "TARGET"),
        ("RCCE_reduce(NULL, NULL, 4, RCCE_INT, RCCE_SUM, 0, RCCE_COMM_WORLD)", "SOURCE"),
        ("RCCE_allreduce((char *)in, NULL, 2, RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD)", "TARGET"),
        ("iRCCE_mcast(NULL, 64, 0)", "SOURCE"),
        ("iRCCE_msend(NULL, 64)", "SOURCE"),
        ("iRCCE_mrecv(NULL, 64, (me + 1) % np)", "TARGET"),
        ("iRCCE_isend(NULL, 64, (me + 1) % np, &sreq)", "SOURCE"),
        ("iRCCE_irecv(NULL, 64, (me + 1) % np, &rreq)", "TARGET"),
        ("iRCCE_irecv(NULL, iRCCE_ANY_LENGTH, iRCCE_ANY_SOURCE, &rreq)", "TARGET"),
        ("iRCCE_ssend(NULL, 64, (me + 1) % np)", "SOURCE"),
        ("iRCCE_srecv(NULL, 64, (me + 1) % np)", "TARGET"),
        ("RCCE_bcast(NULL, 0, 0, RCCE_COMM_WORLD)", "SUCCESS"),
        ("RCCE_reduce((char *)in, me == 0 ? (char *)out : NULL, 2, RCCE_INT, RCCE_SUM, 0, RCCE_COMM_WORLD)",
         "SUCCESS"),
    ],
    "fdivider": [
        ("RCCE_set_frequency_divider(1, &d)", "FDIVIDER"),
        ("RCCE_set_frequency_divider(17, &d)", "FDIVIDER"),
    ],
    "power": [
        ("RCCE_iset_power(5, &req2, &d, &v)", "MULTIPLE_RPC_REQUESTS"),
        ("RCCE_wait_power(&req)", "NO_ACTIVE_RPC_REQUEST"),
        ("RCCE_wait_power(&req)", "STALE_RPC_REQUEST"),
        ("RCCE_iset_power(1, &req, &d, &v)", "FDIVIDER"),
        ("RCCE_set_frequency_divider(2, &d)", "FREQ_EXCEEDS_MHZ"),
    ],
    "comm": [
        ("RCCE_barrier(&never)", "COMM_UNDEFINED"),
        ("RCCE_comm_size(never, &size)", "COMM_UNDEFINED"),
        ("RCCE_comm_rank(never, &rank)", "COMM_UNDEFINED"),
    ],
    "debug_flag": [
        ("RCCE_debug_set(RCCE_DEBUG_ALL + 1)", "DEBUG_FLAG"),
        ("RCCE_debug_unset(5)", "DEBUG_FLAG"),
    ],
    "flags": [
        ("RCCE_flag_write(&unalloc, RCCE_FLAG_SET, RCCE_ue())", "FLAG_NOT_ALLOCATED"),
        ("RCCE_flag_write(&never, RCCE_FLAG_SET, RCCE_ue())", "FLAG_NOT_ALLOCATED"),
        ("RCCE_flag_read(never, &v, RCCE_ue())", "FLAG_NOT_ALLOCATED"),
        ("RCCE_wait_until(never, RCCE_FLAG_SET)", "FLAG_NOT_ALLOCATED"),
        ("RCCE_flag_write(NULL, RCCE_FLAG_SET, RCCE_ue())", "FLAG_UNDEFINED"),
        ("RCCE_flag_write(&null_line, RCCE_FLAG_SET, RCCE_ue())", "FLAG_UNDEFINED"),
        ("RCCE_flag_write(&good, 7, RCCE_ue())", "FLAG_STATUS_UNDEFINED"),
        ("RCCE_wait_until(good, 7)", "FLAG_STATUS_UNDEFINED"),
        ("RCCE_flag_write(&outside, RCCE_FLAG_SET, RCCE_ue())", "FLAG_NOT_IN_COMM_BUFFER"),
        ("RCCE_flag_write(&good, RCCE_FLAG_SET, RCCE_num_ues())", "ID"),
        ("RCCE_flag_read(good, NULL, RCCE_ue())", "VAL_UNDEFINED"),
        ("RCCE_test_flag(never, RCCE_FLAG_SET, &result)", "FLAG_NOT_ALLOCATED"),
        ("RCCE_test_flag(good, 7, &result)", "FLAG_STATUS_UNDEFINED"),
        ("RCCE_test_flag(good, RCCE_FLAG_SET, NULL)", "VAL_UNDEFINED"),
    ],
    "put_get": [
        ("RCCE_put(mpb, (t_vcharp)priv, 32, RCCE_num_ues())", "ID"),
        ("RCCE_get((t_vcharp)priv, mpb, 32, -1)", "ID"),
        ("RCCE_put((t_vcharp)priv, (t_vcharp)priv, 32, RCCE_ue())", "TARGET"),
        ("RCCE_get((t_vcharp)priv, (t_vcharp)priv, 32, RCCE_ue())", "SOURCE"),
    ],
    "gory_send": [
        ("RCCE_send(priv, (t_vcharp)priv, 256, &ready, &sent, 16, peer)", "TARGET"),
        ("RCCE_send(priv, combuf, 0, &ready, &sent, 16, peer)", "MESSAGE_LENGTH"),
        ("RCCE_send(priv, combuf, 256, &ready, &sent, 16, RCCE_num_ues())", "ID"),
        ("RCCE_recv(priv, combuf, 256, &ready, &sent, 16, -1)", "ID"),
    ],
    "malloc": [],
    "strings": [],
}

# case -> [(function, error name, detail regex)] printed by --debug, per UE, in order.
DEBUG = {
    "bad_rank": [
        ("RCCE_send", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_send", "ID", r"UE -1 is not in 0\.\.1"),
        ("RCCE_recv", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_recv", "ID", r"UE -1 is not in 0\.\.1"),
        ("RCCE_recv_test", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_send", "ID", r"UE {ue} cannot message itself.*"),
        ("RCCE_recv", "ID", r"UE {ue} cannot message itself.*"),
    ],
    "reduce": [
        ("RCCE_allreduce", "ILLEGAL_TYPE", r".*\b42\b.*"),
        ("RCCE_allreduce", "ILLEGAL_OP", r".*\b42\b.*"),
        ("RCCE_reduce", "ILLEGAL_TYPE", r".*\b63636367\b.*"),
        ("RCCE_reduce", "ILLEGAL_OP", r".*\b23232327\b.*"),
    ],
    "bad_root": [
        ("RCCE_reduce", "ID", r".*root 2\b.*"),
        ("RCCE_bcast", "ID", r".*root 2\b.*"),
    ],
    "neg_root": [
        ("RCCE_bcast", "ID", r".*root -1\b.*"),
        ("RCCE_reduce", "ID", r".*root -1\b.*"),
    ],
    "fdivider": [
        ("RCCE_set_frequency_divider", "FDIVIDER", r".*divider 1\b.*"),
        ("RCCE_set_frequency_divider", "FDIVIDER", r".*divider 17\b.*"),
    ],
    "power": [  # with --cores 5,40 each UE is the master of its own domain
        ("RCCE_iset_power", "MULTIPLE_RPC_REQUESTS", r".+"),
        ("RCCE_wait_power", "NO_ACTIVE_RPC_REQUEST", r".+"),
        ("RCCE_wait_power", "STALE_RPC_REQUEST", r".+"),
        ("RCCE_iset_power", "FDIVIDER", r".*divider 1\b.*"),
        ("RCCE_set_frequency_divider", "FREQ_EXCEEDS_MHZ", r".*800 MHz.*"),
    ],
    "comm": [
        ("RCCE_barrier", "COMM_UNDEFINED", r".+"),
        ("RCCE_comm_size", "COMM_UNDEFINED", r".+"),
        ("RCCE_comm_rank", "COMM_UNDEFINED", r".+"),
    ],
    "malloc": [
        ("RCCE_malloc", "MALLOC", r"16384 bytes requested.*"),
    ],
    "flags": [
        ("RCCE_flag_write", "FLAG_NOT_ALLOCATED", r".+"),
        ("RCCE_flag_write", "FLAG_NOT_ALLOCATED", r".+"),
        ("RCCE_flag_read", "FLAG_NOT_ALLOCATED", r".+"),
        ("RCCE_wait_until", "FLAG_NOT_ALLOCATED", r".+"),
        ("RCCE_flag_write", "FLAG_UNDEFINED", r".+"),
        ("RCCE_flag_write", "FLAG_UNDEFINED", r".+"),
        ("RCCE_flag_write", "FLAG_STATUS_UNDEFINED", r".*\b7\b.*"),
        ("RCCE_wait_until", "FLAG_STATUS_UNDEFINED", r".*\b7\b.*"),
        ("RCCE_flag_write", "FLAG_NOT_IN_COMM_BUFFER", r".+"),
        ("RCCE_flag_write", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_flag_read", "VAL_UNDEFINED", r".+"),
        ("RCCE_test_flag", "FLAG_NOT_ALLOCATED", r".+"),
        ("RCCE_test_flag", "FLAG_STATUS_UNDEFINED", r".*\b7\b.*"),
        ("RCCE_test_flag", "VAL_UNDEFINED", r".+"),
    ],
    "put_get": [
        ("RCCE_put", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_get", "ID", r"UE -1 is not in 0\.\.1"),
        ("RCCE_put", "TARGET", r".+"),
        ("RCCE_get", "SOURCE", r".+"),
    ],
    "gory_send": [
        ("RCCE_send", "TARGET", r".+"),
        ("RCCE_send", "MESSAGE_LENGTH", r".+"),
        ("RCCE_send", "ID", r"UE 2 is not in 0\.\.1"),
        ("RCCE_recv", "ID", r"UE -1 is not in 0\.\.1"),
    ],
}

BASIC_CASES = ["bad_rank", "strings", "reduce", "bad_root", "neg_root", "null_buffers", "fdivider", "power", "comm", "debug_flag"]
GORY_CASES = ["malloc", "flags", "put_get", "gory_send", "strings"]
VARIANTS = [("basic", c) for c in BASIC_CASES] + [("gory", c) for c in GORY_CASES] + \
           [("gory-singlebit", c) for c in ("flags", "malloc")]
VARIANT_FLAGS = {"basic": (), "gory": ("-DGORY",), "gory-singlebit": ("-DGORY", "-DSINGLEBITFLAGS")}

DEBUG_LINE = re.compile(r"^RCCE error on UE .*$", re.M)
STRING_LINE = re.compile(r"^errors: RCCE_error_string\((-?\d+)\) -> (\d+) '(.*)' \(length (\d+)\)$", re.M)


def errors_program(build, compile_program, variant):
    return compile_program(build, "errors", *VARIANT_FLAGS[variant])


_texts_cache: dict = {}


def runtime_texts(build, compile_program) -> dict[int, tuple[int, str]]:
    """code -> (return code, text) of this build's RCCE_error_string."""
    if build.dir not in _texts_cache:
        res = rccerun(build, "-nue", 1, errors_program(build, compile_program, "basic"), "strings")
        assert res.rc == lib.RC_OK and "errors: strings OK\n" in res.out, res
        texts = {}
        for code, rc, text, length in STRING_LINE.findall(res.out):
            assert int(length) == len(text), res
            texts[int(code)] = (int(rc), text)
        _texts_cache[build.dir] = texts
    return _texts_cache[build.dir]


@pytest.mark.parametrize("variant,case", VARIANTS, ids=[f"{v}-{c}" for v, c in VARIANTS])
def test_error_codes(build, compile_program, variant, case):
    """Each misuse returns the exact code (checked in C on every UE, echoed by UE 0)."""
    res = rccerun(build, "-nue", NUE, errors_program(build, compile_program, variant), case)
    assert res.rc == lib.RC_OK, res
    assert f"errors: {case} OK\n" in res.out, res
    texts = runtime_texts(build, compile_program)
    for call, name in CALLS[case]:
        assert f"errors: {call} -> {ERR[name]} ({texts[ERR[name]][1]})\n" in res.out, f"{call}\n{res}"
    if case == "flags" and variant == "gory-singlebit":
        line = f"errors: RCCE_flag_write(&other_bit, RCCE_FLAG_SET, RCCE_ue()) -> {ERR['FLAG_NOT_ALLOCATED']}"
        assert line in res.out, res
    if case == "malloc":
        assert "errors: p == NULL\n" in res.out and "errors: q != NULL\n" in res.out, res
    # Without --debug the runtime prints nothing.
    assert not DEBUG_LINE.search(res.err), res
    assert res.err_lines == [], res


def test_error_string_codes(build, compile_program):
    """Every defined code (RCCE 2.0's up to RCCE_ERROR_NO_MULTICAST_SUPPORT, BASE + 28) has a text
    (RCCE_SUCCESS); others give RCCE_ERROR_INVALID_ERROR_CODE."""
    texts = runtime_texts(build, compile_program)
    for code in [0] + list(range(BASE + 1, BASE + 29)):
        rc, text = texts[code]
        assert rc == 0 and text, (code, rc, text)
    for code in (BASE, BASE + 29, 42, -1):
        assert texts[code][0] == ERR["INVALID_ERROR_CODE"], (code, texts[code])
    assert len({t for c, (rc, t) in texts.items() if rc == 0}) == 29, "two codes share a text"


def test_error_strings_are_rcces(build, compile_program):
    """docs/rcce.md: "RCCE_error_string gives RCCE's texts" - those of Intel's
    RCCE_debug.c, which SCC programs print and users grep for."""
    texts = runtime_texts(build, compile_program)
    wrong = [f"{BASE + i if i else 0}: {texts[BASE + i if i else 0][1]!r}, RCCE says {want!r}"
             for i, want in enumerate(RCCE_TEXTS) if texts[BASE + i if i else 0][1] != want]
    assert not wrong, "RCCE_error_string texts differ from RCCE's:\n  " + "\n  ".join(wrong)


def expected_debug_lines(case, ue, core, texts):
    lines = []
    for func, name, detail in DEBUG[case]:
        detail = detail.replace("{ue}", str(ue))
        text = texts[ERR[name]][1]
        lines.append(re.escape(f"RCCE error on UE {ue} (core {core}) in {func}: {text} ({ERR[name]}): ") + detail)
    return lines


DEBUG_VARIANTS = [(v, c) for v, c in VARIANTS if c in DEBUG]


@pytest.mark.parametrize("variant,case", DEBUG_VARIANTS, ids=[f"{v}-{c}" for v, c in DEBUG_VARIANTS])
def test_debug_prints_each_error(build, compile_program, variant, case):
    """rccerun --debug: one "RCCE error on UE u (core c) in FUNC: TEXT (CODE): detail"
    line per returned error, in call order for each UE, naming UE and core;
    TEXT is RCCE_error_string's text of CODE."""
    texts = runtime_texts(build, compile_program)
    cores = (5, 40)  # two different power domains: both UEs are masters
    res = rccerun(build, "--debug", "--cores", ",".join(map(str, cores)), "-nue", NUE,
                  errors_program(build, compile_program, variant), case)
    assert res.rc == lib.RC_OK, res
    assert f"errors: {case} OK\n" in res.out, res
    printed = DEBUG_LINE.findall(res.err)
    total = 0
    for ue, core in enumerate(cores):
        mine = [ln for ln in printed if ln.startswith(f"RCCE error on UE {ue} (core {core}) ")]
        want = expected_debug_lines(case, ue, core, texts)
        if case == "flags" and variant == "gory-singlebit":
            want.append(re.escape(f"RCCE error on UE {ue} (core {core}) in RCCE_flag_write: "
                                      f"{texts[ERR['FLAG_NOT_ALLOCATED']][1]} ({ERR['FLAG_NOT_ALLOCATED']}): ") + ".+")
        assert len(mine) == len(want), f"UE {ue}: expected {len(want)} debug lines\n{res}"
        for got, pattern in zip(mine, want):
            assert re.fullmatch(pattern, got), f"{got!r} does not match {pattern!r}\n{res}"
        total += len(want)
    assert len(printed) == total, res


def test_debug_reports_debug_set_errors(build, compile_program):
    """RCCE_debug_set/unset of an unknown level return RCCE_ERROR_DEBUG_FLAG; as
    in RCCE (RCCE_error_return(RCCE_debug_debug, ...)), --debug prints them."""
    res = rccerun(build, "--debug", "-nue", 1, errors_program(build, compile_program, "basic"), "debug_flag")
    assert res.rc == lib.RC_OK, res
    for func in ("RCCE_debug_set", "RCCE_debug_unset"):
        assert re.search(rf"^RCCE error on UE 0 \(core 0\) in {func}: .* \({ERR['DEBUG_FLAG']}\)",
                         res.err, re.M), f"no debug line for {func}\n{res}"


def test_debug_reports_invalid_error_code(build, compile_program):
    """RCCE_error_string of an invalid code returns RCCE_ERROR_INVALID_ERROR_CODE;
    as in RCCE, --debug prints that returned error."""
    res = rccerun(build, "--debug", "-nue", 1, errors_program(build, compile_program, "basic"), "strings")
    assert res.rc == lib.RC_OK, res
    lines = re.findall(rf"^RCCE error on UE 0 \(core 0\) in RCCE_error_string: .* "
                       rf"\({ERR['INVALID_ERROR_CODE']}\).*$", res.err, re.M)
    assert len(lines) == 4, res  # four invalid codes in the "strings" case


def test_power_app_fdivider(build):
    """The power app's masters try divider 1 and must get RCCE_ERROR_FDIVIDER;
    with --debug each such error is printed by the masters."""
    res = rccerun(build, "--debug", "-nue", 16, build.app("power"))
    assert res.rc == lib.RC_OK, res
    assert "power: OK\n" in res.out, res
    lines = re.findall(r"^RCCE error on UE (\d+) \(core (\d+)\) in RCCE_set_frequency_divider: "
                       rf".* \({ERR['FDIVIDER']}\): .*$", res.err, re.M)
    masters = sorted({lib.scc_domain(c): u for u, c in reversed(list(enumerate(range(16))))}.values())
    assert masters == [0, 4, 8]  # domains 0, 1, 2; UEs 12..15 (tiles 6, 7) are in domain 0 again
    assert sorted((int(u), int(c)) for u, c in lines) == [(m, m) for m in masters], res


def test_debug_null_buffers(build, compile_program):
    """--debug names the NULL buffer of each collective as each UE sees it: a
    buffer the UE reads (the root's) is RCCE_ERROR_SOURCE, one it writes
    RCCE_ERROR_TARGET; iRCCE_mcast reports as the msend or mrecv it becomes; iRCCE's point-to-point
    calls as RCCE_send/RCCE_recv."""
    texts = runtime_texts(build, compile_program)
    res = rccerun(build, "--debug", "-nue", NUE, errors_program(build, compile_program, "basic"), "null_buffers")
    assert res.rc == lib.RC_OK and "errors: null_buffers OK\n" in res.out, res
    for ue, (bcast0, bcast1, mcast_fn, mcast) in enumerate([("SOURCE", "TARGET", "iRCCE_msend", "SOURCE"),
                                                            ("TARGET", "SOURCE", "iRCCE_mrecv", "TARGET")]):
        want = [("RCCE_bcast", bcast0, "NULL buffer"), ("RCCE_bcast", bcast1, "NULL buffer"),
                ("RCCE_reduce", "SOURCE", "NULL input buffer"), ("RCCE_allreduce", "TARGET", "NULL output buffer"),
                (mcast_fn, mcast, "NULL buffer"), ("iRCCE_msend", "SOURCE", "NULL buffer"),
                ("iRCCE_mrecv", "TARGET", "NULL buffer"), ("iRCCE_isend", "SOURCE", "NULL buffer"),
                ("iRCCE_irecv", "TARGET", "NULL buffer"), ("iRCCE_irecv", "TARGET", "NULL buffer"),
                ("iRCCE_ssend", "SOURCE", "NULL buffer"), ("iRCCE_srecv", "TARGET", "NULL buffer")]
        prefix = f"RCCE error on UE {ue} (core {ue}) in "
        got = [ln for ln in DEBUG_LINE.findall(res.err) if ln.startswith(prefix)]
        assert got == [f"{prefix}{fn}: {texts[ERR[n]][1]} ({ERR[n]}): {detail}" for fn, n, detail in want], res

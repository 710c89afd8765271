"""librcce.a's surface (docs/architecture.md "The library's surface"): it
exports the public API -- every function and variable include/*.h declares,
under each combination of RCCE's compile-time options -- and the hooks of
`rccecc --model-build` programs, nothing else; a program may use any other
name, including the library's internal ones."""
from __future__ import annotations

import itertools
import re
import shutil
import subprocess

import pytest

import openscc_testlib as lib

INCLUDE = lib.REPO / "include"
# RCCE.h's options rename entry points (RCCE_send -> RCCE_send_gory) or add
# some (-DRC_POWER_MANAGEMENT, iRCCE.h's -DAIR): the API is what every combination declares.
OPTIONS = ("-DGORY", "-DSINGLEBITFLAGS", "-DRC_POWER_MANAGEMENT", "-DAIR")
# What a counted build (`rccecc --model-build`, docs/model.md "Computation" and
# "Memory") calls: GCC's trace-pc and outline kernel-address hooks, and the update hooks the block
# pricing makes of read-modify-writes' load hooks.
MODEL_BUILD_HOOKS = {"__sanitizer_cov_trace_pc", "__asan_handle_no_return"} | {
    f"__asan_{op}{size}_noabort" for op in ("load", "store") for size in ("1", "2", "4", "8", "16", "N")} | {
    f"__openscc_update{size}" for size in ("1", "2", "4", "8", "16")} | {
    "__openscc_fast", "__openscc_checkpoint"}  # what the hooks' inlined fast paths read and call


def header_text(flags: tuple[str, ...]) -> str:
    """include/*.h preprocessed with flags, only the lines that come from include/."""
    src = "".join(f'#include "{h.name}"\n' for h in sorted(INCLUDE.glob("*.h")))
    p = subprocess.run(["cc", "-E", *flags, "-I", str(INCLUDE), "-x", "c", "-"], input=src,
                       capture_output=True, text=True, check=True)
    keep, lines = False, []
    for line in p.stdout.splitlines():
        marker = re.match(r'# \d+ "([^"]*)"', line)
        if marker:  # a line marker names the file the next lines come from
            keep = marker.group(1).startswith(str(INCLUDE))
        elif keep and not line.startswith("#"):  # #pragma lines carry no declaration
            lines.append(line)
    return "\n".join(lines)


def top_level_statements(text: str) -> list[str]:
    """The declarations outside braces (struct bodies dropped), whitespace collapsed."""
    depth, current, out = 0, [], []
    for ch in text:
        if ch in "{}":
            depth += 1 if ch == "{" else -1
        elif depth == 0 and ch == ";":
            out.append(" ".join("".join(current).split()))
            current = []
        elif depth == 0:
            current.append(ch)
    return out


def declared_names(statement: str) -> set[str]:
    """The functions and variables one declaration declares (none for a typedef)."""
    if not statement or statement.startswith("typedef") or re.fullmatch(r"(struct|union|enum) \w+", statement):
        return set()
    function = re.match(r"[^(]*?(\w+) ?\(", statement)
    if function:  # the name in front of the parameter list
        return {function.group(1)}
    declarators = re.sub(r"\[[^]]*\]", "", statement).split(",")  # extern int a, b[N];
    return {re.findall(r"\w+", d)[-1] for d in declarators}


def public_api() -> set[str]:
    names: set[str] = set()
    for n in range(len(OPTIONS) + 1):
        for flags in itertools.combinations(OPTIONS, n):
            for statement in top_level_statements(header_text(flags)):
                names |= declared_names(statement)
    return names


def exported_symbols(archive) -> set[str]:
    """The global symbols the archive defines (nm's POSIX format: name type value size)."""
    p = subprocess.run(["nm", "-g", "--defined-only", "-P", str(archive)], capture_output=True, text=True, check=True)
    return {f[0] for f in (line.split() for line in p.stdout.splitlines()) if len(f) >= 2 and len(f[1]) == 1}


def surface_problems(archive) -> list[str]:
    """One line per symbol outside the public API and per API symbol missing."""
    api, exported = public_api(), exported_symbols(archive)
    # AddressSanitizer gives each global variable an indicator of its own, __odr_asan.NAME
    allowed = api | MODEL_BUILD_HOOKS | {f"__odr_asan.{name}" for name in api | MODEL_BUILD_HOOKS}
    problems = [f"librcce.a exports {s}, which no public header declares" for s in sorted(exported - allowed)]
    problems += [f"librcce.a does not export {s}, which include/*.h declares" for s in sorted(api - exported)]
    return problems


def test_public_api_comes_from_the_headers():
    api = public_api()
    # every option's entry points, variables, the extensions' functions
    for name in ("RCCE_init", "RCCE_init_gory_singlebit", "RCCE_send_gory", "RCCE_flag_alloc_singlebit",
                 "RCCE_power_domain", "RCCE_COMM_WORLD", "RCCE_P_COMM", "RCCE_comm_buffer", "RCCE_debug_RPC",
                 "iRCCE_ANY_SOURCE", "iRCCE_isend", "mailbox_init", "svm_alloc", "scc_power_read", "id_compare"):
        assert name in api, name
    # types, struct fields, parameters and macros are no symbols
    for name in ("RCCE_FLAG", "RCCE_COMM", "iRCCE_SEND_REQUEST", "privbuf", "color", "size", "RCCE_LINE_SIZE",
                 "iRCCE_test_flag"):
        assert name not in api, name


def test_librcce_exports_only_the_public_api(build):
    assert surface_problems(build.dir / "lib" / "librcce.a") == []
    assert "__sanitizer_cov_trace_pc" in exported_symbols(build.dir / "lib" / "librcce.a")


def test_the_check_names_an_offender(build, scratch):
    """An archive with a stray global (`int mb;`, the name the library used
    to export) and without RCCE_num_ues_dev (a public call the library itself
    never makes, so it can be stripped) fails the check, naming both."""
    archive = scratch / "librcce.a"
    shutil.copy(build.dir / "lib" / "librcce.a", archive)
    (scratch / "stray.c").write_text("int mb;\nvoid range_free(void) {}\n")
    for cmd in (["cc", "-c", scratch / "stray.c", "-o", scratch / "stray.o"], ["ar", "q", archive, scratch / "stray.o"],
                ["objcopy", "--strip-symbol=RCCE_num_ues_dev", archive]):
        res = lib.run(cmd)
        assert res.rc == 0, res
    assert surface_problems(archive) == [
        "librcce.a exports mb, which no public header declares",
        "librcce.a exports range_free, which no public header declares",
        "librcce.a does not export RCCE_num_ues_dev, which include/*.h declares",
    ]


def test_a_program_may_use_the_library_internal_names(build, compile_program):
    """name_clash.c defines the library's old (mb, svm, range_free) and current
    (mailbox_g, svm_g, hw_job_attach, ...) internal names with other types,
    and its own id_compare and print_dividers (the library's are weak), then
    uses mailboxes and RCCE send/receive: it links and runs intact."""
    res = lib.rccerun(build, "-nue", 3, compile_program(build, "name_clash"))
    assert res.rc == 0, res
    assert sorted(res.out.splitlines()) == [f"UE {ue}: own names intact, mail and message from UE {(ue + 2) % 3}"
                                            for ue in range(3)]

"""Compatibility with Intel's RCCE 1.0.13 (issue 12, section 1; docs/rcce.md
"Differences from RCCE 1.0.13"): flag allocation that writes nothing, the
library symbols and headers Intel's programs use, C++ programs built with
rccec++, and the power API on UEs that are not the power-domain master."""
from __future__ import annotations

import re
import subprocess

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

INCLUDE = lib.REPO / "include"


# ------------------------------------------------ 1. RCCE_flag_alloc writes nothing


@pytest.mark.parametrize("nue", [2, 3, 8])
def test_flag_set_before_alloc_survives(build, compile_program, nue):
    """shared/repro/flag_alloc_clears.c: UE 1 sets UE 0's flag before slow UE 0
    allocates it; UE 0 must see it SET (it deadlocked when flag_alloc cleared
    the flag).  Repeated: the race is decided by UE 0's sleep."""
    prog = compile_program(build, "flag_alloc_clears", "-DGORY")
    for _ in range(3):
        res = rccerun(build, "--timeout", 60, "-nue", nue, prog)
        assert res.rc == lib.RC_OK, res
        assert res.out == "UE 0 saw the flag SET\n", res


RING_VARIANTS = {
    "basic": (),
    "gory": ("-DGORY",),
    "gory-singlebit": ("-DGORY", "-DSINGLEBITFLAGS"),
    "basic-singlebit": ("-DSINGLEBITFLAGS",),
    "tagged": ("-DTAGGED",),
}


@pytest.mark.parametrize("variant", RING_VARIANTS)
def test_flag_ring_signals_before_alloc(build, compile_program, variant):
    """A ring where every UE allocates a flag and at once sets its right
    neighbour's (UE 0 allocates late): no SET is lost, in every flag form and
    for iRCCE's tagged flags; a freed and reallocated flag keeps its value."""
    prog = compile_program(build, "flag_ring", *RING_VARIANTS[variant])
    for nue in (2, 3, 8):
        for _ in range(2):
            res = rccerun(build, "--timeout", 60, "-nue", nue, prog)
            assert res.rc == lib.RC_OK, res
            lines = res.out.splitlines()
            assert sorted(lines) == sorted([f"flag_ring: UE {u} saw the flag SET" for u in range(nue)] +
                                           [f"flag_ring: UE {u} realloc keeps SET" for u in range(nue)] +
                                           ["flag_ring: OK"]), res
            assert res.err_lines == [], res


# ------------------------------------------------ 2. symbols and headers


@pytest.mark.parametrize("header", sorted(p.name for p in INCLUDE.glob("*.h")))
def test_every_public_header_is_cplusplus_ready(header):
    """Every public header compiles on its own as C++ and declares its functions
    with C linkage (an extern "C" block)."""
    text = (INCLUDE / header).read_text()
    assert '#ifdef __cplusplus\nextern "C" {\n#endif' in text, header
    p = subprocess.run(["g++", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", str(INCLUDE), "-x", "c++", "-"],
                       input=f'#define RC_POWER_MANAGEMENT\n#include "{header}"\n', capture_output=True, text=True,
                       timeout=lib.HARD_TIMEOUT)
    assert p.returncode == 0, p.stderr


def test_intel_symbols_link_from_c(build, scratch):
    """print_dividers, RCCE_qsort and id_compare with the signatures of Intel's
    RCCE (RCCE.h under RC_POWER_MANAGEMENT; RCCE_lib.h), and iRCCE_lib.h, in a
    C program whose own prototypes (as Intel's programs write them) agree with
    the headers; RCCE's names RCCE_ERROR_FREQUENCY_EXCEEDED, PAD32byte and
    RC_cache_invalidate; locks that return int."""
    src = scratch / "intel_symbols.c"
    src.write_text(
        '#define RC_POWER_MANAGEMENT\n#include "RCCE.h"\n#include "RCCE_lib.h"\n#include "iRCCE_lib.h"\n'
        "void print_dividers(void);\n"
        "extern int RCCE_acquire_lock(int);\n"
        "extern int RCCE_release_lock(int);\n"
        "_Static_assert(RCCE_ERROR_FREQUENCY_EXCEEDED == RCCE_ERROR_BASE + 19, \"RCCE's code 19\");\n"
        "_Static_assert(PAD32byte(33) == 64 && PAD32byte(64) == 64, \"whole lines\");\n"
        "int RCCE_APP(int argc, char **argv) {\n"
        "  int ids[] = {5, -1, 3, 3, 0}, result = -1;\n"
        "  RCCE_FLAG f;\n"
        "  RCCE_init(&argc, &argv);\n"
        "  RC_cache_invalidate();\n"
        "  if (RCCE_acquire_lock(0) != RCCE_SUCCESS || RCCE_release_lock(0) != RCCE_SUCCESS) return 1;\n"
        "  if (RCCE_acquire_lock(RCCE_num_ues()) != RCCE_ERROR_ID) return 1;\n"
        "  if (RCCE_qsort((char *)ids, 5, sizeof(int), id_compare) != RCCE_SUCCESS) return 1;\n"
        '  printf("%d %d %d %d %d\\n", ids[0], ids[1], ids[2], ids[3], ids[4]);\n'
        "  RCCE_flag_alloc(&f);\n"
        "  if (iRCCE_test_flag(f, RCCE_FLAG_UNSET, &result) != RCCE_SUCCESS || result != 1) return 1;\n"
        "  if (RCCE_ue() == 0) print_dividers();\n"
        "  RCCE_finalize();\n"
        "  return 0;\n"
        "}\n")
    exe = scratch / "intel_symbols"
    p = lib.run([build.rccecc, "-Wall", "-Wextra", "-Werror", src, "-o", exe])
    assert p.rc == 0, p
    res = rccerun(build, "-nue", 2, "--cores", "0,12", exe)
    assert res.rc == lib.RC_OK, res
    lines = res.out.splitlines()
    assert lines.count("-1 0 3 3 5") == 2, res
    assert [ln for ln in lines if ln.startswith("Clock")] == [f"Clock divider for tile {t} is 3" for t in range(24)], res


# ------------------------------------------------ 3. C++ programs: rccec++


def rccecxx(build: lib.Build):
    return build.dir / "bin" / "rccec++"


def test_rccecxx_builds_and_runs_a_cplusplus_program(build, scratch):
    """tests/programs/cxx_rcce.cpp, built like Intel's NPB ports (rccec++
    -fpermissive): send/recv data intact, RCCE_qsort, the power API on master
    and non-masters, print_dividers (the master's divider 4 on all four tiles
    of power domain 0 -- tiles 0, 1, 6, 7 -- and only there)."""
    exe = scratch / "cxx_rcce"
    p = lib.run([rccecxx(build), "-O2", "-fpermissive", lib.PROGRAMS / "cxx_rcce.cpp", "-o", exe])
    assert p.rc == 0, p
    res = rccerun(build, "-nue", 3, exe)
    assert res.rc == lib.RC_OK, res
    assert res.out.endswith("cxx: OK\n"), res
    dividers = re.findall(r"^Clock divider for tile (\d+) is (\d+)$", res.out, re.M)
    assert [(int(t), int(d)) for t, d in dividers] == [(t, 4 if t in (0, 1, 6, 7) else 3) for t in range(24)], res
    assert res.err_lines == [], res


def test_rccecxx_compiler_and_showme(build, scratch):
    """rccec++ runs g++ unless OPENSCC_CXX names another compiler (as mpicxx),
    adding OpenSCC's include directory and librcce.a; --showme prints the command."""
    show = lib.run([rccecxx(build), "--showme"])
    assert show.rc == 0 and show.out.startswith("g++ "), show
    assert f"-I{INCLUDE}" in show.out and "-lrcce" in show.out, show
    env = lib.base_env(build, OPENSCC_CXX="echo")
    p = lib.run([rccecxx(build), "-O2", "x.cpp", "-o", "x"], env=env)
    assert p.rc == 0, p
    words = p.out.split()
    assert words[-7:] == ["-O2", "x.cpp", "-o", "x", f"-L{build.dir / 'lib'}", "-lrcce", "-lpthread"], p
    assert f"-I{INCLUDE}" in words, p


def test_installed_rccecxx_builds_a_cplusplus_program(build, scratch, compile_program):
    """`make install` installs rccec++ (pointing into the prefix) and iRCCE_lib.h;
    the installed wrapper builds the C++ program, which runs; the installed rccerun
    finds its copy-core program (`--copy-cores`)."""
    prefix = scratch / "prefix"
    res = lib.run(["make", "-C", lib.REPO, "install", f"PREFIX={prefix}", f"BUILD={build.dir}"], timeout=600)
    assert res.rc == 0, res
    assert (prefix / "include" / "openscc" / "iRCCE_lib.h").exists()
    show = lib.run([prefix / "bin" / "rccec++", "--showme"])
    assert f"-I{prefix}/include/openscc" in show.out.split() and f"-L{prefix}/lib" in show.out.split(), show
    exe = scratch / "cxx_rcce"
    p = lib.run([prefix / "bin" / "rccec++", "-fpermissive", lib.PROGRAMS / "cxx_rcce.cpp", "-o", exe])
    assert p.rc == 0, p
    res = rccerun(build, "-nue", 2, exe)
    assert res.rc == lib.RC_OK and res.out.endswith("cxx: OK\n"), res
    assert (prefix / "include" / "openscc" / "scc_copy.h").exists()
    res = lib.run([prefix / "bin" / "rccerun", "-nue", 2, "--copy-cores", 2, compile_program(build, "copy")])
    assert res.rc == lib.RC_OK and res.out.strip() == "copy: OK (2 copy cores)", res


# ------------------------------------------------ 4. the power API off the master


def test_wait_power_on_a_non_master_ignores_the_request(build, compile_program):
    """shared/repro/wait_power_garbage.c: UE 1 (not the master) passes a request
    full of garbage to RCCE_wait_power: RCCE_SUCCESS and no effect; its
    RCCE_set_frequency_divider too; the master's later RCCE_iset_power works."""
    prog = compile_program(build, "wait_power_garbage", "-DRC_POWER_MANAGEMENT")
    res = rccerun(build, "-nue", 2, prog)
    assert res.rc == lib.RC_OK, res
    assert "UE 1 (not master): RCCE_wait_power rc 0" in res.err_lines, res
    assert sorted(res.out.splitlines()) == ["UE 0 (master): RCCE_iset_power(4) rc 0, vlevel 0",
                                            "UE 1: RCCE_set_frequency_divider(3) rc 0"], res


def test_frequency_divider_of_the_master_sets_the_whole_domain(build, compile_program):
    """shared/repro/fdiv_domain.c in model mode (a counted build): the master's
    RCCE_set_frequency_divider(16) slows every UE of power domain 0 by 16/3 --
    UE 0 (tile 0), UE 2 (tile 1), UE 12 (tile 6) -- and UE 12's own request
    (not the master) changes nothing."""
    prog = compile_program(build, "fdiv_domain", "-DRC_POWER_MANAGEMENT", "--model-build")
    res = rccerun(build, "-nue", 13, "--model", "scc", prog)
    assert res.rc == lib.RC_OK, res
    assert "UE 0 (master 0 of domain 0): RCCE_set_frequency_divider(16) rc 0" in res.out, res
    assert "UE 12 (not master, domain 0): RCCE_set_frequency_divider(8) rc 0" in res.out, res
    ratios = dict(re.findall(r"^UE +(\d+) work time after/before = ([\d.]+)", res.out, re.M))
    assert ratios == {"0": "5.33", "2": "5.33", "12": "5.33"}, res

"""Randomized point-to-point stress (tests/programs/stress.c): nothing lost,
nothing reordered, every byte right, for many sizes, pairings and UE counts."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

MiB = 1 << 20


def run_stress(build, program, nue, seed, rounds, max_bytes, *opts):
    res = rccerun(build, *opts, "-nue", nue, program, seed, rounds, max_bytes)
    assert res.rc == lib.RC_OK, res
    m = re.search(rf"^stress: OK \({nue} UEs, seed {seed}, {rounds} rounds, (\d+) messages, (\d+) bytes, "
                  rf"chunk (\d+)\)$", res.out, re.M)
    assert m, res
    assert res.err_lines == [], res
    return int(m.group(1)), int(m.group(2))


# (nue, seed, rounds, max_bytes)
CASES = [
    (2, 1, 60, MiB),
    (2, 2, 200, 20000),  # many small and chunk-boundary messages
    (3, 3, 60, MiB),
    (3, 4, 150, 40000),
    (8, 5, 40, MiB),
    (8, 6, 100, 20000),
    (48, 7, 6, MiB),
    (48, 8, 20, 20000),
]


@pytest.mark.parametrize("nue,seed,rounds,max_bytes", CASES, ids=[f"{c[0]}ue-seed{c[1]}" for c in CASES])
def test_stress(build, compile_program, nue, seed, rounds, max_bytes):
    if build.asan and nue == 48 and max_bytes == MiB:
        pytest.skip("48 UEs x 1 MiB runs in the Release build only (suite time)")
    msgs, nbytes = run_stress(build, compile_program(build, "stress"), nue, seed, rounds, max_bytes)
    assert msgs > 0 and nbytes > 0


@pytest.mark.parametrize("nue,seed", [(2, 11), (3, 12), (8, 13), (48, 14)])
def test_stress_no_single_copy(build, compile_program, nue, seed):
    """Large messages move in MPB chunks only."""
    rounds, max_bytes = (4, 300000) if nue == 48 else (30, 300000)
    run_stress(build, compile_program(build, "stress"), nue, seed, rounds, max_bytes, "--no-single-copy")


@pytest.mark.parametrize("nue,seed", [(2, 21), (3, 22), (8, 23), (48, 24)])
def test_stress_singlebit(build, compile_program, nue, seed):
    """The basic interface with -DSINGLEBITFLAGS."""
    rounds, max_bytes = (6, 200000) if nue == 48 else (40, 200000)
    run_stress(build, compile_program(build, "stress", "-DSINGLEBITFLAGS"), nue, seed, rounds, max_bytes)


def test_stress_scattered_cores(build, compile_program):
    run_stress(build, compile_program(build, "stress"), 6, 31, 40, 100000, "--cores", "47,0,23,11,36,5")


def test_stress_same_schedule_same_result(build, compile_program):
    """The schedule is a function of the seed alone: two runs agree, another seed differs."""
    prog = compile_program(build, "stress")
    a = run_stress(build, prog, 4, 41, 20, 50000)
    b = run_stress(build, prog, 4, 41, 20, 50000)
    c = run_stress(build, prog, 4, 42, 20, 50000)
    assert a == b
    assert a != c


def test_stress_detects_corruption(build, compile_program):
    """The checker is live: UE 1 flips a payload byte after checksumming, a
    receiver must notice, name itself and the sender, and the job fail."""
    res = rccerun(build, "-nue", 4, compile_program(build, "stress"), 51, 20, 50000, 1)
    assert res.rc == lib.RC_UE_FAILED, res
    assert re.search(r"^stress: UE (\d+): round \d+ message \d+ from UE 1 \(\d+ bytes\): payload checksum "
                     r"0x[0-9a-f]+, header says 0x[0-9a-f]+$", res.err, re.M), res
    assert re.search(r"^rccerun: UE (\d+) \(core \1\) exited with status 1$", res.err, re.M), res
    assert "stress: OK" not in res.out, res


def test_stress_rejects_bad_argument(build, compile_program):
    res = rccerun(build, "-nue", 2, compile_program(build, "stress"), "x")
    assert res.rc == lib.RC_UE_FAILED, res
    assert "stress: bad argument 1 'x' (expected 0..1099511627776)" in res.err, res

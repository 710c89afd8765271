"""Randomized point-to-point stress (tests/programs/stress.c): nothing lost,
nothing reordered, every byte right, for many sizes, pairings and UE counts."""
from __future__ import annotations

import re
import subprocess
import sys

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


# (nue, seed, rounds, max_bytes): 1 MiB messages and many small/boundary-sized ones
CASES = [
    (2, 1, 60, MiB), (2, 2, 60, MiB), (2, 3, 300, 20000),
    (3, 4, 60, MiB), (3, 5, 60, MiB), (3, 6, 200, 20000),
    (8, 7, 40, MiB), (8, 8, 40, MiB), (8, 9, 120, 20000),
    (48, 10, 12, MiB), (48, 11, 12, MiB), (48, 12, 40, 20000),
]


@pytest.mark.parametrize("nue,seed,rounds,max_bytes", CASES, ids=[f"{c[0]}ue-seed{c[1]}" for c in CASES])
def test_stress(build, compile_program, nue, seed, rounds, max_bytes):
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


def test_stress_largest_job(build, compile_program):
    """The largest mesh (16x16x4 = 1024 cores) with single-bit flags: 1024 UEs
    in the Release build, 256 under the sanitizers (process start-up cost)."""
    nue = 256 if build.asan else 1024
    run_stress(build, compile_program(build, "stress", "-DSINGLEBITFLAGS"), nue, 81, 3, 4096, "--chip", "16x16x4")


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


# Waiting policy knobs documented in docs/rccerun.md ("for experiments"):
# OPENSCC_SPIN=0 and OPENSCC_YIELD=0 send every waiting UE straight to its
# futex, so every message exercises the sleep/wake-up protocol; with
# OPENSCC_ASYM_FENCE=0 the writers' side uses a plain fence.
WAIT_POLICIES = {
    "sleep-at-once": {"OPENSCC_SPIN": "0", "OPENSCC_YIELD": "0"},
    "sleep-at-once-plain-fence": {"OPENSCC_SPIN": "0", "OPENSCC_YIELD": "0", "OPENSCC_ASYM_FENCE": "0"},
    "short-spin": {"OPENSCC_SPIN": "1", "OPENSCC_YIELD": "1"},
}


@pytest.mark.parametrize("nue", (2, 8))
@pytest.mark.parametrize("policy", WAIT_POLICIES)
def test_stress_wait_policies(build, compile_program, policy, nue):
    env = lib.base_env(build, **WAIT_POLICIES[policy])
    prog = compile_program(build, "stress")
    seed = 70 + nue
    res = rccerun(build, "-nue", nue, prog, seed, 60, 40000, env=env)
    assert res.rc == lib.RC_OK, res
    assert f"stress: OK ({nue} UEs, seed {seed}, 60 rounds" in res.out, res
    assert res.err_lines == [], res


@pytest.mark.parametrize("policy", ["sleep-at-once", "sleep-at-once-plain-fence"])
def test_gory_and_collectives_wait_policies(build, compile_program, policy):
    env = lib.base_env(build, **WAIT_POLICIES[policy])
    res = rccerun(build, "-nue", 3, compile_program(build, "gory", "-DGORY", "-DSINGLEBITFLAGS"), 2, env=env)
    assert res.rc == lib.RC_OK and "gory: OK (3 UEs" in res.out, res
    res = rccerun(build, "-nue", 4, compile_program(build, "collectives"), 500, env=env)
    assert res.rc == lib.RC_OK and "collectives: OK (4 UEs" in res.out, res
    res = rccerun(build, "-nue", 4, compile_program(build, "locks"), 100, env=env)
    assert res.rc == lib.RC_OK and "locks: OK (4 UEs" in res.out, res


@pytest.mark.parametrize("nue", (2, 3, 8, 48))
@pytest.mark.parametrize("flags", [(), ("-DSINGLEBITFLAGS",)], ids=["big", "singlebit"])
def test_gather_polling_many_senders(build, compile_program, flags, nue):
    """One UE polls every other with RCCE_recv_test and takes whatever is ready."""
    res = rccerun(build, "-nue", nue, compile_program(build, "gather", *flags), 20, 20000)
    assert res.rc == lib.RC_OK, res
    assert f"gather: OK ({nue} UEs, 20 messages each way per UE)\n" in res.out, res
    assert res.err_lines == [], res


def test_gather_sleep_at_once(build, compile_program):
    env = lib.base_env(build, **WAIT_POLICIES["sleep-at-once"])
    res = rccerun(build, "-nue", 6, compile_program(build, "gather"), 30, 50000, env=env)
    assert res.rc == lib.RC_OK and "gather: OK (6 UEs" in res.out, res


@pytest.mark.parametrize("scheme", ["lprg", "rplg"])
@pytest.mark.parametrize("deny", [-1, 0, 1], ids=["all-ues", "sender", "receiver"])
def test_large_messages_without_cross_memory_attach(build, compile_program, deny, scheme):
    """When the kernel refuses process_vm_readv/writev (a seccomp filter in
    tests/programs/nocma.c), large messages fall back to MPB chunks intact,
    under both communication schemes."""
    res = rccerun(build, "--scheme", scheme, "-nue", 3, compile_program(build, "nocma"), deny)
    assert res.rc == lib.RC_OK, res
    assert "nocma: OK (3 UEs)" in res.out, res
    assert res.err_lines == [], res


def test_stress_on_a_loaded_host(build, compile_program):
    """Two busy processes share the CPUs with a 2-UE job: the adaptive waiting
    (hw/wait.c) switches to its loaded regime (budget trials, short spins,
    sleeps) and every message still arrives intact and in order."""
    prog = compile_program(build, "stress")
    busy = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass\n"
    hogs = [subprocess.Popen([sys.executable, "-c", busy]) for _ in range(2)]
    try:
        for seed in (61, 62):
            run_stress(build, prog, 2, seed, 100, 40000)
    finally:
        for h in hogs:
            h.kill()
            h.wait()


@pytest.mark.parametrize("nue, policy", [(2, {"OPENSCC_SPIN": "0", "OPENSCC_YIELD": "0"}), (3, {}),
                                         (8, {"OPENSCC_SPIN": "0", "OPENSCC_YIELD": "0"})])
def test_barrier_storm(build, compile_program, nue, policy):
    """Barriers back to back with uneven work between them and waiters that sleep at once: a waker
    of one barrier running late must not lose the sleepers of the next (they would hang)."""
    res = rccerun(build, "--timeout", 100, "-nue", nue, compile_program(build, "barrier_storm"), 20000,
                  env=lib.base_env(build, **policy))
    assert res.rc == lib.RC_OK and f"barrier_storm: OK ({nue} UEs, 20000 barriers)\n" in res.out, res

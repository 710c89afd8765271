"""rccerun's supervision (src/launch/supervise.c, report.c): crashes, early
exits, deadlocks, timeouts, signals, and cleanup after kill -9."""
from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest

import openscc_testlib as lib
from openscc_testlib import Job, rccerun

CORES = (10, 11, 12, 13)  # UE u on core 10+u: reports must name both
CORES_OPT = ("--cores", ",".join(map(str, CORES)))


def name(ue: int) -> str:
    return f"UE {ue} (core {CORES[ue]})"


def crash(build, compile_program, mode, *opts, nue=4, env=None):
    prog = compile_program(build, "crash")
    return rccerun(build, *opts, *CORES_OPT, "-nue", nue, prog, mode, env=env)


def report(res: lib.Result, headline: str) -> list[str]:
    """The per-UE lines that follow `headline` in rccerun's stderr."""
    lines = res.err.splitlines()
    assert f"rccerun: {headline}" in lines, f"no headline {headline!r}\n{res}"
    i = lines.index(f"rccerun: {headline}")
    return [ln for ln in lines[i + 1:] if ln.startswith("  UE ")]


def test_normal_run(build, compile_program):
    res = crash(build, compile_program, "ok")
    assert res.rc == lib.RC_OK, res
    assert res.out.count(" ready\n") == 4 and "crash: ok finished\n" in res.out, res
    assert res.err_lines == [], res


def test_segv(build, compile_program):
    # Under ASan the NULL store must still end in SIGSEGV, not in an ASan report.
    env = lib.base_env(build, ASAN_OPTIONS="handle_segv=0:detect_leaks=1") if build.asan else None
    res = crash(build, compile_program, "segv", env=env)
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(1)} crashed: killed by signal 11 (Segmentation fault)" in res.err.splitlines(), res
    assert "returned" not in res.out, res  # no receive from the crashed UE completed


def test_exit_early(build, compile_program):
    res = crash(build, compile_program, "exit_early")
    assert res.rc == lib.RC_UE_FAILED, res
    assert (f"rccerun: {name(1)} exited early (without RCCE_finalize) while {name(0)} waits for it"
            in res.err.splitlines()), res
    lines = report(res, "state of every UE:")
    assert lines[:2] == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: exited with status 0 without RCCE_finalize",
    ], res
    # UEs 2 and 3 head for RCCE_finalize; the report may catch them before its barrier.
    for u in (2, 3):
        assert re.fullmatch(rf"  {re.escape(name(u))}: (running \(not blocked in the runtime\)|blocked in a barrier "
                            rf"of communicator #0 \(4 UEs: 0 1 2 3\), [12] of 4 arrived)", lines[u]), res
    assert len(lines) == 4, res


def test_exit_early_two_ues(build, compile_program):
    res = crash(build, compile_program, "exit_early", nue=2)
    assert res.rc == lib.RC_UE_FAILED, res
    assert res.err.splitlines()[:4] == [
        f"rccerun: {name(1)} exited early (without RCCE_finalize) while {name(0)} waits for it",
        "rccerun: state of every UE:",
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: exited with status 0 without RCCE_finalize",
    ], res


def test_exit_status(build, compile_program):
    res = crash(build, compile_program, "exit_status")
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(2)} exited with status 3" in res.err.splitlines(), res
    assert "returned" not in res.out, res


def test_exit_before_init(build, compile_program):
    res = crash(build, compile_program, "before_init")
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(1)} exited with status 5" in res.err.splitlines(), res


def test_no_finalize_warns(build, compile_program):
    """UEs that return without RCCE_finalize while nobody waits: exit 0, one warning line naming them."""
    res = crash(build, compile_program, "no_finalize", nue=3)
    assert res.rc == lib.RC_OK, res
    warnings = [ln for ln in res.err.splitlines() if "warning" in ln]
    assert warnings == [f"rccerun: warning: 3 UEs exited without calling RCCE_finalize: "
                        f"{name(0)}, {name(1)}, {name(2)}"], res


def test_no_finalize_warning_is_one_line_at_48_ues(build, compile_program):
    prog = compile_program(build, "crash")
    res = rccerun(build, "-nue", 48, prog, "no_finalize")
    assert res.rc == lib.RC_OK, res
    warnings = [ln for ln in res.err.splitlines() if "warning" in ln]
    assert warnings == ["rccerun: warning: 48 UEs exited without calling RCCE_finalize: "
                        + ", ".join(f"UE {u} (core {u})" for u in range(8)) + " and 40 more"], res


DEADLOCK = "deadlock: every running UE is blocked in the runtime and none can proceed"


def test_deadlock(build, compile_program):
    res = crash(build, compile_program, "deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    assert report(res, DEADLOCK) == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}",
        f"  {name(2)}: blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 2 of 4 arrived",
        f"  {name(3)}: blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 2 of 4 arrived",
    ], res
    assert "returned" not in res.out, res


def test_deadlock_after_unrelated_wakeup(build, compile_program):
    """Regression: a UE woken by a flag write it does not wait for goes back to
    sleep on a new doorbell value; the detector must still see it asleep."""
    res = crash(build, compile_program, "deadlock_rung", "--timeout", "60")
    assert res.rc == lib.RC_DEADLOCK, res
    assert report(res, DEADLOCK) == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}",
        f"  {name(2)}: blocked in RCCE_send, waiting for {name(0)} to receive",
        f"  {name(3)}: blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 1 of 4 arrived",
    ], res


# Two-UE deadlocks by crash.c mode, and the report's lines for them.
TWO_UE_DEADLOCKS = {
    "deadlock": [f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
                 f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}"],
    "any_source_deadlock": [f"  {name(0)}: blocked in a receive from any UE (iRCCE_ANY_SOURCE), waiting for data",
                            f"  {name(1)}: blocked in a barrier of communicator #0 (2 UEs: 0 1), 1 of 2 arrived"],
}


@pytest.mark.parametrize("mode", sorted(TWO_UE_DEADLOCKS))
def test_deadlock_two_ues(build, compile_program, mode):
    res = crash(build, compile_program, mode, nue=2)
    assert res.rc == lib.RC_DEADLOCK, res
    assert report(res, DEADLOCK) == TWO_UE_DEADLOCKS[mode], res


def test_deadlock_before_timeout(build, compile_program):
    """A deadlock is reported as such (exit 3) long before a generous --timeout."""
    res = crash(build, compile_program, "deadlock", "--timeout", "100")
    assert res.rc == lib.RC_DEADLOCK, res
    assert "timeout" not in res.err, res


def test_barrier_deadlock(build, compile_program):
    res = crash(build, compile_program, "barrier_deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    barrier = "blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 3 of 4 arrived"
    assert report(res, DEADLOCK) == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: {barrier}", f"  {name(2)}: {barrier}", f"  {name(3)}: {barrier}",
    ], res


def test_lock_deadlock(build, compile_program):
    res = crash(build, compile_program, "lock_deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    assert report(res, DEADLOCK) == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: blocked in RCCE_acquire_lock, waiting for the lock of {name(0)}",
        f"  {name(2)}: blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 2 of 4 arrived",
        f"  {name(3)}: blocked in a barrier of communicator #0 (4 UEs: 0 1 2 3), 2 of 4 arrived",
    ], res


def test_deadlock_48_ues(build, compile_program):
    """Many sleepers: the detector still names the two culprits."""
    prog = compile_program(build, "crash")
    res = rccerun(build, "-nue", 48, prog, "deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    lines = report(res, DEADLOCK)
    assert len(lines) == 48, res
    assert lines[0] == "  UE 0 (core 0): blocked in RCCE_recv, waiting for data from UE 1 (core 1)", res
    assert lines[1] == "  UE 1 (core 1): blocked in RCCE_recv, waiting for data from UE 0 (core 0)", res
    for u in range(2, 48):
        assert lines[u] == (f"  UE {u} (core {u}): blocked in a barrier of communicator #0 "
                            f"(48 UEs: 0 1 2 3 ...), 46 of 48 arrived"), res


@pytest.mark.parametrize("mode", ["hang", "spin"])
def test_timeout_with_running_ue(build, compile_program, mode):
    """UE 0 never calls the runtime again (sleeping or spinning): that is no
    deadlock; --timeout ends the job with exit 124 and a report."""
    res = crash(build, compile_program, mode, "--timeout", "2.5", nue=3)
    assert res.rc == lib.RC_TIMEOUT, res
    assert report(res, "timeout: the job ran longer than 2.5 s") == [
        f"  {name(0)}: running (not blocked in the runtime)",
        f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}",
        f"  {name(2)}: blocked in RCCE_recv, waiting for data from {name(0)}",
    ], res
    assert "deadlock" not in res.err, res


def test_timeout_sleep_forever(build, compile_program):
    res = crash(build, compile_program, "sleep_forever", "--timeout", "2", nue=4)
    assert res.rc == lib.RC_TIMEOUT, res
    assert report(res, "timeout: the job ran longer than 2 s") == [
        f"  {name(u)}: running (not blocked in the runtime)" for u in range(4)], res


# ------------------------------------------------------------------ signals


def start_hang(build, compile_program, scratch, nue=3, **kw) -> Job:
    job = Job(build, "-nue", nue, compile_program(build, "crash"), "hang", cwd=scratch, **kw)
    job.wait_ready(nue)
    return job


@pytest.mark.parametrize("sig,group", [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False),
                                       (signal.SIGHUP, False), (signal.SIGQUIT, False)],
                         ids=["sigint", "sigint-to-group", "sigterm", "sighup", "sigquit"])
def test_interrupt(build, compile_program, scratch, sig, group):
    """Ctrl-C (SIGINT to rccerun, or to its process group as a terminal does):
    rccerun stops every UE, removes the segment and exits 128+signal."""
    job = start_hang(build, compile_program, scratch, new_session=group)
    ues = lib.ue_pids(job.pid)
    assert sorted(ues) == [0, 1, 2], job
    assert len(lib.segments_of(job.pid)) == 1, job
    if group:
        os.killpg(job.pid, sig)  # the UEs are in a group of their own: rccerun alone gets it
    else:
        os.kill(job.pid, sig)
    res = job.wait()
    assert res.rc == 128 + sig, res
    assert f"rccerun: interrupted by {signal.strsignal(sig)}; stopping 3 UE(s)" in res.err.splitlines(), res
    assert lib.session_pids() == [], lib.describe_pids(lib.session_pids())
    assert not any(lib.pid_alive(p) and lib.pid_is_ours(p) for p in ues.values())
    assert lib.segments_of(job.pid) == [], res


def test_kill_9_of_one_ue(build, compile_program, scratch):
    job = start_hang(build, compile_program, scratch)
    ues = lib.ue_pids(job.pid)
    os.kill(ues[2], signal.SIGKILL)
    res = job.wait()
    assert res.rc == lib.RC_UE_FAILED, res
    assert "rccerun: UE 2 (core 2) crashed: killed by signal 9 (Killed)" in res.err.splitlines(), res
    assert lib.session_pids() == [], lib.describe_pids(lib.session_pids())
    assert lib.segments_of(job.pid) == [], res


def test_kill_9_of_rccerun(build, compile_program, scratch):
    """kill -9 of the launcher: the UEs die with it (PR_SET_PDEATHSIG); its
    segment stays until the next rccerun removes it as stale."""
    # Start from a clean slate: this run removes any stale segment of old jobs.
    res = rccerun(build, "-nue", 1, build.app("hello"))
    assert res.rc == lib.RC_OK, res
    job = start_hang(build, compile_program, scratch, nue=4)
    ues = lib.ue_pids(job.pid)
    assert sorted(ues) == [0, 1, 2, 3], job
    segs = lib.segments_of(job.pid)
    assert len(segs) == 1, job
    os.kill(job.pid, signal.SIGKILL)
    assert job.proc.wait(timeout=30) == -signal.SIGKILL
    lib.wait_until(lambda: not any(lib.pid_alive(p) and lib.pid_is_ours(p) for p in ues.values()), 10,
                   "the UEs of the killed rccerun to die:\n" + lib.describe_pids(ues.values()))
    assert lib.session_pids() == [], lib.describe_pids(lib.session_pids())
    assert (lib.SHM_DIR / segs[0]).exists(), "the killed launcher's segment vanished by itself"
    res = rccerun(build, "-nue", 2, build.app("hello"))
    assert res.rc == lib.RC_OK and "hello: OK\n" in res.out, res
    assert "rccerun: removed 1 stale segment(s) left by killed jobs" in res.err.splitlines(), res
    assert not (lib.SHM_DIR / segs[0]).exists(), res


def test_segment_removed_after_every_outcome(build, compile_program):
    """No segment survives an ok run, a crash, a deadlock or a timeout (the
    autouse fixture checks /dev/shm after each test; this one batches them)."""
    before = lib.shm_segments()
    for mode, opts in (("ok", ()), ("exit_status", ()), ("deadlock", ()), ("hang", ("--timeout", "0.5"))):
        res = crash(build, compile_program, mode, *opts)
        assert res.rc in (0, 1, 3, 124), res
        assert lib.leftover_segments(before) == [], f"{mode}\n{res}"


def test_zero_byte_messages_do_not_synchronise(build, compile_program):
    """docs/rcce.md: a zero-byte send or receive returns at once (RCCE 1.0.13):
    UE 0 sends and receives 0 bytes to/from UE 1, which never takes part."""
    res = crash(build, compile_program, "zero_bytes", nue=2)
    assert res.rc == lib.RC_OK, res
    assert "crash: UE 0: 0-byte RCCE_send 0, RCCE_recv 0, RCCE_recv_test 0 (test 1)\n" in res.out, res
    assert "crash: zero_bytes finished\n" in res.out, res


def test_mixed_variants_stop_the_job(build, compile_program):
    """UEs of one job built with different interface options: RCCE_init stops them with a message."""
    res = crash(build, compile_program, "mixed")
    assert res.rc == lib.RC_UE_FAILED, res
    failed = re.findall(r"^RCCE_init failed on UE (\d+): (.*)$", res.err, re.M)
    assert failed, res
    for ue, why in failed:
        assert why == "UEs of this job were compiled with different interface (-DGORY) options", res
    # the UEs that lost the race all have the same parity
    assert len({int(u) % 2 for u, _ in failed}) == 1, res
    assert re.search(r"^rccerun: UE (\d+) \(core 1\d\) exited with status 1$", res.err, re.M), res


def test_stdin_file_reaches_the_ues(build, compile_program, scratch):
    """UEs read rccerun's stdin when it is a file or a pipe."""
    (scratch / "input").write_text("first line\nsecond line\n")
    with open(scratch / "input") as stdin:
        res = rccerun(build, "-nue", 2, compile_program(build, "crash"), "stdin", stdin=stdin)
    assert res.rc == lib.RC_OK, res
    assert "crash: UE 0 read 'first line'\n" in res.out, res


def test_stdin_terminal_is_not_read(build, compile_program):
    """docs/rccerun.md: when stdin is a terminal the UEs (in their own process
    group, where reading the terminal would stop them) read /dev/null."""
    master, slave = os.openpty()
    try:
        res = rccerun(build, "--timeout", "20", "-nue", 2, compile_program(build, "crash"), "stdin", stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert res.rc == lib.RC_OK, res
    assert "crash: UE 0 read EOF\n" in res.out, res


# ------------------------------------------------ UEs that end on their own


def exits(build, compile_program, mode, nue):
    return rccerun(build, "-nue", nue, compile_program(build, "exits"), mode)


def test_satisfied_wait_is_not_an_early_exit(build, compile_program):
    """UE 0 takes UE 1's message and returns without RCCE_finalize while UE 1,
    woken, has not yet run: UE 1 is not stranded (its futex word changed), so
    the job succeeds.  It failed about 1 run in 3 when the supervisor only
    looked at UE 1's state; repeated to catch the race."""
    for _ in range(60):
        res = exits(build, compile_program, "last_recv", 2)
        assert res.rc == lib.RC_OK, res
        assert res.err_lines == ["rccerun: warning: 2 UEs exited without calling RCCE_finalize: "
                                 "UE 0 (core 0), UE 1 (core 1)"], res


def test_output_of_ues_exiting_after_a_failure_is_kept(build, compile_program):
    """Every UE returns 1 and UE 0 prints a usage line first (Intel's examples):
    the UEs still exiting when the first failure is seen get their grace period,
    so UE 0's line is never lost; one failure is reported."""
    for _ in range(20):
        res = exits(build, compile_program, "usage", 4)
        assert res.rc == lib.RC_UE_FAILED, res
        assert res.out == "exits: usage: exits MODE\n", res
        assert len(res.err_lines) == 1 and re.fullmatch(r"rccerun: UE (\d) \(core \1\) exited with status 1",
                                                          res.err_lines[0]), res


# ------------------------------------------------ output pipes without a reader


def run_into_pipe(build, compile_program, mode, *, stderr_too, restore_signals=True, head=0):
    """rccerun -nue 3 exits MODE with stdout a pipe (and stderr too when
    stderr_too).  head=0: the pipe has no reader from the start; head=n: the
    test reads n lines, then closes it, like `| head -n`.  Returns (exit
    code, captured stderr or "")."""
    r, w = os.pipe()
    if not head:
        os.close(r)
    err_target = w if stderr_too else subprocess.PIPE
    p = subprocess.Popen([str(build.rccerun), "-nue", "3", str(compile_program(build, "exits")), mode],
                         stdin=subprocess.DEVNULL, stdout=w, stderr=err_target, cwd=build.work,
                         env=lib.base_env(build), preexec_fn=lib.no_core_dumps, restore_signals=restore_signals)
    lib.LAUNCHED_PIDS.add(p.pid)
    os.close(w)
    if head:
        with os.fdopen(r, "rb") as reader:
            for _ in range(head):
                assert reader.readline(), "rccerun's pipe ended early"
    try:
        _, err = p.communicate(timeout=lib.HARD_TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        lib.kill_session_processes()
        raise AssertionError(f"rccerun {mode} still ran after {lib.HARD_TIMEOUT} s")
    return p.returncode, (err or b"").decode(errors="replace")


SIGPIPE_LINE = "rccerun: UE 0 (core 0) ended by signal 13 (Broken pipe): it wrote to a pipe nobody reads any more"


def test_ue_writing_to_a_closed_pipe_ends_the_job(build, compile_program):
    """A UE writing to a pipe nobody reads dies of SIGPIPE as any filter would;
    rccerun reports it, stops the others and removes the segment (checked by
    the no_leftovers fixture)."""
    rc, err = run_into_pipe(build, compile_program, "chatter", stderr_too=False)
    assert rc == lib.RC_UE_FAILED, err
    assert [ln for ln in err.splitlines() if not ln.startswith("rccerun: removed ")] == [SIGPIPE_LINE], err


def test_head_1_of_everything(build, compile_program):
    """`rccerun ... 2>&1 | head -1`: rccerun itself must not die of SIGPIPE
    (it did, with 141, leaving the segment): it ends the job as above."""
    rc, _ = run_into_pipe(build, compile_program, "chatter", stderr_too=True, head=1)
    assert rc == lib.RC_UE_FAILED


def test_rccerun_outlives_its_closed_stderr(build, compile_program):
    """Quiet UEs, but rccerun's warning goes to a pipe without a reader: the
    message is lost (EPIPE), the job still succeeds and is cleaned up."""
    rc, _ = run_into_pipe(build, compile_program, "quiet", stderr_too=True)
    assert rc == lib.RC_OK


def test_ues_inherit_an_ignored_sigpipe(build, compile_program):
    """Started with SIGPIPE ignored (as by a Python subprocess that keeps its
    signals), rccerun passes that on: the UE's write fails with EPIPE and the
    program handles it (returns 3)."""
    rc, err = run_into_pipe(build, compile_program, "chatter", stderr_too=False, restore_signals=False)
    assert rc == lib.RC_UE_FAILED, err
    lines = [ln for ln in err.splitlines() if not ln.startswith("rccerun: removed ")]
    assert lines == ["exits: UE 0: EPIPE", "rccerun: UE 0 (core 0) exited with status 3"], err

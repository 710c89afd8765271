"""Job directories never mix or silently overwrite results (docs/monitoring.md
"The job directory"): a directory holding a job is refused unless
--replace-job-dir, two running jobs cannot share one, and no file is written
through a symlink."""
from __future__ import annotations

import signal
import subprocess

import openscc_testlib as lib
from openscc_testlib import rccerun

RC_SETUP = 4  # src/launch/supervise.h: the job could not be set up
JOB_FILES = {"summary.json", "comm_matrix.csv", "message_sizes.csv", "trace.json", "power.csv"}


def traced(build, job, *opts, level="counters", app="hello", args=()):
    return rccerun(build, "-nue", 2, "--trace", level, "--job-dir", job, *opts, build.app(app), *args)


def refused(res, job, why):
    """rccerun stopped before any UE started (a UE's first output would be on stdout)."""
    assert res.rc == RC_SETUP and res.out == "", res
    assert res.err == f"rccerun: job directory {job}: {why}\n", res


HOLDS_A_JOB = ("already holds a job (summary.json); choose another --job-dir or replace it with "
               "--replace-job-dir")


def test_a_directory_holding_a_job_is_refused(build, scratch):
    job = scratch / "job"
    assert traced(build, job).rc == lib.RC_OK
    first = lib.check_summary(job / "summary.json")["job"]["id"]
    refused(traced(build, job), job, HOLDS_A_JOB)
    assert lib.check_summary(job / "summary.json")["job"]["id"] == first  # untouched


def test_replace_leaves_nothing_of_the_old_job(build, scratch):
    job = scratch / "job"
    res = traced(build, job, level="timeline", app="pingpong", args=("64", "3"))
    assert res.rc == lib.RC_OK and {p.name for p in job.iterdir()} == JOB_FILES - {"power.csv"}, res
    res = traced(build, job, "--replace-job-dir")
    assert res.rc == lib.RC_OK, res
    assert {p.name for p in job.iterdir()} == {"summary.json"}  # no stale trace.json beside the new summary
    assert lib.check_summary(job / "summary.json")["job"]["trace"] == "counters"


def test_a_failed_job_keeps_the_old_results(build, compile_program, scratch):
    """The old job's files go only when the new job's are written."""
    job = scratch / "job"
    assert traced(build, job).rc == lib.RC_OK
    before = (job / "summary.json").read_bytes()
    res = rccerun(build, "-nue", 3, "--trace", "counters", "--job-dir", job, "--replace-job-dir",
                  compile_program(build, "crash"), "exit_status")
    assert res.rc == lib.RC_UE_FAILED, res
    assert (job / "summary.json").read_bytes() == before


def test_an_empty_directory_is_used_and_one_made_for_a_failed_job_is_removed(build, compile_program, scratch):
    job = scratch / "empty"
    job.mkdir()
    assert traced(build, job).rc == lib.RC_OK and (job / "summary.json").exists()
    made = scratch / "made" / "job"
    res = rccerun(build, "-nue", 3, "--trace", "counters", "--job-dir", made, compile_program(build, "crash"),
                  "exit_status")
    assert res.rc == lib.RC_UE_FAILED and not made.exists(), res


def test_two_running_jobs_cannot_share_a_directory(build, compile_program, scratch):
    job = scratch / "job"
    prog = compile_program(build, "crash")
    first = lib.Job(build, "-nue", 1, "--trace", "counters", "--job-dir", job, prog, "sleep_forever", cwd=scratch)
    try:
        first.wait_ready(1)
        for opts in ((), ("--replace-job-dir",)):
            refused(traced(build, job, *opts), job, "in use by another running job")
    finally:
        first.proc.send_signal(signal.SIGTERM)
        assert first.wait().rc == 128 + signal.SIGTERM
    assert not job.exists()  # it made the directory and wrote nothing: gone with it
    assert traced(build, job).rc == lib.RC_OK  # the lock went with the first job


def test_racing_jobs_leave_one_whole_job(build, scratch):
    """Eight jobs started at once on one new directory, five times: exactly one
    writes it, every other is refused before starting a UE."""
    cmd = [build.rccerun, "-nue", 2, "--trace", "counters", "--job-dir", None, build.app("hello")]
    for round_ in range(5):
        job = scratch / f"job{round_}"
        cmd[6] = job
        procs = [subprocess.Popen(list(map(str, cmd)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=lib.base_env(build)) for _ in range(8)]
        results = [(p.pid, p.wait(timeout=lib.HARD_TIMEOUT), *p.communicate()) for p in procs]
        winners = [pid for pid, rc, _, _ in results if rc == lib.RC_OK]
        assert len(winners) == 1, results
        for pid, rc, out, err in results:
            if pid not in winners:
                assert rc == RC_SETUP and out == "", results
                assert err in (f"rccerun: job directory {job}: in use by another running job\n",
                               f"rccerun: job directory {job}: {HOLDS_A_JOB}\n"), results
        assert lib.check_summary(job / "summary.json")["job"]["id"].endswith(f"-{winners[0]}")


def test_a_file_is_no_job_directory(build, scratch):
    blocker = scratch / "file"
    blocker.write_text("not a directory")
    refused(traced(build, blocker), blocker, "Not a directory")
    assert blocker.read_text() == "not a directory"


def test_files_are_never_written_through_a_symlink(build, scratch):
    """A symlink named like a job file counts as a job; replacing removes the
    link and writes a new file, the link's target stays as it was."""
    job, target = scratch / "job", scratch / "target"
    job.mkdir()
    target.write_text("keep me")
    (job / "summary.json").symlink_to(target)
    refused(traced(build, job), job, HOLDS_A_JOB)
    assert traced(build, job, "--replace-job-dir").rc == lib.RC_OK
    assert not (job / "summary.json").is_symlink() and target.read_text() == "keep me"
    lib.check_summary(job / "summary.json")


def test_help_names_the_option(build):
    res = rccerun(build, "--help")
    assert "  --replace-job-dir      replace the job already in DIR" in res.out, res

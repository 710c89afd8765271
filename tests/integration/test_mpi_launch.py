"""rccerun --mpi (src/launch/mpi_launch.c, supervise.c, rank/openscc_rank.c; docs/rccerun.md "MPI jobs"):
the MPI library's own launcher starts `openscc-rank PROGRAM` per rank, rank i is UE i, and rccerun
supervises the ranks through what the wrappers record in launch.ue.  RCCE programs run under
--mpi as well (the wrapper gives them a UE's environment), which exercises the launch path, the
supervision and the cleanup without depending on an MPI program."""
from __future__ import annotations

import os
import shutil
import signal
import time
import uuid
from pathlib import Path

import pytest

import openscc_testlib as lib
from openscc_testlib import Job, rccerun

CORES = (10, 11, 12, 13)  # rank r on core 10+r: reports must name rank, UE and core
CORES_OPT = ("--cores", ",".join(map(str, CORES)))
RC_SETUP = 4
PROVIDER_FLAVOUR = {"openmpi": 1, "mpich": 2}


def mpich_prefix() -> Path:
    """The MPICH rccerun uses: $OPENSCC_MPICH_PREFIX, else the source tree's .venv."""
    return Path(os.environ.get("OPENSCC_MPICH_PREFIX") or lib.REPO / ".venv")


def deps_installed() -> bool:
    """What scripts/install-deps.sh installs for the providers: Debian's libfabric headers and the MPICH wheel."""
    return Path("/usr/include/rdma/fabric.h").exists() and os.access(lib.REPO / ".venv" / "bin" / "mpiexec", os.X_OK)


def require(build, mpi: str) -> None:
    """Skips (with the reason) when the MPI library is not installed, outside CI only: under CI (the
    environment variable CI set, as .ci/run does) every MPI test runs.  A build without the provider
    flavour while the dependencies are installed is a failure (configured before scripts/install-deps.sh?)."""
    absent = None
    if mpi == "openmpi" and not (shutil.which("mpirun.openmpi") or shutil.which("mpirun")):
        absent = "Open MPI's mpirun.openmpi is not installed (scripts/install-deps.sh)"
    if mpi == "mpich" and not os.access(mpich_prefix() / "bin" / "mpiexec", os.X_OK):
        absent = f"no MPICH at {mpich_prefix()} (scripts/install-deps.sh, or set OPENSCC_MPICH_PREFIX)"
    if absent:
        if os.environ.get("CI"):
            pytest.fail(absent + " under CI")
        pytest.skip(absent)
    so = build.dir / "lib" / f"openscc-fi-{PROVIDER_FLAVOUR[mpi]}" / "libopenscc-fi.so"
    if not so.exists():
        message = f"this build has no provider {so} (reconfigure it after scripts/install-deps.sh)"
        if deps_installed() or os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(params=["openmpi", "mpich"])
def mpi(request, build) -> str:
    require(build, request.param)
    return request.param


def name(rank: int) -> str:
    return f"rank {rank} (UE {rank} on core {CORES[rank]})"


def unique_copy(program: Path, scratch: Path) -> Path:
    """The program under a name no other process has, to look for survivors by."""
    dst = Path(scratch) / f"mpiprog-{uuid.uuid4().hex[:12]}"
    shutil.copy2(program, dst)
    return dst


def job_processes(marker: str) -> list[str]:
    """Processes whose command line or environment holds marker (the program's unique name, or the
    job's segment name that the launcher, its daemons, the wrappers and the ranks inherit)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            data = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            comm = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if marker.encode() in data:
            found.append(f"{entry.name} {comm}")
    return found


def assert_nothing_left(marker: str, launcher_pid: int | None = None) -> None:
    assert job_processes(marker) == [], job_processes(marker)
    if launcher_pid is not None:
        assert job_processes(f"OPENSCC_SHM_NAME=/openscc-{lib.UID}-{launcher_pid}-") == []
        assert lib.segments_of(launcher_pid) == []


def mpi_program(mpi: str, name: str, scratch, source: Path | None = None) -> Path:
    """tests/mpi/NAME.c (or source) built with the MPI library's own mpicc (as a user builds an MPI program)."""
    mpicc = shutil.which("mpicc.openmpi") if mpi == "openmpi" else str(mpich_prefix() / "bin" / "mpicc")
    if not mpicc or not os.access(mpicc, os.X_OK):
        pytest.skip(f"no mpicc for {mpi}")
    out = Path(scratch) / f"{name}-{mpi}-{uuid.uuid4().hex[:8]}"
    res = lib.run([mpicc, "-O2", source or lib.REPO / "tests" / "mpi" / f"{name}.c", "-o", out])
    assert res.rc == 0, res
    return out


def run_mpi(build, mpi, *args, env=None):
    return rccerun(build, "--mpi", mpi, *args, env=env)


def orphaned_mpich_segments(since: float) -> list[str]:
    """MPICH's per-rank segments in /dev/shm created since `since` that no process has open or mapped."""
    new = [e for e in lib.SHM_DIR.glob("mpich_*") if e.name.startswith(("mpich_shm_", "mpich_vci_"))
           and e.stat().st_ctime >= since - 1]
    if not new:
        return []
    used = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            used.update(os.readlink(fd) for fd in (proc / "fd").iterdir())
            used.update(ln.split()[-1] for ln in (proc / "maps").read_text().splitlines() if "/dev/shm/" in ln)
        except OSError:
            continue
    return [e.name for e in new if str(e) not in used]


class PrivateTmp:
    """TMPDIR of a job, pointing at an empty directory: Open MPI and PMIx leave their session files in
    $TMPDIR when killed, so after the job it must still be empty; and no MPICH segment of the job
    may remain in /dev/shm."""

    def __init__(self, scratch):
        self.dir = Path(scratch) / f"tmp-{uuid.uuid4().hex[:8]}"
        self.dir.mkdir()
        self.since = time.time()

    def env(self, build, **extra) -> dict:
        env = lib.base_env(build, TMPDIR=str(self.dir), **extra)
        if build.asan:
            env.setdefault("ASAN_OPTIONS", "handle_segv=0:detect_leaks=1")
        return env

    def assert_clean(self, mpi: str) -> None:
        assert sorted(p.name for p in self.dir.iterdir()) == [], "the MPI launcher left files in $TMPDIR"
        if mpi == "mpich":
            assert orphaned_mpich_segments(self.since) == []


@pytest.mark.parametrize("nue", [2, 8])
def test_rcce_program_data_intact(build, mpi, nue):
    """An RCCE program runs under the MPI launcher: each rank is its UE, messages arrive intact
    (pingpong checks every byte, up to 1 MiB: the single-copy path between ranks)."""
    res = run_mpi(build, mpi, "-nue", nue, build.app("pingpong"), 1 << 20, 2)
    assert res.rc == lib.RC_OK, res
    assert "pingpong: OK" in res.out and res.err_lines == [], res
    res = run_mpi(build, mpi, "-nue", nue, build.app("hello"))
    assert res.rc == lib.RC_OK, res
    assert f"hello: sum of (ue+1) over {nue} UEs = {nue * (nue + 1) // 2}" in res.out, res
    assert sorted(ln for ln in res.out.splitlines() if ln.startswith("Hello from")) == sorted(
        f"Hello from UE {u} of {nue}" for u in range(nue)), res


def test_job_dir_names_the_mpi_library(build, mpi, scratch):
    """summary.json's job section records --mpi and the channel (option table rows)."""
    job = Path(scratch) / "job"
    res = run_mpi(build, mpi, "-nue", 2, "--trace", "counters", "--mpi-channel", "rckmpi-original", "--job-dir", job,
                  build.app("hello"))
    assert res.rc == lib.RC_OK, res
    summary = lib.check_summary(job / "summary.json")["job"]
    assert (summary["mpi"], summary["mpi_channel"]) == (mpi, "rckmpi-original"), summary


def test_rcce_job_has_no_mpi_keys(build, scratch):
    job = Path(scratch) / "job"
    res = rccerun(build, "-nue", 1, "--trace", "counters", "--job-dir", job, build.app("hello"))
    assert res.rc == lib.RC_OK, res
    summary = lib.check_summary(job / "summary.json")["job"]
    assert "mpi" not in summary and "mpi_channel" not in summary, summary


def test_crash_names_rank_ue_and_core(build, mpi, compile_program, scratch):
    prog = unique_copy(compile_program(build, "crash"), scratch)
    env = lib.base_env(build, ASAN_OPTIONS="handle_segv=0:detect_leaks=1") if build.asan else None
    res = run_mpi(build, mpi, *CORES_OPT, "-nue", 4, prog, "segv", env=env)
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(1)} crashed: killed by signal 11 (Segmentation fault)" in res.err_lines, res
    assert_nothing_left(prog.name)


def test_first_failure_is_the_one_reported(build, mpi, compile_program, scratch):
    """Repeated: rank 1 crashes, every other rank exits with status 4 right after (and the launcher
    stops what is left), so several failures are recorded between two of rccerun's ticks: only the
    first, the crash, is reported."""
    prog = unique_copy(compile_program(build, "crash"), scratch)
    env = lib.base_env(build, ASAN_OPTIONS="handle_segv=0:detect_leaks=1") if build.asan else None
    for _ in range(3):
        res = run_mpi(build, mpi, "-nue", 8, prog, "segv_race", env=env)
        assert res.rc == lib.RC_UE_FAILED, res
        failures = [ln for ln in res.err_lines if ln.startswith("rccerun: rank")]
        assert failures == ["rccerun: rank 1 (UE 1 on core 1) crashed: killed by signal 11 (Segmentation fault)"], res
        # written before the crash: rccerun let the launcher relay them before stopping it
        assert sorted(ln for ln in res.err_lines if ln.endswith("to crash")) == sorted(
            f"crash: UE {u} waits for UE 1 to crash" for u in range(8) if u != 1), res
    assert_nothing_left(prog.name)


def test_mpi_program_crash(build, mpi, scratch):
    """An MPI program's rank dies of SIGSEGV while the others wait in MPI_Barrier."""
    prog = mpi_program(mpi, "crash", scratch)
    tmp = PrivateTmp(scratch)
    res = run_mpi(build, mpi, *CORES_OPT, "-nue", 4, prog, 2, env=tmp.env(build))
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(2)} crashed: killed by signal 11 (Segmentation fault)" in res.err_lines, res
    # the rank's own last words, relayed by the launcher before rccerun stops it
    assert "crash: rank 2 writes through a null pointer" in res.err_lines, res
    assert_nothing_left(prog.name)
    tmp.assert_clean(mpi)


def test_mpi_program_deadlock(build, mpi, scratch):
    """Every rank receives and nobody sends: each is reported waiting in MPI."""
    prog = mpi_program(mpi, "deadlock", scratch)
    tmp = PrivateTmp(scratch)
    res = run_mpi(build, mpi, *CORES_OPT, "-nue", 4, prog, env=tmp.env(build))
    assert res.rc == lib.RC_DEADLOCK, res
    lines = res.err_lines
    head = lines.index("rccerun: deadlock: every running UE is blocked in the runtime and none can proceed")
    assert lines[head + 1:head + 5] == [f"  {name(r)}: waiting in MPI for a packet or a free EWS" for r in range(4)], res
    assert_nothing_left(prog.name)
    tmp.assert_clean(mpi)


def test_exit_status_names_the_rank(build, mpi, compile_program, scratch):
    prog = unique_copy(compile_program(build, "crash"), scratch)
    res = run_mpi(build, mpi, *CORES_OPT, "-nue", 4, prog, "exit_status")
    assert res.rc == lib.RC_UE_FAILED, res
    assert f"rccerun: {name(2)} exited with status 3" in res.err_lines, res
    assert_nothing_left(prog.name)


def test_deadlock_report(build, mpi, compile_program, scratch):
    prog = unique_copy(compile_program(build, "crash"), scratch)
    res = run_mpi(build, mpi, *CORES_OPT, "-nue", 4, prog, "deadlock")
    assert res.rc == lib.RC_DEADLOCK, res
    lines = res.err_lines
    head = lines.index("rccerun: deadlock: every running UE is blocked in the runtime and none can proceed")
    assert lines[head + 1:head + 3] == [
        f"  {name(0)}: blocked in RCCE_recv, waiting for data from {name(1)}",
        f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}"], res
    assert_nothing_left(prog.name)


def test_timeout(build, mpi, compile_program, scratch):
    """5 s: long enough for a slow launcher start to bring every rank to its wait."""
    prog = unique_copy(compile_program(build, "crash"), scratch)
    tmp = PrivateTmp(scratch)
    res = run_mpi(build, mpi, *CORES_OPT, "--timeout", 5, "-nue", 4, prog, "hang", env=tmp.env(build))
    assert res.rc == lib.RC_TIMEOUT, res
    lines = res.err_lines
    head = lines.index("rccerun: timeout: the job ran longer than 5 s")
    assert lines[head + 1] == f"  {name(0)}: running (not blocked in the runtime)", res
    assert lines[head + 2] == f"  {name(1)}: blocked in RCCE_recv, waiting for data from {name(0)}", res
    assert_nothing_left(prog.name)
    tmp.assert_clean(mpi)


def test_sigterm_stops_everything(build, mpi, compile_program, scratch):
    """SIGTERM to rccerun mid-job: launcher, its daemons, wrappers and ranks all end; the segment goes."""
    prog = unique_copy(compile_program(build, "crash"), scratch)
    job = Job(build, "--mpi", mpi, "-nue", 4, prog, "sleep_forever", cwd=Path(scratch))
    job.wait_ready(4)
    assert any("openscc-rank" in p for p in job_processes(prog.name)), job_processes(prog.name)
    os.kill(job.pid, signal.SIGTERM)
    res = job.wait()
    assert res.rc == 128 + signal.SIGTERM, res
    assert "rccerun: interrupted by Terminated; stopping 4 UE(s)" in res.err, res
    assert_nothing_left(prog.name, job.pid)


def test_kill_9_of_rccerun(build, mpi, compile_program, scratch):
    """kill -9 of rccerun: the launcher dies with it (PR_SET_PDEATHSIG), the wrappers with the launcher or its
    proxy, the programs with their wrappers; the segment stays until the next rccerun removes it as stale."""
    res = rccerun(build, "-nue", 1, build.app("hello"))  # a clean slate: removes stale segments of old jobs
    assert res.rc == lib.RC_OK, res
    prog = unique_copy(compile_program(build, "crash"), scratch)
    tmp = PrivateTmp(scratch)
    job = Job(build, "--mpi", mpi, "-nue", 3, prog, "sleep_forever", cwd=Path(scratch), env=tmp.env(build))
    job.wait_ready(3)
    segs = lib.segments_of(job.pid)
    assert len(segs) == 1, job
    os.kill(job.pid, signal.SIGKILL)
    assert job.proc.wait(timeout=30) == -signal.SIGKILL
    lib.wait_until(lambda: job_processes(prog.name) == [], 30, f"the ranks of the killed rccerun to die: {job}")
    assert job_processes(f"OPENSCC_SHM_NAME=/{segs[0]}") == []
    assert [p.name for p in tmp.dir.iterdir()][0].startswith(f"openscc-mpi-{lib.UID}-{job.pid}-"), job
    res = rccerun(build, "-nue", 1, build.app("hello"), env=tmp.env(build))
    assert "rccerun: removed 1 stale segment(s) left by killed jobs" in res.err.splitlines(), res
    assert not (lib.SHM_DIR / segs[0]).exists(), res
    assert list(tmp.dir.iterdir()) == [], "the killed job's private TMPDIR is removed by the next rccerun"


def test_program_that_never_attaches(build, mpi):
    """No silent fallback: a rank that ends without attaching to the job fails it."""
    res = run_mpi(build, mpi, "-nue", 2, "/bin/true")
    assert res.rc == lib.RC_UE_FAILED, res
    assert ("rccerun: rank 0 never attached to the emulated SCC (the MPI library did not use the openscc provider)"
            in res.err_lines or
            "rccerun: rank 1 never attached to the emulated SCC (the MPI library did not use the openscc provider)"
            in res.err_lines), res


@pytest.mark.parametrize("args, message", [
    (("--mpi", "bogus"), "rccerun: --mpi takes openmpi or mpich, got 'bogus'"),
    (("--mpi-channel", "rckmpi"), "rccerun: --mpi-channel applies to MPI jobs only: give --mpi openmpi or --mpi mpich too"),
    (("--mpi", "openmpi", "--mpi-channel", "mpich"),
     "rccerun: --mpi-channel takes rckmpi, rckmpi-original, sccmpich or sccmpich-normal, got 'mpich'"),
])
def test_option_errors(build, args, message):
    res = rccerun(build, *args, "-nue", 2, build.app("hello"))
    assert res.rc == lib.RC_USAGE and res.err == message + "\n(see rccerun --help)\n", res


def test_missing_mpich_prefix(build, scratch):
    missing = Path(scratch) / "no-mpich"
    res = rccerun(build, "--mpi", "mpich", "-nue", 2, build.app("hello"),
                  env=lib.base_env(build, OPENSCC_MPICH_PREFIX=str(missing)))
    assert res.rc == RC_SETUP, res
    assert res.err_lines == [f"rccerun: --mpi mpich: OPENSCC_MPICH_PREFIX is '{missing}', which has no executable "
                             "bin/mpiexec"], res


def test_missing_open_mpi(build, scratch):
    """Without mpirun.openmpi or mpirun on PATH: a setup error before anything starts."""
    empty = Path(scratch) / "empty-path"
    empty.mkdir()
    res = rccerun(build, "--mpi", "openmpi", "-nue", 2, build.app("hello"),
                  env=lib.base_env(build, PATH=str(empty)))
    assert res.rc == RC_SETUP, res
    assert res.err_lines == ["rccerun: --mpi openmpi needs Open MPI's launcher, but neither mpirun.openmpi nor "
                             "mpirun is on PATH (install openmpi-bin: scripts/install-deps.sh)"], res


def test_missing_provider_and_wrapper(build, scratch):
    """rccerun finds the provider and openscc-rank next to itself: a copy elsewhere lacks both."""
    require(build, "openmpi")
    bindir = Path(scratch) / "bin"
    bindir.mkdir()
    shutil.copy2(build.rccerun, bindir / "rccerun")
    res = lib.run([bindir / "rccerun", "--mpi", "openmpi", "-nue", 2, build.app("hello")], env=lib.base_env(build))
    assert res.rc == RC_SETUP, res
    assert res.err_lines == [f"rccerun: --mpi needs OpenSCC's libfabric provider {bindir}/../lib/openscc-fi-1/"
                             "libopenscc-fi.so: No such file or directory"], res
    provider = Path(scratch) / "lib" / "openscc-fi-1"
    provider.mkdir(parents=True)
    shutil.copy2(build.dir / "lib" / "openscc-fi-1" / "libopenscc-fi.so", provider)
    res = lib.run([bindir / "rccerun", "--mpi", "openmpi", "-nue", 2, build.app("hello")], env=lib.base_env(build))
    assert res.rc == RC_SETUP, res
    assert res.err_lines == [f"rccerun: --mpi needs the rank wrapper {bindir}/openscc-rank (built and installed with "
                             "rccerun)"], res


@pytest.mark.parametrize("env, message", [
    ({}, "openscc-rank: no MPI rank in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK): openscc-rank "
         "is started by the MPI launcher of rccerun --mpi"),
    ({"PMI_RANK": "x1"}, "openscc-rank: PMI_RANK must be a rank from 0 to 1023, got 'x1'"),
    ({"OMPI_COMM_WORLD_RANK": "0"}, "openscc-rank: OPENSCC_SHM_NAME is not set: openscc-rank runs under rccerun --mpi"),
    ({"PMIX_RANK": "0", "OPENSCC_SHM_NAME": "/openscc-none"},
     "openscc-rank: cannot open the job segment /openscc-none: No such file or directory"),
])
def test_wrapper_checks_its_environment(build, env, message):
    base = lib.base_env(build, **env)
    for var in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "OPENSCC_SHM_NAME"):
        if var not in env:
            base.pop(var, None)
    res = lib.run([build.dir / "bin" / "openscc-rank", "/bin/true"], env=base)
    assert res.rc == 127 and res.err == message + "\n", res


def fake_mpich(scratch: Path, body: str) -> dict:
    """An MPICH prefix whose bin/mpiexec is a script: `mpiexec -n N openscc-rank PROGRAM ARGS`."""
    prefix = Path(scratch) / "fake-mpich"
    (prefix / "bin").mkdir(parents=True)
    script = prefix / "bin" / "mpiexec"
    script.write_text("#!/bin/sh\nn=$2; shift 2\n" + body)
    script.chmod(0o755)
    return {"OPENSCC_MPICH_PREFIX": str(prefix)}


def require_provider(build) -> None:
    so = build.dir / "lib" / "openscc-fi-2" / "libopenscc-fi.so"
    if not so.exists():
        pytest.skip(f"this build has no provider {so}")


def test_rank_beyond_the_job(build, scratch):
    """A launcher starting more ranks than -nue: the wrapper names both; rccerun reports the launcher's failure."""
    require_provider(build)
    env = lib.base_env(build, **fake_mpich(scratch, 'PMI_RANK=5 exec "$@"\n'))
    res = rccerun(build, "--mpi", "mpich", "-nue", 2, build.app("hello"), env=env)
    assert res.rc == lib.RC_UE_FAILED, res
    assert res.err_lines == [
        "openscc-rank: rank 5 does not exist in this job of 2 UEs (rccerun -nue 2): the MPI launcher started more ranks",
        "rccerun: mpiexec exited with status 127"], res


def test_daemons_left_by_the_launcher_are_stopped(build, scratch):
    """A launcher that leaves a detached daemon (own session, parent gone) and exits non-zero: the subreaper gets
    the daemon back and kills it; nothing survives rccerun."""
    require_provider(build)
    marker = f"daemon-{uuid.uuid4().hex[:12]}"
    started = Path(scratch) / "daemon-started"
    daemon = Path(scratch) / f"{marker}.sh"
    daemon.write_text(f"touch '{started}'\nwhile :; do sleep 1; done\n")
    body = (f"setsid sh '{daemon}' </dev/null >/dev/null 2>&1 &\n"
            f"while [ ! -e '{started}' ]; do sleep 0.01; done\nexit 7\n")
    job = Job(build, "--mpi", "mpich", "-nue", 2, build.app("hello"), cwd=Path(scratch),
              env=lib.base_env(build, **fake_mpich(scratch, body)))
    res = job.wait()
    assert res.rc == lib.RC_UE_FAILED and "rccerun: mpiexec exited with status 7" in res.err_lines, res
    assert started.exists(), res
    assert_nothing_left(marker, job.pid)


def test_summary_has_channel_statistics(build, mpi, scratch):
    """summary.json's MPI statistics per UE (the mpi.ue region): a ping-pong of 20 x 64 KiB puts at
    least its payload through rank 0's channel.  A job that succeeds leaves nothing behind either."""
    src = lib.REPO / "bench" / "mpi" / "mpi_bench.c"
    prog = mpi_program(mpi, "mpi_bench", scratch, source=src)
    tmp = PrivateTmp(scratch)
    job = Path(scratch) / "job"
    res = run_mpi(build, mpi, "-nue", 2, "--trace", "counters", "--job-dir", job, prog, "latency", 65536, 20,
                  env=tmp.env(build))
    assert res.rc == lib.RC_OK, res
    assert "mpi_bench test=latency size=65536 ranks=2" in res.out, res
    ues = lib.check_summary(job / "summary.json")["ues"]
    assert ues[0]["mpi"]["bytes_sent"] >= 65536 * 20 and ues[1]["mpi"]["bytes_recv"] >= 65536 * 20, ues
    assert ues[0]["mpi"]["packets_sent"] > 0, ues
    tmp.assert_clean(mpi)


def fake_open_mpi(scratch: Path, body: str) -> dict:
    """A PATH whose mpirun.openmpi is a script (rccerun takes the first on PATH)."""
    bindir = Path(scratch) / "fake-openmpi"
    bindir.mkdir()
    script = bindir / "mpirun.openmpi"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


@pytest.mark.parametrize("user_level, level", [(None, "serialized"), ("multiple", "multiple")])
def test_open_mpi_environment(build, scratch, user_level, level):
    """What the launcher passes to the ranks: mpi4py asks Open MPI for MPI_THREAD_SERIALIZED unless the user chose
    a level; the wrapper reads Open MPI's rank variable; the launcher works in a private TMPDIR, gone afterwards."""
    require(build, "openmpi")
    extra = fake_open_mpi(scratch, 'echo "level=$MPI4PY_RC_THREAD_LEVEL rankvar=$OPENSCC_RANK_VAR tmp=$TMPDIR '
                                   'session=$OMPI_MCA_orte_tmpdir_base pmix=$PMIX_SERVER_TMPDIR"\n')
    if user_level:
        extra["MPI4PY_RC_THREAD_LEVEL"] = user_level
    tmp = PrivateTmp(scratch)
    res = rccerun(build, "--mpi", "openmpi", "-nue", 1, build.app("hello"), env=tmp.env(build, **extra))
    assert res.rc == lib.RC_UE_FAILED, res  # the fake launcher started no rank
    fields = dict(f.split("=", 1) for f in res.out.split())
    assert (fields["level"], fields["rankvar"]) == (level, "OMPI_COMM_WORLD_RANK"), res
    private = Path(fields["tmp"])
    assert private.parent == tmp.dir and private.name.startswith(f"openscc-mpi-{lib.UID}-"), res
    assert fields["session"] == fields["pmix"] == str(private), res
    tmp.assert_clean("openmpi")


@pytest.mark.parametrize("case", ["oversubscribed", "fits", "model", "user"])
def test_open_mpi_barrier_on_an_oversubscribed_host(build, scratch, case):
    """Natively with more UEs than CPUs, Open MPI gets the linear barrier (each rank woken once, docs/mpi.md
    "Collectives on an oversubscribed host"); not when the UEs fit, not in model mode (the SCC's times), and a
    user's own coll tuned setting wins."""
    require(build, "openmpi")
    extra = fake_open_mpi(scratch, 'echo "rules=${OMPI_MCA_coll_tuned_use_dynamic_rules-unset} '
                                   'barrier=${OMPI_MCA_coll_tuned_barrier_algorithm-unset}"\n')
    cpus = len(os.sched_getaffinity(0))
    nue = cpus if case == "fits" else cpus + 1
    options = ["--model", "scc"] if case == "model" else []
    if case == "user":
        extra["OMPI_MCA_coll_tuned_barrier_algorithm"] = "3"
    tmp = PrivateTmp(scratch)
    res = rccerun(build, "--mpi", "openmpi", "-nue", nue, *options, build.app("hello"), env=tmp.env(build, **extra))
    assert res.rc == lib.RC_UE_FAILED, res  # the fake launcher started no rank
    fields = dict(f.split("=", 1) for f in res.out.split())
    expected = {"oversubscribed": ("1", "1"), "fits": ("unset", "unset"), "model": ("unset", "unset"),
                "user": ("unset", "3")}[case]
    assert (fields["rules"], fields["barrier"]) == expected, res
    tmp.assert_clean("openmpi")


def test_wrapper_reads_its_launchers_variable(build, scratch):
    """Another launcher's rank variable (rccerun itself run by an mpirun) does not mislead the wrapper: it reads
    the variable rccerun names for its launcher (PMI_RANK for hydra)."""
    require_provider(build)
    env = lib.base_env(build, **fake_mpich(scratch, 'OMPI_COMM_WORLD_RANK=5 PMI_RANK=0 exec "$@"\n'))
    res = rccerun(build, "--mpi", "mpich", "-nue", 1, build.app("hello"), env=env)
    assert res.rc == lib.RC_OK, res
    assert "Hello from UE 0 of 1" in res.out, res
    base = lib.base_env(build, OPENSCC_RANK_VAR="PMI_RANK", OMPI_COMM_WORLD_RANK="0")
    base.pop("PMI_RANK", None)
    res = lib.run([build.dir / "bin" / "openscc-rank", "/bin/true"], env=base)
    assert res.rc == 127 and res.err == "openscc-rank: OPENSCC_RANK_VAR names PMI_RANK, which the MPI launcher did " \
                                        "not set\n", res


def test_rank_started_twice(build, scratch):
    """A launcher starting rank 0 twice: the second wrapper finds the rank's record claimed."""
    require_provider(build)
    env = lib.base_env(build, **fake_mpich(scratch, 'PMI_RANK=0 "$@"; PMI_RANK=0 exec "$@"\n'))
    res = rccerun(build, "--mpi", "mpich", "-nue", 1, build.app("hello"), env=env)
    assert res.rc == lib.RC_UE_FAILED, res
    assert res.err_lines == ["openscc-rank: rank 0 started twice", "rccerun: mpiexec exited with status 127"], res


@pytest.mark.parametrize("sig", [signal.SIGUSR1, signal.SIGTERM])
def test_wrapper_forwards_signals(build, compile_program, scratch, sig):
    """A signal the launcher sends a rank (mpirun forwards SIGUSR1/2, stops ranks with SIGTERM) reaches the
    program through its wrapper, which records how the program ended."""
    require_provider(build)
    prog = unique_copy(compile_program(build, "crash"), scratch)
    body = ('PMI_RANK=0 "$@" & w=$!\n'
            'while [ -z "$(cat /proc/$w/task/$w/children 2>/dev/null)" ]; do sleep 0.01; done\n'
            f'sleep 0.2; kill -{int(sig)} $w; wait $w\n')
    res = rccerun(build, "--mpi", "mpich", "-nue", 1, prog, "sleep_forever",
                  env=lib.base_env(build, **fake_mpich(scratch, body)))
    assert res.rc == lib.RC_UE_FAILED, res
    assert (f"rccerun: rank 0 (UE 0 on core 0) crashed: killed by signal {int(sig)} ({signal.strsignal(sig)})"
            in res.err_lines), res
    assert_nothing_left(prog.name)

"""Helpers shared by the OpenSCC integration tests (stdlib only).

Everything a test starts lives under one unique session directory
(SESSION_DIR, e.g. /tmp/openscc-it-1234-abcd/): the compiled test programs,
copies of the example apps, hostfiles, install prefixes.  So
`pgrep -f SESSION_DIR` finds exactly the processes (rccerun and its UEs) this
test session started, whatever else runs on the machine.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = REPO / "tests" / "programs"
APPS = ("hello", "pingpong", "shift", "share", "stencil", "bcast", "power")
HARD_TIMEOUT = 120.0  # seconds; no test run should come anywhere near it
UID = os.getuid()
SHM_DIR = Path("/dev/shm")
SHM_PREFIX = f"openscc-{UID}-"

# summary.json's JSON Schema, published with the openscc package (docs/monitoring.md).
SUMMARY_SCHEMA = REPO / "python" / "openscc" / "summary.schema.json"


def check_summary(path: Path) -> dict:
    """Loads a job directory's summary.json and checks it against its schema."""
    import jsonschema  # installed by scripts/install-deps.sh

    doc = json.loads(Path(path).read_text())
    jsonschema.validate(doc, json.loads(SUMMARY_SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    return doc


# Exit codes of rccerun (src/launch/supervise.h).
RC_OK, RC_UE_FAILED, RC_USAGE, RC_DEADLOCK, RC_TIMEOUT = 0, 1, 2, 3, 124

SESSION_DIR = Path(tempfile.mkdtemp(prefix=f"openscc-it-{os.getpid()}-"))

# A job whose stale-segment cleanup found leftovers of other (killed) jobs
# says so on stderr; that line is not a failure of the job under test.
_STALE_LINE = re.compile(r"^rccerun: removed \d+ stale segment\(s\) left by killed jobs$")


@dataclasses.dataclass(frozen=True)
class Build:
    """One OpenSCC build directory (build/ or build-asan/)."""

    dir: Path
    asan: bool

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def source(self) -> Path:
        """The source tree this build was configured from (its include/ is rccecc's)."""
        try:
            cache = (self.dir / "CMakeCache.txt").read_text()
            m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.M)
            if m:
                return Path(m.group(1))
        except OSError:
            pass
        return REPO

    @property
    def rccerun(self) -> Path:
        return self.dir / "bin" / "rccerun"

    @property
    def rccecc(self) -> Path:
        return self.dir / "bin" / "rccecc"

    @property
    def work(self) -> Path:
        """This build's directory inside the session directory."""
        return SESSION_DIR / self.name

    def app(self, name: str) -> Path:
        """A private copy of an example app (so pgrep on SESSION_DIR finds its UEs)."""
        dst = self.work / "apps" / name
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            src = self.dir / "apps" / name
            if not src.exists():
                raise FileNotFoundError(f"{src} is missing: build it first (make build / make test-asan-build)")
            shutil.copy2(src, dst)
        return dst


def skip_python_on_asan(build: Build) -> None:
    """An AddressSanitizer librcce.so cannot be loaded into an interpreter built without it (its runtime must
    come first): Python UEs run on the plain build."""
    if build.asan:
        pytest.skip("the Python interpreter is not built with AddressSanitizer")


def skip_without_memory_hooks(build: Build) -> None:
    if build.asan:
        pytest.skip("the AddressSanitizer build's counted programs have no memory hooks (docs/model.md)")


def counted_app(build: Build, name: str) -> Path:
    """An example app built with `rccecc --model-build` (counted computation) into the session directory."""
    dst = build.work / "programs" / f"{name}_counted"
    if not dst.exists():
        dst.parent.mkdir(parents=True, exist_ok=True)
        p = run([str(build.rccecc), "--model-build", "-O2", str(REPO / "apps" / f"{name}.c"), "-o", str(dst)])
        assert p.rc == 0, p
    return dst


def selected_builds() -> list[Build]:
    """Builds from OPENSCC_BUILDS (comma-separated dirs, relative to the repo),
    default "build,build-asan" keeping those that exist."""
    explicit = os.environ.get("OPENSCC_BUILDS")
    names = [n.strip() for n in (explicit or "build,build-asan").split(",") if n.strip()]
    builds = []
    for n in names:
        d = Path(n)
        if not d.is_absolute():
            d = REPO / d
        if not (d / "bin" / "rccerun").exists() or not (d / "bin" / "rccecc").exists():
            if explicit:
                raise RuntimeError(f"OPENSCC_BUILDS names {d}, which holds no bin/rccerun and bin/rccecc")
            continue
        showme = subprocess.run([str(d / "bin" / "rccecc"), "--showme"], capture_output=True, text=True).stdout
        builds.append(Build(d.resolve(), asan="-fsanitize=address" in showme))
    return builds


def base_env(build: Build | None = None, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENSCC_SHM_FD", None)
    env.pop("OPENSCC_UE", None)
    env.pop("OPENSCC_SPIN", None)
    env["LC_ALL"] = "C"
    if build is not None and build.asan:
        # Leak detection stays on; a sanitizer report fails the run.
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.update(extra)
    return env


@dataclasses.dataclass
class Result:
    cmd: list[str]
    rc: int
    out: str
    err: str

    def __str__(self) -> str:
        return (f"command: {' '.join(self.cmd)}\nexit code: {self.rc}\n"
                f"--- stdout ---\n{self.out}--- stderr ---\n{self.err}--------------")

    @property
    def err_lines(self) -> list[str]:
        """stderr without the stale-segment notice of unrelated killed jobs."""
        return [ln for ln in self.err.splitlines() if not _STALE_LINE.match(ln)]


def no_core_dumps() -> None:
    """preexec_fn: crashing test UEs must not litter the disk with cores."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# pids of every process started through run() or Job: the launchers whose
# segments the leftover check is about (other users' jobs are not ours).
LAUNCHED_PIDS: set[int] = set()


def run(cmd, *, timeout: float = HARD_TIMEOUT, env: dict | None = None, cwd=None, stdin=subprocess.DEVNULL) -> Result:
    """Runs cmd (no shell) with a hard timeout, capturing stdout and stderr."""
    cmd = [str(c) for c in cmd]
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", env=env if env is not None else base_env(), cwd=cwd,
                         preexec_fn=no_core_dumps)
    LAUNCHED_PIDS.add(p.pid)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        kill_session_processes()
        raise AssertionError(f"hard timeout: {' '.join(cmd)} still ran after {timeout:g} s\n"
                             f"--- stdout ---\n{out}--- stderr ---\n{err}") from None
    return Result(cmd, p.returncode, out, err)


def rccerun(build: Build, *args, timeout: float = HARD_TIMEOUT, env: dict | None = None, cwd=None,
            stdin=subprocess.DEVNULL) -> Result:
    return run([build.rccerun, *args], timeout=timeout, env=env if env is not None else base_env(build),
               cwd=cwd if cwd is not None else build.work, stdin=stdin)


# ------------------------------------------------------------- processes


def run_python_ues(build: Build, scratch: Path, source: str, nue: int, *opts) -> Result:
    """A Python program (its text) run as nue UEs by rccerun."""
    prog = scratch / "prog.py"
    prog.write_text(source)
    return rccerun(build, "-nue", nue, *opts, sys.executable, prog)


def session_pids() -> list[int]:
    """Processes whose command line contains the session directory (pgrep -f)."""
    p = subprocess.run(["pgrep", "-f", str(SESSION_DIR)], capture_output=True, text=True)
    pids = [int(x) for x in p.stdout.split()]
    return [pid for pid in pids if pid != os.getpid()]


def describe_pids(pids) -> str:
    lines = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            cmd, stat = "(gone)", "?"
        lines.append(f"  pid {pid} [{stat}]: {cmd}")
    return "\n".join(lines)


def kill_session_processes() -> None:
    """SIGKILL, by pid, every process this session started that still runs."""
    for pid in session_pids():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def ue_env(pid: int) -> dict[str, str]:
    """The environment of a process (a UE's OPENSCC_UE tells which UE it is)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(kv.split("=", 1) for kv in raw.decode(errors="replace").split("\0") if "=" in kv)


def ue_pids(launcher_pid: int) -> dict[int, int]:
    """UE number -> pid of the UEs of the rccerun with pid launcher_pid."""
    ues = {}
    for pid in session_pids():
        try:
            ppid = int(Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[1])
            if ppid != launcher_pid:
                continue
            ue = ue_env(pid).get("OPENSCC_UE")
        except (OSError, ValueError, IndexError):
            continue
        if ue is not None:
            ues[int(ue)] = pid
    return ues


def wait_until(cond, timeout: float, what: str, interval: float = 0.05):
    """Polls cond() until it returns something true; fails after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what}")
        time.sleep(interval)


# -------------------------------------------------------------- segments


def shm_segments() -> set[str]:
    try:
        return {n for n in os.listdir(SHM_DIR) if n.startswith(SHM_PREFIX)}
    except FileNotFoundError:
        return set()


def segment_launcher(name: str) -> int:
    """"openscc-<uid>-<launcherpid>-<hex>" -> launcherpid."""
    try:
        return int(name[len(SHM_PREFIX):].split("-")[0])
    except ValueError:
        return -1


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pid_is_ours(pid: int) -> bool:
    try:
        return str(SESSION_DIR) in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def leftover_segments(before: set[str]) -> list[str]:
    """New segments of launchers this session started (whatever other jobs on
    the machine do), or whose launcher still runs one of our programs."""
    left = []
    for name in sorted(shm_segments() - before):
        pid = segment_launcher(name)
        if pid in LAUNCHED_PIDS or pid_is_ours(pid):
            left.append(name)
    return left


def segments_of(launcher_pid: int) -> list[str]:
    return sorted(n for n in shm_segments() if segment_launcher(n) == launcher_pid)


# ----------------------------------------------------------------- apps


def scc_domain(core: int) -> int:
    """Voltage domain of an SCC core: 2x2-tile blocks of the 6x4 mesh, row-major."""
    tile = core // 2
    x, y = tile % 6, tile // 6
    return (y // 2) * 3 + x // 2


class Job:
    """rccerun started in the background, stdout/stderr going to files, for
    tests that signal it or its UEs while it runs."""

    def __init__(self, build: Build, *args, cwd: Path, env: dict | None = None, new_session: bool = False):
        self.cmd = [str(build.rccerun), *map(str, args)]
        self.out_path = cwd / "job.out"
        self.err_path = cwd / "job.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                                         env=env if env is not None else base_env(build),
                                         preexec_fn=no_core_dumps, start_new_session=new_session)
        self.pid = self.proc.pid
        LAUNCHED_PIDS.add(self.pid)

    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_ready(self, nue: int, timeout: float = 60.0) -> None:
        """Waits for the "crash: UE n ready" line of every UE."""
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"rccerun ended early with {self.proc.returncode}\n{self}")
            return self.out().count(" ready\n") >= nue
        wait_until(ready, timeout, f"{nue} UEs to start\n{self}")

    def wait(self, timeout: float = HARD_TIMEOUT) -> Result:
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            kill_session_processes()
            raise AssertionError(f"hard timeout: {' '.join(self.cmd)} still ran after {timeout:g} s\n{self}")
        return Result(self.cmd, rc, self.out(), self.err())

    def __str__(self) -> str:
        return f"command: {' '.join(self.cmd)}\n--- stdout ---\n{self.out()}--- stderr ---\n{self.err()}"

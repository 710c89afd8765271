"""Boards on several hosts (rccerun --hosts, docs/cluster.md "Several hosts"):
hosts are network namespaces of this machine (netns_hosts.py), mpirun starts
one agent per host through tests/hosts/netns_rsh."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

import netns_hosts
import openscc_testlib as lib
from openscc_testlib import rccerun

WHY_NOT = netns_hosts.unavailable()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")

TIMEOUT = 120  # s, for rccerun's whole run over the namespaces


@pytest.fixture(scope="module")
def hosts():
    with netns_hosts.namespaced_hosts(3) as made:
        yield made


def hostfile(scratch, names) -> str:
    path = scratch / "hosts"
    path.write_text("# hosts of the test\n" + "".join(f"{n} slots=1\n" for n in names))
    return str(path)


def on_hosts(build, scratch, hosts, count, *args, env_extra=None, cwd=None):
    names, env = hosts
    full = lib.base_env(build, **env, **(env_extra or {}))
    if build.asan:  # Open MPI's own allocations at exit are not ours to judge; a NULL store stays a SIGSEGV
        full["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0:handle_segv=0"
    return rccerun(build, "--hosts", hostfile(scratch, names[:count]), *args, env=full, timeout=TIMEOUT, cwd=cwd)


def crash_on_two_hosts(build, compile_program, scratch, hosts, mode, cores="0,1,48,49", *opts):
    """tests/programs/crash.c's MODE on 4 UEs, two on each board of two hosts."""
    prog = compile_program(build, "crash")
    return on_hosts(build, scratch, hosts, 2, *opts, "-nue", 4, "--boards", 2, "--cores", cores, prog, mode)


def checksum(out: str) -> str:
    m = re.search(r"checksum (\S+) \(weighted (\S+)\)", out)
    assert m, out
    return m.group(0)


def test_stencil_96_ues_on_two_hosts_as_on_one(build, scratch, hosts):
    app = build.app("stencil")
    one = rccerun(build, "-nue", 96, "--boards", 2, app, 8, 20)
    two = on_hosts(build, scratch, hosts, 2, "-nue", 96, "--boards", 2, app, 8, 20)
    assert one.rc == lib.RC_OK and two.rc == lib.RC_OK, (one, two)
    assert "stencil: OK" in two.out, two
    assert checksum(two.out) == checksum(one.out), (one, two)


def test_shift_96_ues_on_two_hosts(build, scratch, hosts):
    res = on_hosts(build, scratch, hosts, 2, "-nue", 96, "--boards", 2, build.app("shift"), 20, 200)
    assert res.rc == lib.RC_OK, res
    assert "shift: OK" in res.out, res


def test_three_hosts(build, scratch, hosts):
    cores = "0,1,47,48,49,95,96,97,143"
    app = build.app("stencil")
    one = rccerun(build, "-nue", 9, "--boards", 3, "--cores", cores, app, 8, 10)
    three = on_hosts(build, scratch, hosts, 3, "-nue", 9, "--boards", 3, "--cores", cores, app, 8, 10)
    assert three.rc == lib.RC_OK, three
    assert checksum(three.out) == checksum(one.out), (one, three)


EIGHT_UES = ("-nue", 8, "--boards", 2, "--cores", "0,1,2,3,48,49,50,51")


@pytest.mark.parametrize("program,args,opts", [
    ("stress", ("1", "10", "300000"), ()),
    ("stress", ("2", "10", "300000"), ("--scheme", "rplg")),
    ("stress", ("3", "10", "300000"), ("--flags", "tagged")),
    ("stress", ("4", "10", "300000"), ("-DSINGLEBITFLAGS",)),
    ("collectives", ("300",), ()),
    ("ircce_stress", ("1", "10", "100000"), ()),
    ("ircce_ext", ("pipeline",), ()),
    ("ircce_ext", ("mcast",), ()),
    ("rcce2_api", ("variants",), ()),
], ids=lambda v: "-".join(v) if isinstance(v, tuple) else v)
def test_programs_across_hosts_print_what_they_print_on_one(build, compile_program, scratch, hosts, program, args,
                                                           opts):
    """Stress, collectives and iRCCE's and RCCE 2.0's extensions on 8 UEs, four a board: the same output
    (their own checks, checksums and totals) on two hosts as with both boards on one host."""
    flags = tuple(o for o in opts if o.startswith("-D"))
    run_opts = tuple(o for o in opts if not o.startswith("-D"))
    prog = compile_program(build, program, *flags)
    one = rccerun(build, *EIGHT_UES, *run_opts, prog, *args)
    two = on_hosts(build, scratch, hosts, 2, *EIGHT_UES, *run_opts, prog, *args)
    assert one.rc == lib.RC_OK and two.rc == lib.RC_OK, (one, two)
    assert two.out == one.out and two.out, (one, two)


@pytest.mark.parametrize("scheme", ["lprg", "rplg"])
def test_pingpong_across_hosts_keeps_every_byte(build, scratch, hosts, scheme):
    """apps/pingpong checks every byte it receives, 0 B to 4 MiB: large copies cross hosts as spans of log
    records, many times round the log."""
    res = on_hosts(build, scratch, hosts, 2, "-nue", 2, "--boards", 2, "--cores", "0,48", "--scheme", scheme,
                   build.app("pingpong"))
    assert res.rc == lib.RC_OK and "pingpong: OK" in res.out, res
    assert re.search(r"^\s+4194304\s", res.out, re.M), res


TRACE_COUNTS = ("msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv", "flag_writes", "barriers", "events")


def test_trace_across_hosts_as_on_one(build, scratch, hosts):
    """Host 0's agent writes the job directory with every host's UEs' records: the same counts and files as a
    run on one host, each UE marked with its host, and the timeline's arrows (on the hosts' aligned clocks)
    never going back in time."""
    app = build.app("stencil")
    args = ("-nue", 4, "--boards", 2, "--cores", "0,1,48,49", "--trace", "timeline")
    one = rccerun(build, *args, "--job-dir", scratch / "one", app, 8, 5)
    two = on_hosts(build, scratch, hosts, 2, *args, "--job-dir", scratch / "two", app, 8, 5)
    assert one.rc == lib.RC_OK and two.rc == lib.RC_OK, (one, two)
    assert f"rccerun: trace: summary in {scratch / 'two'}/summary.json" in two.err, two
    s1, s2 = (lib.check_summary(scratch / d / "summary.json") for d in ("one", "two"))
    assert s2["job"]["hosts"] == hosts[0][:2] and "hosts" not in s1["job"]
    assert [u["host"] for u in s2["ues"]] == [0, 0, 1, 1]
    assert [{k: u[k] for k in TRACE_COUNTS} for u in s2["ues"]] == [{k: u[k] for k in TRACE_COUNTS} for u in s1["ues"]]
    for name in ("comm_matrix.csv", "message_sizes.csv"):
        assert (scratch / "two" / name).read_text() == (scratch / "one" / name).read_text(), name
    events = json.loads((scratch / "two" / "trace.json").read_text())["traceEvents"]
    sent = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
    received = {e["id"]: e["ts"] for e in events if e["ph"] == "f"}
    assert sent.keys() == received.keys() and len(sent) == sum(u["msgs_sent"] for u in s2["ues"])
    assert all(sent[k] <= received[k] for k in sent), [(k, sent[k], received[k]) for k in sent if sent[k] > received[k]]
    tracks = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert "UE 2 (core 48, board 1, host 1, tile 0,0)" in tracks, tracks


def test_default_job_directory_across_hosts(build, scratch, hosts):
    """The head names and claims runs/<id> in its own directory; host 0's agent writes there under that id."""
    res = on_hosts(build, scratch, hosts, 2, "-nue", 2, "--boards", 2, "--cores", "0,48", "--trace", "counters",
                   build.app("hello"), cwd=scratch)
    assert res.rc == lib.RC_OK, res
    (job,) = (scratch / "runs").iterdir()
    assert lib.check_summary(job / "summary.json")["job"]["id"] == job.name


@pytest.mark.parametrize("flags", [(), ("-DSINGLEBITFLAGS",)], ids=["big", "singlebit"])
def test_gory_flags_put_get_across_hosts(build, compile_program, scratch, hosts, flags):
    prog = compile_program(build, "gory", "-DGORY", *flags)
    res = on_hosts(build, scratch, hosts, 2, "-nue", 4, "--boards", 2, "--cores", "0,1,48,49", prog, 1)
    assert res.rc == lib.RC_OK, res
    assert re.search(r"^gory: OK \(4 UEs", res.out, re.M), res


@pytest.mark.parametrize("count", (2, 3))
def test_locks_across_hosts(build, compile_program, scratch, hosts, count):
    prog = compile_program(build, "mpb_counter", "-DGORY")
    cores = ",".join(f"{48 * b + c}" for b in range(count) for c in (0, 1))
    res = on_hosts(build, scratch, hosts, count, "-nue", 2 * count, "--boards", count, "--cores", cores, prog, 10)
    assert res.rc == lib.RC_OK, res
    assert f"mpb_counter: OK ({2 * count} UEs, {20 * count} increments)" in res.out, res


def test_ircce_any_source_across_hosts(build, compile_program, scratch, hosts):
    prog = compile_program(build, "ircce")
    res = on_hosts(build, scratch, hosts, 2, "-nue", 4, "--boards", 2, "--cores", "0,1,48,49", prog, "anysource", 4)
    assert res.rc == lib.RC_OK, res
    assert res.err_lines == [], res


@pytest.mark.parametrize("mode,ue,where", [("segv", 1, "core 1, board 0, host 0"),
                                           ("exit_status", 2, "core 48, board 1, host 1")])
def test_ue_failure_on_any_host_ends_the_job(build, compile_program, scratch, hosts, mode, ue, where):
    res = crash_on_two_hosts(build, compile_program, scratch, hosts, mode)
    assert res.rc == lib.RC_UE_FAILED, res
    assert re.search(rf"rccerun: UE {ue} \({where}\) (crashed|exited with status 3)", res.err), res
    assert "another host ended the job" in res.err, res


def test_timeout_on_hosts(build, compile_program, scratch, hosts):
    res = crash_on_two_hosts(build, compile_program, scratch, hosts, "hang", "0,1,48,49", "--timeout", 2)
    assert res.rc == lib.RC_TIMEOUT, res
    assert "timeout: the job ran longer than 2 s" in res.err, res


def hang_on_two_hosts(build, compile_program, scratch, hosts, act, job=None, ready_text="ready", ready_count=4):
    """A job on 4 UEs of two hosts (rccerun's options and program `job`; crash.c's hang mode by default); once
    ready_count lines of its output say ready_text, act(rccerun's process, the pids of the job's two agents).
    Returns (rccerun's exit code, its output: stdout and stderr together)."""
    names, env = hosts
    job = job or [compile_program(build, "crash"), "hang"]
    full = lib.base_env(build, **env)
    if build.asan:
        full["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0:handle_segv=0"
    hosts_path = hostfile(scratch, names[:2])
    cmd = [str(build.rccerun), "--hosts", hosts_path, "-nue", 4, "--boards", 2, "--cores", "0,1,48,49", *job]
    p = subprocess.Popen([str(c) for c in cmd], env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        ready = 0
        deadline = time.monotonic() + 60
        while ready < ready_count and time.monotonic() < deadline:
            line = p.stdout.readline()
            ready += ready_text in line
        assert ready == ready_count
        # this job's agents (not mpirun, whose arguments name them): started with this test's hosts file
        agents = subprocess.run(["pgrep", "-f", f"^{build.dir}/bin/openscc-host-agent --hosts {hosts_path}"],
                                capture_output=True, text=True).stdout.split()
        assert len(agents) == 2, agents
        act(p, [int(a) for a in agents])
        p.wait(timeout=60)
    finally:  # the job's processes hold the pipes: stop them all before reading to the end
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        lib.kill_session_processes()
        out, _ = p.communicate(timeout=60)
    return p.returncode, out


def test_losing_a_host_ends_the_job(build, compile_program, scratch, hosts):
    rc, err = hang_on_two_hosts(build, compile_program, scratch, hosts,
                                lambda rccerun, agents: os.kill(agents[-1], signal.SIGKILL))
    assert rc == 128 + signal.SIGKILL, err
    assert "rccerun: a host left the job: its agent ended by signal 9" in err, err


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_losing_a_host_ends_an_mpi_job(build, compile_program, scratch, hosts, mpi):
    """tests/mpi/spin.c: rank 0 loops outside MPI, the others wait in MPI_Barrier; host 1's agent is killed:
    the job ends with the lost-host message, and no rank, launcher daemon or segment (OpenSCC's, MPICH's)
    is left on any host."""
    prog = mpi_program(mpi, scratch, "spin")
    since = time.time()
    rc, out = hang_on_two_hosts(build, compile_program, scratch, hosts,
                                lambda rccerun, agents: os.kill(agents[-1], signal.SIGKILL),
                                job=["--mpi", mpi, prog], ready_text="loops forever", ready_count=1)
    assert rc == 128 + signal.SIGKILL, out
    assert "rccerun: a host left the job: its agent ended by signal 9" in out, out
    deadline = time.monotonic() + 10
    while still_running(prog) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert still_running(prog) == []
    left = [f for f in os.listdir("/dev/shm") if f.startswith(f"openscc-{lib.UID}-") or
            (f.startswith("mpich_shm_") and os.stat(f"/dev/shm/{f}").st_ctime >= since)]
    assert left == [], left


def test_an_interrupt_ends_every_host(build, compile_program, scratch, hosts):
    rc, err = hang_on_two_hosts(build, compile_program, scratch, hosts,
                                lambda rccerun, agents: rccerun.send_signal(signal.SIGINT))
    assert rc == 128 + signal.SIGINT, err
    assert "rccerun: interrupted by Interrupt; mpirun stopped the UEs of every host" in err, err


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def still_running(prog) -> list[int]:
    """The processes running (not zombies) whose command line names prog."""
    return [int(p) for p in lib.run(["pgrep", "-f", str(prog)]).out.split() if running(int(p))]


def test_killing_rccerun_stops_every_host(build, compile_program, scratch, hosts):
    """kill -9 of rccerun itself: mpirun gets SIGTERM (PR_SET_PDEATHSIG), stops every agent, and each
    agent's UEs die with it: nothing of the job keeps running on any host."""
    prog = compile_program(build, "crash")

    def kill_and_watch(rccerun, agents):
        ues = [int(p) for p in lib.run(["pgrep", "-f", f"^{prog} hang"]).out.split()]
        assert len(ues) == 4, ues
        rccerun.kill()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(running(p) for p in agents + ues):
            time.sleep(0.1)
        assert not [p for p in agents + ues if running(p)]

    rc, _ = hang_on_two_hosts(build, compile_program, scratch, hosts, kill_and_watch)
    assert rc == -signal.SIGKILL


def test_only_rccerun_reads_the_hosts_file(build, scratch, hosts):
    """The agents get the host names from rccerun: the hosts file need not exist on the hosts (the rsh agent
    removes it before it starts anything there)."""
    path = scratch / "hosts"  # what on_hosts writes
    res = on_hosts(build, scratch, hosts, 2, "-nue", 2, "--boards", 2, "--cores", "0,48", build.app("hello"),
                   env_extra={"NETNS_RSH_REMOVE": str(path)})
    assert res.rc == lib.RC_OK and "hello: OK" in res.out, res
    assert not path.exists()


def test_a_host_mpirun_cannot_reach_is_reported(build, scratch, hosts):
    names, env = hosts
    path = scratch / "unreachable"
    path.write_text(f"{names[0]}\nno-such-host-of-the-test\n")
    res = rccerun(build, "--hosts", str(path), "-nue", 2, "--boards", 2, "--cores", "0,48", build.app("hello"),
                  env=lib.base_env(build, **env), timeout=TIMEOUT)
    assert res.rc == 4, res  # RCCERUN_SETUP
    assert (f"rccerun: mpirun could not start an agent on every host of {path} (see its message above): check the "
            "host names") in res.err, res


def test_hosts_file_errors(build, scratch, hosts):
    app = build.app("hello")
    names, _ = hosts
    res = rccerun(build, "--hosts", hostfile(scratch, names[:2]), "-nue", 4, app)
    assert res.rc == lib.RC_USAGE, res
    assert "2 hosts for 1 board(s): every host runs at least one board (give --boards 2)" in res.err, res
    res = rccerun(build, "--hosts", hostfile(scratch, names[:2]), "--model", "scc", "-nue", 4, "--boards", 2, app)
    assert res.rc == lib.RC_USAGE, res
    assert "--model does not run across hosts yet" in res.err, res
    res = rccerun(build, "--hosts", str(scratch / "missing"), "-nue", 4, app)
    assert res.rc == lib.RC_USAGE and "--hosts: " in res.err, res
    (scratch / "empty").write_text("# nothing\n")
    res = rccerun(build, "--hosts", str(scratch / "empty"), "-nue", 4, app)
    assert res.rc == lib.RC_USAGE and "names no host" in res.err, res


def test_shared_memory_is_refused_across_hosts(build, compile_program, scratch, hosts):
    prog = compile_program(build, "locks")
    res = on_hosts(build, scratch, hosts, 2, "-nue", 2, "--boards", 2, "--cores", "0,48", prog, 1)
    assert res.rc != lib.RC_OK, res
    assert "off-chip shared memory is not shared between hosts (rccerun --hosts)" in res.err, res


@pytest.mark.parametrize("app,message", [("mailbox_pingpong", "mailbox_init on UE 0: mailboxes do not run across hosts"),
                                         ("svm_table1", "svm_init on UE 0: shared virtual memory does not run across hosts")])
def test_mailboxes_and_svm_are_refused_across_hosts(build, scratch, hosts, app, message):
    res = on_hosts(build, scratch, hosts, 2, "--debug", "-nue", 2, "--boards", 2, "--cores", "0,48", build.app(app))
    assert res.rc != lib.RC_OK, res
    assert message in res.err, res


def test_deadlock_across_hosts(build, compile_program, scratch, hosts):
    # UE 0 (host 0) and UE 1 (host 1) wait for each other; UEs 2 and 3 wait in RCCE_finalize's barrier.
    res = crash_on_two_hosts(build, compile_program, scratch, hosts, "deadlock", "0,48,1,49", "--timeout", 60)
    assert res.rc == lib.RC_DEADLOCK, res
    assert "deadlock: every running UE on every host is blocked in the runtime" in res.err, res
    assert ("UE 0 (core 0, board 0, host 0): blocked in RCCE_recv, waiting for data from UE 1 (core 48, board 1, "
            "host 1)") in res.err, res


# --- MPI across hosts (docs/cluster.md "MPI across hosts") ---------------------------------------------
MPI_CORES = ("--boards", 2, "--cores", "0-3,48-51")  # 8 ranks: 0-3 on host 0, 4-7 on host 1


def mpi_program(mpi, scratch, name):
    from test_mpi_launch import mpi_program as built_with_mpicc
    return built_with_mpicc(mpi, name, scratch)


@pytest.mark.parametrize("mpi,channel", [("openmpi", "rckmpi"), ("openmpi", "rckmpi-original"),
                                         ("openmpi", "sccmpich"), ("mpich", "rckmpi"), ("mpich", "sccmpich-normal")])
def test_mpi_stress_across_hosts(build, scratch, hosts, mpi, channel):
    """tests/mpi/stress.c (point-to-point 0 B..4 MiB with every byte checked, any-source, probe, every
    collective, communicators, datatypes, one-sided) with half its ranks on each host: the library's
    launcher (mpirun, hydra) started by host 0's agent, every byte through the channel over the
    emulated MPBs and the agents' link.  The channel's statistics of every host reach the summary:
    what was sent arrived."""
    prog = mpi_program(mpi, scratch, "stress")
    job = scratch / f"job-{mpi}-{channel}"
    res = on_hosts(build, scratch, hosts, 2, "--mpi", mpi, "--mpi-channel", channel, "-nue", 8, *MPI_CORES,
                   "--trace", "counters", "--job-dir", job, prog)
    assert res.rc == lib.RC_OK, res
    assert "stress: OK (8 ranks, up to 4194304 bytes)" in res.out, res
    ues = json.loads((job / "summary.json").read_text())["ues"]
    assert [u["host"] for u in ues] == [0] * 4 + [1] * 4
    assert all(u["mpi"]["packets_sent"] > 0 and u["mpi"]["packets_recv"] > 0 for u in ues), ues
    assert sum(u["mpi"]["bytes_sent"] for u in ues) == sum(u["mpi"]["bytes_recv"] for u in ues), ues


@pytest.mark.parametrize("mpi,rank,where", [("openmpi", 2, "core 2, board 0, host 0"),
                                            ("openmpi", 5, "core 49, board 1, host 1"),
                                            ("mpich", 5, "core 49, board 1, host 1")])
def test_mpi_rank_crash_on_any_host_ends_the_job(build, scratch, hosts, mpi, rank, where):
    """The crashing rank is named once, by its host's agent; the ranks the launcher stops after it are
    not reported as crashes of their own, nor the launcher's failure; nothing of the job is left on any
    host."""
    prog = mpi_program(mpi, scratch, "crash")
    res = on_hosts(build, scratch, hosts, 2, "--mpi", mpi, "-nue", 8, *MPI_CORES, prog, rank)
    assert res.rc == lib.RC_UE_FAILED, res
    assert [ln for ln in res.err_lines if ln.startswith("rccerun: rank")] == [
        f"rccerun: rank {rank} (UE {rank} on {where}) crashed: killed by signal 11 (Segmentation fault)"], res
    assert not [ln for ln in res.err_lines if "exited with status" in ln], res
    assert f"crash: rank {rank} writes through a null pointer" in res.err_lines, res
    assert still_running(prog) == []
    assert not [s for s in os.listdir("/dev/shm") if s.startswith(f"openscc-{lib.UID}-")]


def test_mpi_deadlock_across_hosts(build, scratch, hosts):
    prog = mpi_program("openmpi", scratch, "deadlock")
    res = on_hosts(build, scratch, hosts, 2, "--mpi", "openmpi", "-nue", 4, "--boards", 2, "--cores", "0,1,48,49",
                   "--timeout", 60, prog)
    assert res.rc == lib.RC_DEADLOCK, res
    # each agent reports its own ranks (the lines name the host; the agents' reports reach mpirun's
    # stderr each in one piece, but the ranks' own lines may come between them)
    for host, ranks in ((0, (0, 1)), (1, (2, 3))):
        assert ("rccerun: deadlock: every running UE on every host is blocked in the runtime and none can proceed "
                f"(host {host}:)") in res.err_lines, res
        for r in ranks:
            core = (0, 1, 48, 49)[r]
            assert (f"  rank {r} (UE {r} on core {core}, board {host}, host {host}): waiting in MPI for a packet or "
                    "a free EWS") in res.err_lines, res


def test_mpi_across_hosts_errors(build, scratch, hosts):
    names, _ = hosts
    app = build.app("hello")
    res = rccerun(build, "--hosts", hostfile(scratch, names[:2]), "--mpi", "openmpi", "--mpi-spawn-ues", 2, "-nue",
                  4, "--boards", 2, app)
    assert res.rc == lib.RC_USAGE and "--mpi-spawn-ues does not run across hosts yet" in res.err, res
    # ranks 0 and 2 on host 0, rank 1 on host 1: mpirun starts a host's ranks as one block
    res = on_hosts(build, scratch, hosts, 2, "--mpi", "openmpi", "-nue", 3, "--boards", 2, "--cores", "0,48,1", app)
    assert res.rc == lib.RC_USAGE, res
    assert ("rccerun: --mpi across hosts starts each host's ranks as one block: rank 1 runs on host 1 "
            f"({names[1]}), rank 2 on host 0 ({names[0]})") in res.err, res


def test_mpi_timeout_across_hosts(build, scratch, hosts):
    """tests/mpi/spin.c: rank 2 (host 1) loops outside MPI for ever; --timeout ends the job on every host."""
    prog = mpi_program("openmpi", scratch, "spin")
    res = on_hosts(build, scratch, hosts, 2, "--mpi", "openmpi", "-nue", 4, "--boards", 2, "--cores", "0,1,48,49",
                   "--timeout", 3, prog, 2)
    assert res.rc == lib.RC_TIMEOUT, res
    assert "timeout: the job ran longer than 3 s" in res.err, res
    assert still_running(prog) == []

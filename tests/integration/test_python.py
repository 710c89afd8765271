"""The Python binding openscc.rcce (docs/python.md): Python programs as UEs under rccerun, natively and in
model mode; messages intact and in order through every call; buffers in place; errors as RCCEError with
RCCE's code; the request structures' layout the same as the C compiler's."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

# Every call of the binding, on 3 UEs; each check writes one line (in one write) that the test compares.
PROGRAM = textwrap.dedent('''
    import array
    import sys

    import openscc.rcce as rcce


    def say(*parts):
        """One line in one write: the UEs share the output."""
        sys.stdout.write(" ".join(map(str, parts)) + "\\n")
        sys.stdout.flush()


    me, n = rcce.ue(), rcce.num_ues()
    assert n == 3
    # send/recv: bytes out, a bytearray in, in order
    if me == 0:
        for i in range(5):
            rcce.send(bytes([i]) * 100, 1)
    elif me == 1:
        got = []
        for i in range(5):
            buf = bytearray(100)
            rcce.recv(buf, 0)
            got.append(buf == bytes([i]) * 100)
        say("ue 1 in order", all(got))
    rcce.barrier()
    # peek: the first bytes of a waiting message, which a later recv still receives
    if me == 2:
        rcce.send(b"peek-me-then-take", 0)
    elif me == 0:
        head = bytearray(7)
        while not rcce.peek(head, 2):
            pass
        whole = bytearray(17)
        rcce.recv(whole, 2)
        say("ue 0 peeked", bytes(head), "took", bytes(whole))
    # iRCCE: any-source receives, request objects
    if me == 0:
        bufs = [bytearray(4), bytearray(4)]
        reqs = [rcce.irecv(b) for b in bufs]
        for r in reqs:
            r.wait()
        say("ue 0 any-source", sorted((r.source, int.from_bytes(b, "little")) for r, b in zip(reqs, bufs)))
    else:
        req = rcce.isend((me * 11).to_bytes(4, "little"), 0)
        req.wait()
    rcce.barrier()  # else UE 0's second any-source receive above could match a message of the next step
    # messages of any length from any source
    if me == 0:
        got = sorted((src, len(m), m == bytes([src]) * len(m)) for m, src in (rcce.recv_any(), rcce.recv_any()))
        say("ue 0 any-length", got)
    else:
        rcce.send(bytes([me]) * (5 if me == 1 else 300), 0)
    # collectives on typed buffers (array: the buffer protocol with an item format)
    data = array.array("d", [float(me)] * 4) if me == 1 else array.array("d", [0.0] * 4)
    rcce.bcast(data, 1)
    total = array.array("d", [0.0] * 4)
    rcce.allreduce(array.array("d", [me + 0.5] * 4), total, "sum")
    biggest = array.array("i", [0])
    rcce.reduce(array.array("i", [me * 7]), biggest, "max", root=2)
    if me == 2:
        say("ue 2 bcast", list(data), "allreduce", list(total), "reduce", list(biggest))
    # a communicator of the even UEs and one of the odd: a barrier and an allreduce in each
    half = rcce.comm_split(lambda ue: ue % 2)
    rcce.barrier(half)
    mine, total = array.array("i", [me]), array.array("i", [0])
    rcce.allreduce(mine, total, "sum", comm=half)
    say(f"ue {me} split size {half.size} rank {half.rank} sum {total[0]}")
    # shared memory: one UE writes, after a barrier the others read
    shared = rcce.shmalloc(64)
    if me == 0:
        shared[:5] = b"SHARE"
    rcce.barrier()
    if me == 1:
        say("ue 1 shared", bytes(shared[:5]))
    # errors carry RCCE's code
    try:
        rcce.send(b"x", 7)
    except rcce.RCCEError as e:
        if me == 0:
            say("ue 0 error", e.call, e.code)
    try:
        rcce.recv(b"read-only", 1)
    except TypeError as e:
        if me == 0:
            say("ue 0 read-only refused")
    t = rcce.wtime()
    say(f"ue {me} wtime positive {t > 0}")
''')

EXPECTED = ["ue 1 in order True", "ue 0 peeked b'peek-me' took b'peek-me-then-take'",
            "ue 0 any-source [(1, 11), (2, 22)]", "ue 0 any-length [(1, 5, True), (2, 300, True)]", "ue 2 bcast [1.0, 1.0, 1.0, 1.0] allreduce [4.5, 4.5, 4.5, 4.5] "
            "reduce [14]", "ue 1 shared b'SHARE'", "ue 0 split size 2 rank 0 sum 2", "ue 1 split size 1 rank 0 sum 1",
            "ue 2 split size 2 rank 1 sum 2", "ue 0 error RCCE_send 1234324", "ue 0 read-only refused",
            "ue 0 wtime positive True", "ue 1 wtime positive True", "ue 2 wtime positive True"]


@pytest.fixture(autouse=True)
def plain_build(build):
    lib.skip_python_on_asan(build)


def run_python(build, scratch, *opts):
    prog = scratch / "every_call.py"
    prog.write_text(PROGRAM)
    return rccerun(build, "-nue", 3, *opts, sys.executable, prog)


def test_every_call_natively(build, scratch):
    res = run_python(build, scratch)
    assert res.rc == lib.RC_OK, res
    assert sorted(res.out.splitlines()) == sorted(EXPECTED), res


def test_every_call_in_model_mode(build, scratch):
    """The interpreter's time is computation measured on the host; messages and results are the same."""
    job = scratch / "job"
    res = run_python(build, scratch, "--model", "scc", "--job-dir", job)
    assert res.rc == lib.RC_OK, res
    assert sorted(res.out.splitlines()) == sorted(EXPECTED), res
    s = lib.check_summary(job / "summary.json")
    assert s["job"]["computation"] == "host-time" and s["chip_totals"]["seconds"] > 0


def test_ring_example(build):
    res = rccerun(build, "-nue", 4, sys.executable, lib.REPO / "apps" / "python" / "ring.py", 20)
    assert res.rc == lib.RC_OK, res
    assert res.out.startswith("ring: OK (4 UEs, 20 rounds, "), res


def test_request_layout_matches_the_headers(build, scratch):
    """The binding declares iRCCE's request structures itself (cffi's ABI mode): their sizes must be C's."""
    src = scratch / "sizes.c"
    src.write_text('#include <stdio.h>\n#include "RCCE.h"\n#include "iRCCE.h"\nint main(void) {\n'
                   '  printf("%zu %zu %zu\\n", sizeof(iRCCE_SEND_REQUEST), sizeof(iRCCE_RECV_REQUEST), '
                   'sizeof(RCCE_COMM));\n  return 0;\n}\n')
    exe = scratch / "sizes"
    subprocess.run(["cc", f"-I{lib.REPO / 'include'}", str(src), "-o", str(exe)], check=True)
    c_sizes = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    sys.path.insert(0, str(lib.REPO / "python"))
    try:
        from openscc import rcce
    finally:
        sys.path.pop(0)
    ffi_sizes = [str(rcce._ffi.sizeof(t)) for t in ("iRCCE_SEND_REQUEST", "iRCCE_RECV_REQUEST", "RCCE_COMM")]
    assert ffi_sizes == c_sizes


def test_outside_rccerun_the_binding_says_how_to_run(build, scratch):
    env = {k: v for k, v in lib.base_env(build).items() if not k.startswith("OPENSCC_")}
    env["PYTHONPATH"] = str(lib.REPO / "python")
    p = subprocess.run([sys.executable, "-c", "import openscc.rcce as r; r.ue()"], capture_output=True, text=True,
                       env=env, timeout=lib.HARD_TIMEOUT)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == (
        "RuntimeError: openscc.rcce: OPENSCC_LIBRCCE is not set: run the program under rccerun (rccerun -nue N "
        "python3 prog.py), which names its librcce.so there")


def test_an_exception_ends_the_job_with_its_ue(build, scratch):
    """An uncaught exception exits the UE with status 1 (not into RCCE_finalize's barrier), which ends the
    job with the usual report while UE 0 waits for a message."""
    res = lib.run_python_ues(build, scratch, "import openscc.rcce as rcce\n"
                             "if rcce.ue() == 1:\n    raise ValueError('UE 1 gives up')\n"
                             "rcce.recv(bytearray(4), 1)\n", 2)
    assert res.rc == lib.RC_UE_FAILED, res
    assert "ValueError: UE 1 gives up" in res.err, res
    assert "rccerun: UE 1 (core 1) exited with status 1" in res.err, res


REMOTE = textwrap.dedent('''
    import sys

    import openscc.rcce as rcce
    from openscc import remote


    class Counter:
        def __init__(self):
            self.value = 0

        def add(self, n):
            self.value += n
            return self.value

        def fail(self):
            raise ValueError("no such luck")


    class Via:
        """Its method calls another server: UE 0's counter."""

        def twice(self, n):
            remote.proxy(0, "counter").add(n)
            return 2 * n


    me = rcce.ue()
    if me == 0:
        counter = Counter()
        served = remote.serve({"counter": counter}, callers=3)
        sys.stdout.write(f"ue 0 counter {counter.value} served {served}\\n")
    elif me == 1:
        c = remote.proxy(0, "counter")
        for _ in range(10):
            c.add(1)
        served = remote.serve({"via": Via()}, callers=2)
        remote.stop(0)
        sys.stdout.write(f"ue 1 served {served}\\n")
    else:
        c = remote.proxy(0, "counter")
        for _ in range(10):
            c.add(1)
        got = remote.proxy(1, "via").twice(5)
        try:
            c.fail()
        except ValueError as e:
            raised = repr(e)
        remote.stop(1)
        remote.stop(0)
        sys.stdout.write(f"ue {me} via {got} raised {raised}\\n")
''')


def test_distributed_objects(build, scratch):
    """openscc.remote (docs/python.md "Distributed objects"): three UEs call one server's object at once, a
    server's method calls another server, an exception travels back to its caller, every result arrives."""
    prog = scratch / "remote_objects.py"
    prog.write_text(REMOTE)
    res = rccerun(build, "-nue", 4, sys.executable, prog)
    assert res.rc == lib.RC_OK, res
    assert sorted(res.out.splitlines()) == [
        "ue 0 counter 40 served 34", "ue 1 served 2", "ue 2 via 10 raised ValueError('no such luck')",
        "ue 3 via 10 raised ValueError('no such luck')"], res


REMOTE_MISUSE = textwrap.dedent('''
    import sys

    import openscc.rcce as rcce
    from openscc import remote


    class Box:
        def get(self):
            return 42

        def unpicklable(self):
            return lambda: 0


    def outcome(call):
        try:
            return repr(call())
        except Exception as e:
            return f"{type(e).__name__}: {e}"


    me = rcce.ue()
    if me == 0:
        served = remote.serve({"box": Box()})  # until every other UE stopped
        sys.stdout.write(f"served {served}\\n")
    elif me == 1:
        for what, call in [("new form", lambda: remote.proxy("box", ue=0).get()),
                           ("old form", lambda: remote.proxy(0, "box").get()),
                           ("no such object", lambda: remote.proxy("bag", ue=0).get()),
                           ("unpicklable result", lambda: remote.proxy("box", ue=0).unpicklable()),
                           ("no such method", lambda: remote.proxy("box", ue=0).put()),
                           ("my own UE", lambda: remote.proxy("box", ue=1)),
                           ("a UE beyond the job", lambda: remote.proxy("box", ue=3)),
                           ("stop myself", lambda: remote.stop(1))]:
            sys.stdout.write(f"{what}: {outcome(call)}\\n")
        remote.stop(0)
    else:
        remote.stop(0)
''')


def test_remote_misuse_gets_clear_errors(build, scratch):
    """openscc.remote's shape (proxy("name", ue=K), the older proxy(K, "name"), serve until every other UE
    stopped) and its errors: each raised at the caller, naming the UE, while the server goes on."""
    res = lib.run_python_ues(build, scratch, REMOTE_MISUSE, 3)
    assert res.rc == lib.RC_OK, res
    assert res.out.splitlines() == [
        "new form: 42", "old form: 42",
        "no such object: RemoteError: UE 0 serves no object named 'bag' (it serves ['box'])",
        "unpicklable result: RemoteError: UE 0: the result of box.unpicklable cannot be pickled: "
        "Can't pickle local object 'Box.unpicklable.<locals>.<lambda>'",
        "no such method: AttributeError: 'Box' object has no attribute 'put'",
        "my own UE: ValueError: UE 1 cannot call its own objects through a proxy (it would wait for itself): "
        "call them directly",
        "a UE beyond the job: ValueError: UE 3 is not in this job of 3 UEs",
        "stop myself: ValueError: UE 1 cannot stop itself: stop names a server this UE called",
        "served 5"], res


def test_remote_calls_benchmark_runs(build):
    """apps/python/remote_calls.py (make bench's Python rows): three argument sizes, each echoed intact."""
    res = rccerun(build, "-nue", 2, sys.executable, lib.REPO / "apps" / "python" / "remote_calls.py", 5)
    assert res.rc == lib.RC_OK, res
    assert [line.split(" ms")[0].rsplit(" ", 1)[0] for line in res.out.splitlines()] == [
        "remote_calls: 0 B argument:", "remote_calls: 64 B argument:", "remote_calls: 256 B argument:"], res

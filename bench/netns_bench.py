"""What the benchmarks on namespaced "hosts" (hosts_bench.py, hosts_scale.py) share: their options, the
namespaces' availability (root, ip, mpirun; skipped otherwise) and a scratch directory."""
from __future__ import annotations

import pathlib
import sys
import tempfile

import standalone

sys.path.insert(0, str(standalone.ROOT / "tests" / "integration"))
import netns_hosts  # noqa: E402,F401  (the tests' namespaced hosts, for the benchmarks)


def start(doc: str, out: str) -> tuple | None:
    """(args, build, command, scratch directory), or None after saying why the benchmark is skipped."""
    args, build, command = standalone.options(doc, 5, out)
    why = netns_hosts.unavailable()
    if why:
        print(f"{out}: skipped: {why}")
        return None
    return args, build, command, pathlib.Path(tempfile.mkdtemp(prefix=f"openscc-{out}-"))

"""What a remote method call costs (docs/python.md "Distributed objects"), as [RUBY-2011] Table III measured
DRb over RCCE: UE 0 serves an object whose method returns its argument; UE 1 calls it with arguments of 0,
64 and 256 bytes and prints the time per call.

    rccerun -nue 2 python3 apps/python/remote_calls.py [calls=200]
    rccerun -nue 2 --model scc python3 apps/python/remote_calls.py 20
"""
import sys

import openscc.rcce as rcce
from openscc import remote

SIZES = (0, 64, 256)


class Echo:
    def back(self, data):
        return data


calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
if rcce.ue() == 0:
    remote.serve({"echo": Echo()})  # until every other UE stopped
elif rcce.ue() == 1:
    echo = remote.proxy("echo", ue=0)
    for size in SIZES:
        arg = bytes(size)
        echo.back(arg)  # the first call outside the timing
        t0 = rcce.wtime()
        for _ in range(calls):
            if echo.back(arg) != arg:
                sys.exit(f"remote_calls: the {size}-byte argument came back changed")
        per_call = (rcce.wtime() - t0) / calls
        sys.stdout.write(f"remote_calls: {size} B argument: {per_call * 1e3:.4f} ms per call\n")
    remote.stop(0)
else:
    remote.stop(0)

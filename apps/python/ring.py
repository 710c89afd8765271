"""A token around the ring of UEs, then reductions: openscc.rcce's first example (docs/python.md).

    rccerun -nue 4 python3 apps/python/ring.py [rounds=10]
    rccerun -nue 4 --model scc python3 apps/python/ring.py

Each round UE 0 sends a counter to UE 1, each UE adds its number and passes it on, and UE 0 checks the
sum; then every UE's numbers are summed with allreduce.  Prints "ring: OK" and the time per round.
"""
import sys

import openscc.rcce as rcce

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
me, n = rcce.ue(), rcce.num_ues()
token = bytearray(8)
rcce.barrier()
t0 = rcce.wtime()
for r in range(rounds):
    if me == 0:
        token[:] = r.to_bytes(8, "little")
        rcce.send(token, 1 % n)
        rcce.recv(token, n - 1)
        got, want = int.from_bytes(token, "little"), r + n * (n - 1) // 2
        if got != want:
            sys.exit(f"ring: round {r}: token {got}, expected {want}")
    else:
        rcce.recv(token, me - 1)
        token[:] = (int.from_bytes(token, "little") + me).to_bytes(8, "little")
        rcce.send(token, (me + 1) % n)
elapsed = rcce.wtime() - t0
mine, total = memoryview(bytearray(8)).cast("q"), memoryview(bytearray(8)).cast("q")
mine[0] = me
rcce.allreduce(mine, total, "sum")
if total[0] != n * (n - 1) // 2:
    sys.exit(f"ring: UE {me}: allreduce gave {total[0]}")
if me == 0:
    print(f"ring: OK ({n} UEs, {rounds} rounds, {elapsed / rounds * 1e6:.2f} us per round)")

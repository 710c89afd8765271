"""numpy_ring.py - an ordinary mpi4py program with numpy buffers: uppercase (buffer) Send/Recv,
Isend/Irecv and Sendrecv around the ring for several dtypes and sizes up to 1 MiB, Bcast and
Allreduce on arrays, and the lowercase (pickle) bcast/allreduce/gather; every result is checked.

usage: python numpy_ring.py   (rank 0 prints "numpy_ring: OK (N ranks)"; a mismatch prints
       "numpy_ring: rank R: WHAT: ..." on stderr and aborts the job with status 1)
"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
me, np_ranks = comm.Get_rank(), comm.Get_size()
right, left = (me + 1) % np_ranks, (me - 1) % np_ranks


def fail(what: str) -> None:
    """One line naming the rank and the check, then MPI_Abort (the other ranks may be waiting)."""
    sys.stderr.write(f"numpy_ring: rank {me}: {what}\n")
    sys.stderr.flush()
    comm.Abort(1)


def expect_array(what: str, got: np.ndarray, want: np.ndarray) -> None:
    if got.dtype != want.dtype or got.shape != want.shape:
        fail(f"{what}: got {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    bad = np.flatnonzero(got != want)
    if bad.size:
        i = int(bad[0])
        fail(f"{what}: element {i} of {got.size} is {got.flat[i]}, expected {want.flat[i]}")


def message(src: int, dst: int, n: int, dtype) -> np.ndarray:
    """What src sends dst: n elements that depend on both ranks and on the index."""
    return ((np.arange(n, dtype=np.int64) * 7 + src * 1000 + dst) % 251).astype(dtype)


def ring_p2p() -> None:
    for dtype in (np.uint8, np.int32, np.float64, np.complex128):
        for n in (0, 1, 1000, (1 << 20) // np.dtype(dtype).itemsize):
            tag = n % 30000
            out, inbox = message(me, right, n, dtype), np.empty(n, dtype)
            name = f"{np.dtype(dtype).name}[{n}]"
            # Send/Recv: even ranks send first, so that large messages cannot deadlock the ring (at
            # least one odd rank receives first); a rank alone would block sending to itself.
            for turn in range(2 if np_ranks > 1 else 0):
                if (turn == 0) == (me % 2 == 0):
                    comm.Send(out, dest=right, tag=tag)
                else:
                    status = MPI.Status()
                    comm.Recv(inbox, source=left, tag=tag, status=status)
                    if status.Get_source() != left or status.Get_count(MPI.BYTE) != out.nbytes:
                        fail(f"Recv {name}: status source {status.Get_source()}, "
                             f"{status.Get_count(MPI.BYTE)} bytes")
                    expect_array(f"Send/Recv {name}", inbox, message(left, me, n, dtype))
            reqs = [comm.Irecv(inbox, source=left, tag=tag + 1), comm.Isend(out, dest=right, tag=tag + 1)]
            MPI.Request.Waitall(reqs)
            expect_array(f"Isend/Irecv {name}", inbox, message(left, me, n, dtype))
            inbox[:] = 0
            comm.Sendrecv(out, dest=right, sendtag=tag + 2, recvbuf=inbox, source=left, recvtag=tag + 2)
            expect_array(f"Sendrecv {name}", inbox, message(left, me, n, dtype))


def collectives() -> None:
    root = np_ranks - 1
    data = message(root, 0, 100000, np.float64) if me == root else np.zeros(100000, np.float64)
    comm.Bcast(data, root=root)
    expect_array("Bcast float64[100000]", data, message(root, 0, 100000, np.float64))

    mine = np.arange(1000, dtype=np.int64) + me
    total = np.empty_like(mine)
    comm.Allreduce(mine, total, op=MPI.SUM)
    expect_array("Allreduce(SUM) int64[1000]", total, np.arange(1000, dtype=np.int64) * np_ranks
                 + np_ranks * (np_ranks - 1) // 2)
    comm.Allreduce(MPI.IN_PLACE, mine, op=MPI.MAX)
    expect_array("Allreduce(IN_PLACE, MAX)", mine, np.arange(1000, dtype=np.int64) + np_ranks - 1)

    # Lowercase: any picklable object.
    obj = comm.bcast({"from": root, "list": list(range(10))} if me == root else None, root=root)
    if obj != {"from": root, "list": list(range(10))}:
        fail(f"bcast of a dict: got {obj!r}")
    s = comm.allreduce(me + 1, op=MPI.SUM)
    if s != np_ranks * (np_ranks + 1) // 2:
        fail(f"allreduce(SUM) of me + 1: got {s}, expected {np_ranks * (np_ranks + 1) // 2}")
    names = comm.gather(f"rank{me}", root=0)
    if me == 0 and names != [f"rank{r}" for r in range(np_ranks)]:
        fail(f"gather of strings: got {names!r}")


ring_p2p()
collectives()
comm.Barrier()
if me == 0:
    print(f"numpy_ring: OK ({np_ranks} ranks)", flush=True)

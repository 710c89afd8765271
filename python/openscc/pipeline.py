"""Pipelines from Python (docs/data-movement.md "Pipelines"): the C library's ``scc_pipeline.h`` with the
stages written in Python.  Run the program under rccerun (``rccerun -nue 4 python3 prog.py``): every UE calls
``run`` with the same layout; stage s runs on UE ``order[s]`` (default: UE s) and transforms each chunk in
place; the first stage's UE gives the data, the last stage's UE gets the result.

    from openscc import pipeline
    def stage(chunk: memoryview, s: int) -> None:      # e.g. numpy.frombuffer(chunk, numpy.uint8)
        ...
    res = pipeline.run(stage, data, chunk=4096, memory="private")
    res.out          # the result (bytes) on the last stage's UE, else None
    res.seconds, res.predicted   # measured (virtual in model mode) and the cost model's time

``predict`` and ``best`` are the cost model ([PIPELINE-2011] eqs. 1-3 priced with the chip's latencies).
A stage function that raises ends the UE with exit status 1 (the traceback on stderr), as an uncaught
exception does; the launcher then reports the UE.
"""
from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from cffi import FFI

from . import rcce

__all__ = ["MEMORY", "Result", "run", "predict", "best"]

MEMORY = {"private": 0, "shared": 1, "shared-cached": 2}  # SCC_PIPE_PRIVATE, _SHARED, _SHARED_CACHED

_ffi = FFI()
_ffi.cdef("""
typedef struct { int stages; const int *order; size_t chunk; int memory; } scc_pipe_layout;
typedef struct { double seconds; double tc_per_byte; double predicted; } scc_pipe_result;
int scc_pipe_run(const scc_pipe_layout *layout, const void *in, void *out, size_t bytes,
                 void (*fn)(unsigned char *, size_t, int, void *), void *arg, scc_pipe_result *res);
double scc_pipe_predict(const scc_pipe_layout *layout, size_t bytes, double tc_per_byte);
double scc_pipe_best(scc_pipe_layout *layout, int stages, int memory, size_t bytes, double tc_per_byte,
                     const size_t *chunks, int nchunks, int *order_out);
""")
_lib = None


def _library():
    global _lib
    if _lib is None:
        rcce.init()
        _lib = _ffi.dlopen(os.environ["OPENSCC_LIBRCCE"])
    return _lib


@dataclass
class Result:
    out: Optional[bytes]   # the data after every stage, on the last stage's UE
    seconds: float         # first chunk in to last chunk out (RCCE_wtime: virtual seconds in model mode)
    tc_per_byte: float     # the slowest stage's compute time a byte
    predicted: float       # the cost model's time for this layout with that tc_per_byte


def _layout(stages: int, order: Optional[Sequence[int]], chunk: int, memory: str):
    if memory not in MEMORY:
        raise ValueError(f"openscc.pipeline: memory must be one of {', '.join(MEMORY)}, got {memory!r}")
    order_c = _ffi.new("int[]", list(order)) if order is not None else _ffi.NULL
    return _ffi.new("scc_pipe_layout *", (stages, order_c, chunk, MEMORY[memory])), order_c


def run(stage: Callable[[memoryview, int], None], data=None, *, chunk: int = 4096, memory: str = "private",
        order: Optional[Sequence[int]] = None, stages: Optional[int] = None, size: Optional[int] = None) -> Result:
    """One pipeline over the job's UEs (collective).  data: the input on the first stage's UE (any buffer);
    size: its length in bytes on the other UEs (default len(data)); stages: default len(order) or every UE."""
    lib = _library()
    nstages = stages if stages is not None else (len(order) if order is not None else rcce.num_ues())
    layout, keep = _layout(nstages, order, chunk, memory)
    view = memoryview(data).cast("B") if data is not None else None
    nbytes = size if size is not None else (view.nbytes if view is not None else 0)
    out = bytearray(nbytes)
    in_c = _ffi.from_buffer(view) if view is not None else _ffi.NULL

    @_ffi.callback("void(unsigned char *, size_t, int, void *)")
    def call(chunk_p, n, s, _arg):
        try:
            stage(memoryview(_ffi.buffer(chunk_p, n)), s)
        except BaseException:  # noqa: B902 - any failure ends the UE, as an uncaught exception does
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)

    res = _ffi.new("scc_pipe_result *")
    rc = lib.scc_pipe_run(layout, in_c, _ffi.from_buffer(out), nbytes, call, _ffi.NULL, res)
    del keep
    if rc != 0:
        raise rcce.RCCEError("scc_pipe_run", rc)
    last = order[nstages - 1] if order is not None else nstages - 1
    return Result(bytes(out) if rcce.ue() == last else None, res.seconds, res.tc_per_byte, res.predicted)


def predict(nbytes: int, tc_per_byte: float, *, chunk: int = 4096, memory: str = "private",
            order: Optional[Sequence[int]] = None, stages: Optional[int] = None) -> float:
    """The cost model's seconds for a layout (0.0 for an invalid one)."""
    lib = _library()
    nstages = stages if stages is not None else (len(order) if order is not None else rcce.num_ues())
    layout, keep = _layout(nstages, order, chunk, memory)
    t = lib.scc_pipe_predict(layout, nbytes, tc_per_byte)
    del keep
    return t


def best(nbytes: int, tc_per_byte: float, *, stages: Optional[int] = None, memory: str = "private",
         chunks: Sequence[int] = (256, 1024, 4096, 16384, 65536)) -> tuple[list[int], int, float]:
    """The model's fastest layout: (order, chunk, predicted seconds)."""
    lib = _library()
    nstages = stages if stages is not None else rcce.num_ues()
    if memory not in MEMORY:
        raise ValueError(f"openscc.pipeline: memory must be one of {', '.join(MEMORY)}, got {memory!r}")
    layout, order_out = _ffi.new("scc_pipe_layout *"), _ffi.new("int[]", max(nstages, 1))
    sizes = _ffi.new("size_t[]", list(chunks))
    t = lib.scc_pipe_best(layout, nstages, MEMORY[memory], nbytes, tc_per_byte, sizes, len(chunks), order_out)
    if t <= 0:
        raise ValueError("openscc.pipeline.best: no layout (stages outside 1..num_ues, or no chunk sizes)")
    return [order_out[s] for s in range(nstages)], layout.chunk, t

"""RCCE and iRCCE from Python (docs/python.md): ``rccerun -nue 4 python3 prog.py`` runs prog.py as four UEs.

The binding loads the job's own runtime, ``librcce.so`` (rccerun names it in ``OPENSCC_LIBRCCE``), through
cffi's ABI mode, so nothing is compiled at import.  Importing it under rccerun initialises RCCE (``init()``)
and registers ``finalize()`` to run at exit.  Buffers are anything with the buffer protocol -- ``bytes``,
``bytearray``, ``memoryview``, numpy arrays -- passed to RCCE in place, without copies; a message's size
is the buffer's size in bytes.  Every failing call raises ``RCCEError`` carrying RCCE's error code.

In model mode (``rccerun --model scc``) the interpreter's time between calls is computation measured on the
host, like any program built without ``rccecc --model-build`` (docs/model.md "Computation").
"""
from __future__ import annotations

import atexit
import os
import sys

from cffi import FFI

__all__ = ["RCCEError", "init", "finalize", "ue", "num_ues", "wtime", "send", "recv", "recv_any", "peek",
           "Comm", "world", "comm_split", "barrier", "bcast", "reduce", "allreduce", "shmalloc", "shfree",
           "power_domain", "set_frequency_divider", "isend", "irecv", "SendRequest", "RecvRequest", "ANY_SOURCE",
           "SUM", "MIN", "MAX", "PROD"]

# The declarations of include/RCCE.h and include/iRCCE.h the binding uses (basic interface, big flags).
# The request structs are iRCCE.h's, field for field (tests/integration/test_python.py compares their
# sizes with the C compiler's).
_CDEF = """
typedef unsigned char *t_vcharp;
typedef int *RCCE_FLAG;
typedef int RCCE_FLAG_STATUS;
typedef struct {
  int size; int my_rank; int initialized; int member[1024]; int barrier_line; int label; int nb_arrived;
  unsigned nb_generation;
} RCCE_COMM;
extern RCCE_COMM RCCE_COMM_WORLD;
int RCCE_init(int *argc, char ***argv);
int RCCE_finalize(void);
double RCCE_wtime(void);
int RCCE_ue(void);
int RCCE_num_ues(void);
int RCCE_send(char *privbuf, size_t size, int dest);
int RCCE_recv(char *privbuf, size_t size, int source);
int RCCE_peek(char *privbuf, size_t size, int source);
int RCCE_peek_size(int source, size_t *size);
int RCCE_allreduce(char *inbuf, char *outbuf, int num, int type, int op, RCCE_COMM comm);
int RCCE_reduce(char *inbuf, char *outbuf, int num, int type, int op, int root, RCCE_COMM comm);
int RCCE_bcast(char *buf, size_t num, int root, RCCE_COMM comm);
t_vcharp RCCE_shmalloc(size_t size);
void RCCE_shfree(t_vcharp ptr);
int RCCE_barrier(RCCE_COMM *comm);
int RCCE_comm_split(int (*color)(int, void *), void *aux, RCCE_COMM *comm);
int RCCE_comm_size(RCCE_COMM comm, int *size);
int RCCE_comm_rank(RCCE_COMM comm, int *rank);
int RCCE_error_string(int err_no, char *error_string, int *string_length);
int RCCE_power_domain(void);
int RCCE_set_frequency_divider(int freq_div, int *new_freq_div);
typedef struct _iRCCE_SEND_REQUEST {
  char *privbuf; t_vcharp combuf; size_t chunk; size_t subchunk1; size_t subchunk2; RCCE_FLAG *ready;
  RCCE_FLAG *sent; RCCE_FLAG_STATUS flag_set_value; size_t size; int dest; int sync; size_t wsize;
  size_t remainder; size_t nbytes; char *bufptr; int label; int finished; struct _iRCCE_SEND_REQUEST *next;
  long long _openscc_engine[24];
} iRCCE_SEND_REQUEST;
typedef struct _iRCCE_RECV_REQUEST {
  char *privbuf; t_vcharp combuf; size_t chunk; size_t subchunk1; size_t subchunk2; RCCE_FLAG *ready;
  RCCE_FLAG *sent; RCCE_FLAG_STATUS flag_set_value; size_t size; int source; int sync; size_t wsize;
  size_t remainder; size_t nbytes; char *bufptr; int label; int finished; int started;
  struct _iRCCE_RECV_REQUEST *next; long long _openscc_engine[24];
} iRCCE_RECV_REQUEST;
extern int iRCCE_ANY_SOURCE; /* const in iRCCE.h; cffi reads only non-const globals of a dlopen()ed library */
int iRCCE_isend(char *privbuf, ssize_t size, int dest, iRCCE_SEND_REQUEST *request);
int iRCCE_isend_test(iRCCE_SEND_REQUEST *request, int *test);
int iRCCE_isend_wait(iRCCE_SEND_REQUEST *request);
int iRCCE_irecv(char *privbuf, ssize_t size, int source, iRCCE_RECV_REQUEST *request);
int iRCCE_irecv_test(iRCCE_RECV_REQUEST *request, int *test);
int iRCCE_irecv_wait(iRCCE_RECV_REQUEST *request);
int iRCCE_get_source(iRCCE_RECV_REQUEST *request);
int iRCCE_probe(int source, int *src);
int iRCCE_get_size(iRCCE_SEND_REQUEST *sreq, iRCCE_RECV_REQUEST *rreq);
"""

_SUCCESS, _PENDING = 0, -2
SUM, MIN, MAX, PROD = 23232323, 23232324, 23232325, 23232326  # RCCE_SUM ... RCCE_PROD
_OPS = {"sum": SUM, "min": MIN, "max": MAX, "prod": PROD}
# RCCE_INT, RCCE_LONG, RCCE_FLOAT, RCCE_DOUBLE by the buffer's item (struct format code and size)
_TYPES = {("i", 4): 63636363, ("l", 8): 63636364, ("q", 8): 63636364, ("f", 4): 63636365, ("d", 8): 63636366}

_ffi = FFI()
_ffi.cdef(_CDEF)
_lib = None
_initialized = False
_failed = False  # an uncaught exception: the UE exits with it, without RCCE_finalize's barrier


class RCCEError(RuntimeError):
    """An RCCE or iRCCE call failed: ``code`` is RCCE's error code (RCCE.h: RCCE_ERROR_*)."""

    def __init__(self, call: str, code: int):
        self.call, self.code = call, code
        super().__init__(f"{call}: {_error_string(code)} (RCCE error {code})")


def _error_string(code: int) -> str:
    text, length = _ffi.new("char[]", 64), _ffi.new("int *")
    if _lib is None or _lib.RCCE_error_string(code, text, length) != _SUCCESS:
        return "unknown error"
    return _ffi.string(text, length[0]).decode(errors="replace")


def _library():
    global _lib
    if _lib is None:
        path = os.environ.get("OPENSCC_LIBRCCE")
        if not path:
            raise RuntimeError("openscc.rcce: OPENSCC_LIBRCCE is not set: run the program under rccerun (rccerun "
                               "-nue N python3 prog.py), which names its librcce.so there")
        _lib = _ffi.dlopen(path)
    return _lib


def _check(call: str, rc: int) -> int:
    if rc != _SUCCESS:
        raise RCCEError(call, rc)
    return rc


def _read(buf) -> tuple:
    """A buffer passed in place, read-only allowed, and its size in bytes."""
    view = memoryview(buf)
    return _ffi.from_buffer("char[]", view), view.nbytes


def _write(buf) -> tuple:
    """A writable buffer passed in place, and its size in bytes."""
    view = memoryview(buf)
    if view.readonly:
        raise TypeError("openscc.rcce: the buffer to receive into is read-only (pass a bytearray, a writable "
                        "memoryview or a numpy array)")
    return _ffi.from_buffer("char[]", view, require_writable=True), view.nbytes


def init() -> None:
    """RCCE_init with the interpreter's arguments (done at import under rccerun)."""
    global _initialized
    if _initialized:
        return
    lib = _library()
    argc, argv = _ffi.new("int *", 0), _ffi.new("char ***", _ffi.new("char *[]", [_ffi.NULL]))
    _check("RCCE_init", lib.RCCE_init(argc, argv))
    _initialized = True
    atexit.register(finalize)
    hook = sys.excepthook

    def failed(*exc) -> None:
        global _failed
        _failed = True
        hook(*exc)

    sys.excepthook = failed


def finalize() -> None:
    """RCCE_finalize (done at exit, unless an exception ends the program: then the UE exits with status 1,
    which rccerun reports, instead of waiting in RCCE_finalize's barrier for UEs that may wait for it)."""
    global _initialized
    if _initialized and not _failed:
        _initialized = False
        _check("RCCE_finalize", _library().RCCE_finalize())


def ue() -> int:
    return _library().RCCE_ue()


def num_ues() -> int:
    return _library().RCCE_num_ues()


def wtime() -> float:
    """Seconds: host time natively, the UE's virtual time in model mode."""
    return _library().RCCE_wtime()


def send(buf, dest: int) -> None:
    """RCCE_send: the whole buffer to UE dest; returns once dest has received it."""
    data, size = _read(buf)
    _check("RCCE_send", _library().RCCE_send(data, size, dest))


def recv(buf, source: int) -> None:
    """RCCE_recv: a message of exactly the buffer's size from UE source, into the buffer."""
    data, size = _write(buf)
    _check("RCCE_recv", _library().RCCE_recv(data, size, source))


def peek(buf, source: int) -> bool:
    """RCCE_peek ([RUBY-2011]): whether a message from source is waiting; if so its first len(buf) bytes
    are copied into buf (a message shorter than buf is an error) and a later recv still receives it."""
    data, size = _write(buf)
    rc = _library().RCCE_peek(data, size, source)
    if rc == 1:  # nothing waiting
        return False
    _check("RCCE_peek", rc)
    return True


def recv_any(source: int | None = None) -> tuple[bytearray, int]:
    """A message of any length from source (None: whoever sends first): its bytes and its sender.  The
    binding waits for the message (iRCCE_probe), learns its size (RCCE_peek_size, an OpenSCC extension)
    and receives it into a buffer of that size, so nothing is written past a Python buffer."""
    lib = _library()
    src, size = _ffi.new("int *"), _ffi.new("size_t *")
    _check("iRCCE_probe", lib.iRCCE_probe(lib.iRCCE_ANY_SOURCE if source is None else source, src))
    _check("RCCE_peek_size", lib.RCCE_peek_size(src[0], size))  # waiting: nothing else receives it meanwhile
    buf = bytearray(size[0])
    recv(buf, src[0])
    return buf, src[0]


class Comm:
    """A communicator: ``world()`` or one ``comm_split`` made; ``size`` UEs, this UE's ``rank`` in it.
    Collectives take one (default: every UE); a root is a UE number, as in RCCE."""

    def __init__(self, struct):
        self._comm = struct  # RCCE_COMM * (this object keeps it alive)

    @property
    def size(self) -> int:
        n = _ffi.new("int *")
        _check("RCCE_comm_size", _library().RCCE_comm_size(self._comm[0], n))
        return n[0]

    @property
    def rank(self) -> int:
        r = _ffi.new("int *")
        _check("RCCE_comm_rank", _library().RCCE_comm_rank(self._comm[0], r))
        return r[0]


def world() -> Comm:
    """RCCE_COMM_WORLD: every UE."""
    return Comm(_ffi.addressof(_library(), "RCCE_COMM_WORLD"))


def comm_split(color) -> Comm:
    """RCCE_comm_split (collective): the UEs whose color(ue) equals this UE's form a communicator."""
    callback = _ffi.callback("int(int, void *)", lambda ue, aux: int(color(ue)))
    comm = _ffi.new("RCCE_COMM *")
    _check("RCCE_comm_split", _library().RCCE_comm_split(callback, _ffi.NULL, comm))
    return Comm(comm)


def _comm(comm: Comm | None) -> Comm:
    return comm if comm is not None else world()


def barrier(comm: Comm | None = None) -> None:
    _check("RCCE_barrier", _library().RCCE_barrier(_comm(comm)._comm))


def bcast(buf, root: int, comm: Comm | None = None) -> None:
    """RCCE_bcast: root's buffer into every member's."""
    data, size = _write(buf)
    _check("RCCE_bcast", _library().RCCE_bcast(data, size, root, _comm(comm)._comm[0]))


def _numbers(inbuf, outbuf, op) -> tuple:
    src, dst = memoryview(inbuf), memoryview(outbuf)
    kind = _TYPES.get((src.format.lstrip("@=<"), src.itemsize))
    if kind is None:
        raise TypeError(f"openscc.rcce: reductions take int32, int64, float32 or float64 items, not "
                        f"format {src.format!r} of {src.itemsize} bytes")
    if dst.nbytes != src.nbytes or dst.format != src.format:
        raise ValueError("openscc.rcce: the result buffer must have the input's size and item type")
    code = _OPS.get(op, op) if isinstance(op, str) else op
    if code not in _OPS.values():
        raise ValueError(f"openscc.rcce: unknown reduction {op!r} (sum, min, max, prod)")
    return _read(src)[0], _write(dst)[0], src.nbytes // src.itemsize, kind, code


def reduce(inbuf, outbuf, op="sum", root: int = 0, comm: Comm | None = None) -> None:
    """RCCE_reduce: inbuf of every member combined item by item into root's outbuf."""
    a, b, n, kind, code = _numbers(inbuf, outbuf, op)
    _check("RCCE_reduce", _library().RCCE_reduce(a, b, n, kind, code, root, _comm(comm)._comm[0]))


def allreduce(inbuf, outbuf, op="sum", comm: Comm | None = None) -> None:
    """RCCE_allreduce: inbuf of every member combined item by item into every member's outbuf."""
    a, b, n, kind, code = _numbers(inbuf, outbuf, op)
    _check("RCCE_allreduce", _library().RCCE_allreduce(a, b, n, kind, code, _comm(comm)._comm[0]))


def shmalloc(size: int) -> memoryview:
    """RCCE_shmalloc: size bytes of the off-chip shared memory, as a writable memoryview (every UE makes the
    same calls in the same order and gets the same memory)."""
    ptr = _library().RCCE_shmalloc(size)
    if ptr == _ffi.NULL:
        raise RCCEError("RCCE_shmalloc", 1234321 + 25)  # RCCE_ERROR_MALLOC
    return memoryview(_ffi.buffer(ptr, size))


def shfree(mem: memoryview) -> None:
    _library().RCCE_shfree(_ffi.cast("t_vcharp", _ffi.from_buffer(mem)))


def power_domain() -> int:
    return _library().RCCE_power_domain()


def set_frequency_divider(divider: int) -> int:
    """RCCE_set_frequency_divider (the domain master's call); returns the divider in effect."""
    new = _ffi.new("int *")
    _check("RCCE_set_frequency_divider", _library().RCCE_set_frequency_divider(divider, new))
    return new[0]


ANY_SOURCE = None  # irecv from whichever UE sends first (iRCCE_ANY_SOURCE)


class _Request:
    _kind = ""

    def __init__(self, buf, struct):
        self._buf, self._req, self.done = buf, struct, False  # both kept alive until the request completes

    def test(self) -> bool:
        """Moves the request on; whether it has completed."""
        if not self.done:
            flag = _ffi.new("int *")
            _check(f"iRCCE_{self._kind}_test", getattr(_lib, f"iRCCE_{self._kind}_test")(self._req, flag))
            self.done = bool(flag[0])
        return self.done

    def wait(self) -> None:
        if not self.done:
            _check(f"iRCCE_{self._kind}_wait", getattr(_lib, f"iRCCE_{self._kind}_wait")(self._req))
            self.done = True


class SendRequest(_Request):
    """An iRCCE_isend under way."""
    _kind = "isend"


class RecvRequest(_Request):
    """An iRCCE_irecv under way; ``source`` and ``size`` tell, once done, who sent how many bytes."""
    _kind = "irecv"

    @property
    def source(self) -> int:
        return _library().iRCCE_get_source(self._req)

    @property
    def size(self) -> int:
        return _library().iRCCE_get_size(_ffi.NULL, self._req)


def _start(cls, data, size: int, peer: int):
    """iRCCE_isend or iRCCE_irecv (cls._kind) of a new request; the request object, done if it completed."""
    call = f"iRCCE_{cls._kind}"
    req = _ffi.new("iRCCE_SEND_REQUEST *" if cls is SendRequest else "iRCCE_RECV_REQUEST *")
    rc = getattr(_lib, call)(data, size, peer, req)
    if rc not in (_SUCCESS, _PENDING):
        raise RCCEError(call, rc)
    r = cls(data, req)
    r.done = rc == _SUCCESS
    return r


def isend(buf, dest: int) -> SendRequest:
    """iRCCE_isend: starts sending the whole buffer to dest; the buffer must stay unchanged until done."""
    return _start(SendRequest, *_read(buf), dest)


def irecv(buf, source: int | None = ANY_SOURCE) -> RecvRequest:
    """iRCCE_irecv: starts receiving a message of the buffer's size into it from source (ANY_SOURCE:
    whoever sends first; RecvRequest.source tells who)."""
    return _start(RecvRequest, *_write(buf), _library().iRCCE_ANY_SOURCE if source is ANY_SOURCE else source)


if os.environ.get("OPENSCC_UE") is not None and os.environ.get("OPENSCC_LIBRCCE"):
    init()

"""Distributed objects over RCCE (docs/python.md "Distributed objects"): the analogue of [RUBY-2011]'s DRb over
RCCE.  A UE serves objects by name (``serve``); any UE calls their methods through a proxy (``proxy``) as on
a local object.  Arguments and results travel pickled; an exception a method raises is raised again at the
caller; every call carries a request id, which its reply repeats.

The protocol, one RCCE message pair per direction (RCCE messages have a fixed size, so a header says how
large the payload is): the caller sends a header (kind, request id, payload bytes) and then the payload;
the server receives headers from any UE (iRCCE's any-source receive, as the paper's server loop takes the
next request from whichever UE sent first), then that UE's payload, calls the method and answers the same
way.  Many UEs may call one server at once (their sends wait until it takes them, one at a time); a method
may call other servers, as long as the calls form no cycle (a server busy in a call does not serve).
"""
from __future__ import annotations

import pickle
import struct

from . import rcce

__all__ = ["serve", "proxy", "stop", "RemoteError"]

_HEADER = struct.Struct("<iiq")  # kind, request id, payload bytes
_CALL, _RESULT, _RAISED, _STOP = 1, 2, 3, 4


class RemoteError(RuntimeError):
    """A reply that does not answer the call made (a protocol error, not the method's exception)."""


def _send(dest: int, kind: int, request: int, payload: bytes) -> None:
    rcce.send(_HEADER.pack(kind, request, len(payload)), dest)
    if payload:
        rcce.send(payload, dest)


def _recv_payload(source: int, size: int) -> bytes:
    payload = bytearray(size)
    if size:
        rcce.recv(payload, source)
    return bytes(payload)


def serve(objects: dict, until_calls: int | None = None, *, callers: int | None = None) -> int:
    """Serves `objects` (name -> object) and returns the number of calls served, once `until_calls` calls have
    been served, or once `callers` UEs (by default every other UE) have called ``stop`` on this UE, whichever
    comes first.  With ``until_calls`` the callers need not call ``stop``; a caller that does after this
    returned waits for ever (RCCE's sends are synchronous), which rccerun reports as a deadlock."""
    if until_calls is not None and until_calls < 0:
        raise ValueError(f"until_calls is {until_calls}; it must be at least 0")
    if callers is None:
        callers = rcce.num_ues() - 1
    header, served, stopped = bytearray(_HEADER.size), 0, 0
    while stopped < callers and (until_calls is None or served < until_calls):
        req = rcce.irecv(header)  # from whichever UE sends first
        req.wait()
        source = req.source
        kind, request, size = _HEADER.unpack(header)
        payload = _recv_payload(source, size)
        if kind == _STOP:
            stopped += 1
            continue
        if kind != _CALL:
            raise RemoteError(f"UE {rcce.ue()}: message of kind {kind} from UE {source}, expected a call")
        kind, reply = _answer(objects, *pickle.loads(payload))
        _send(source, kind, request, reply)
        served += 1
    return served


def _answer(objects: dict, name: str, method: str, args: tuple, kwargs: dict) -> tuple[int, bytes]:
    """A call's reply: its kind and the pickled result, or the exception the call raised (a result or an
    exception that cannot be pickled is answered with a RemoteError saying so)."""
    try:
        if name not in objects:
            raise RemoteError(f"UE {rcce.ue()} serves no object named {name!r} (it serves {sorted(objects)})")
        result, kind = getattr(objects[name], method)(*args, **kwargs), _RESULT
    except Exception as e:  # noqa: BLE001 -- it travels back to the caller
        result, kind = e, _RAISED
    try:
        return kind, pickle.dumps(result)
    except Exception as e:  # noqa: BLE001 -- a reply must go back, or the caller waits for ever
        what = "result" if kind == _RESULT else f"exception {type(result).__name__}"
        error = RemoteError(f"UE {rcce.ue()}: the {what} of {name}.{method} cannot be pickled: {e}")
        return _RAISED, pickle.dumps(error)


class _Proxy:
    def __init__(self, server: int, name: str):
        self._server, self._name = server, name

    def __getattr__(self, method: str):
        def call(*args, **kwargs):
            return _call(self._server, self._name, method, args, kwargs)
        return call


_next_request = 0


def _call(server: int, name: str, method: str, args: tuple, kwargs: dict):
    global _next_request
    _next_request += 1
    _send(server, _CALL, _next_request, pickle.dumps((name, method, args, kwargs)))
    header = bytearray(_HEADER.size)
    rcce.recv(header, server)
    kind, request, size = _HEADER.unpack(header)
    if request != _next_request or kind not in (_RESULT, _RAISED):
        raise RemoteError(f"UE {rcce.ue()}: reply {request} of kind {kind} from UE {server} to call {_next_request}")
    value = pickle.loads(_recv_payload(server, size))
    if kind == _RAISED:
        raise value
    return value


def proxy(name: str | int, ue: int | str = 0) -> _Proxy:
    """The object `name` served by UE `ue`: ``proxy("counter", ue=2).add(1)`` calls its method there.  The
    older order ``proxy(2, "counter")`` (server first) is accepted too."""
    if isinstance(name, int) and isinstance(ue, str):
        name, ue = ue, name
    if not isinstance(name, str) or not isinstance(ue, int):
        raise TypeError(f"proxy(name, ue=K) takes an object name and a UE number, not {name!r} and {ue!r}")
    if not 0 <= ue < rcce.num_ues():
        raise ValueError(f"UE {ue} is not in this job of {rcce.num_ues()} UEs")
    if ue == rcce.ue():
        raise ValueError(f"UE {ue} cannot call its own objects through a proxy (it would wait for itself): "
                         "call them directly")
    return _Proxy(ue, name)


def stop(server: int) -> None:
    """This UE makes no more calls to `server` (whose ``serve`` returns once all its callers stopped)."""
    if server == rcce.ue():
        raise ValueError(f"UE {server} cannot stop itself: stop names a server this UE called")
    _send(server, _STOP, 0, b"")

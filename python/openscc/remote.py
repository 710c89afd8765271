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


def serve(objects: dict, callers: int) -> int:
    """Serves `objects` (name -> object) until `callers` UEs have called ``stop`` on this UE; returns the
    number of calls served."""
    header, served, stopped = bytearray(_HEADER.size), 0, 0
    while stopped < callers:
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
        name, method, args, kwargs = pickle.loads(payload)
        try:
            result, kind = getattr(objects[name], method)(*args, **kwargs), _RESULT
        except Exception as e:  # noqa: BLE001 -- it travels back to the caller
            result, kind = e, _RAISED
        _send(source, kind, request, pickle.dumps(result))
        served += 1
    return served


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


def proxy(server: int, name: str) -> _Proxy:
    """The object `name` served by UE `server`: its methods called there."""
    return _Proxy(server, name)


def stop(server: int) -> None:
    """This UE makes no more calls to `server` (whose ``serve`` returns once all its callers stopped)."""
    _send(server, _STOP, 0, b"")

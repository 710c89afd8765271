"""The layers above rcce (ircce, mailbox, svm, svp, lut, copy) use it only through
src/rcce/rcce_iface.h (docs/architecture.md "The rcce interface"): none
includes another header of src/rcce, and none names rcce's state (rcce_g) or
reaches into a transfer (rcce_xfer fields, queues).  A source check: it
needs no build."""
from __future__ import annotations

import pathlib
import re

import pytest

SRC = pathlib.Path(__file__).resolve().parents[2] / "src"
UPPER = ["ircce", "mailbox", "svm", "svp", "lut", "copy", "pipeline"]
RCCE_INCLUDE = re.compile(r'#\s*include\s+"\.\./rcce/([^"]+)"')
INTERNALS = re.compile(r"\brcce_g\b|\b(send_queue|recv_queue|extra_waiting|extra_progress|landing_owner)\b|->xfer\.")


def sources(layer: str):
    files = sorted(p for p in (SRC / layer).iterdir() if p.suffix in (".c", ".h"))
    assert files, f"no sources in src/{layer}"
    return files


@pytest.mark.parametrize("layer", UPPER)
def test_only_the_interface_header_is_included(layer):
    bad = [(p.name, h) for p in sources(layer) for h in RCCE_INCLUDE.findall(p.read_text()) if h != "rcce_iface.h"]
    assert bad == [], f"src/{layer} includes rcce internals: {bad}"


@pytest.mark.parametrize("layer", UPPER)
def test_no_rcce_state_is_touched(layer):
    bad = [f"{p.name}:{n}: {line.strip()}" for p in sources(layer)
           for n, line in enumerate(p.read_text().splitlines(), 1) if INTERNALS.search(line)]
    assert bad == [], f"src/{layer} reads rcce's internals:\n" + "\n".join(bad)

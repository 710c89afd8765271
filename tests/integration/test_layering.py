"""The layering of src/ (docs/architecture.md, principle 6): a layer includes
headers of the layers below it only.  A source check: it needs no build."""
from __future__ import annotations

import pathlib
import re

import pytest

SRC = pathlib.Path(__file__).resolve().parents[2] / "src"
# Each layer and the layers it may use (directly or through another of them).
BELOW = {
    "chip": set(),
    "hw": {"chip"},
    "timing": {"hw", "chip"},
    "trace": {"hw", "chip"},
    "rcce": {"timing", "hw", "chip"},
    "ircce": {"rcce", "timing", "hw", "chip"},
    "mailbox": {"rcce", "timing", "hw", "chip"},
    "svp": {"copy", "lut", "rcce", "timing", "hw", "chip"},
    "lut": {"rcce", "timing", "hw", "chip"},
    "svm": {"mailbox", "rcce", "timing", "hw", "chip"},
    "copy": {"lut", "rcce", "timing", "hw", "chip"},
    "pipeline": {"lut", "rcce", "timing", "hw", "chip"},
    "mpi": {"timing", "hw", "chip"},
}
INCLUDE = re.compile(r'#\s*include\s+"(?:\.\./)+([a-z]+)/')


def test_every_layer_is_listed():
    layers = {p.name for p in SRC.iterdir() if p.is_dir()} - {"launch"}  # launch is the top: it may use all
    assert layers == set(BELOW), f"layers not in BELOW or gone: {layers ^ set(BELOW)}"


@pytest.mark.parametrize("layer", sorted(BELOW))
def test_a_layer_includes_only_the_layers_below(layer):
    bad = [(str(p.relative_to(SRC)), used) for p in (SRC / layer).rglob("*") if p.suffix in (".c", ".h")
           for used in INCLUDE.findall(p.read_text()) if used != layer and used not in BELOW[layer]]
    assert bad == [], f"src/{layer} includes layers above it: {bad}"

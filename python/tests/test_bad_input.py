"""openscc on bad job directories, build trees and output paths: every one
gets `openscc: <file>: <problem>` on stderr and exit status 2, never a Python
traceback or a hang (docs/monitoring.md "Reports")."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BUILD, REPO

from openscc.files import MAX_DATA_BYTES, MAX_SUMMARY_BYTES
from openscc.jobdir import MAX_ROWS


def openscc(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "openscc", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def edit_summary(job: Path, change) -> None:
    doc = json.loads((job / "summary.json").read_text())
    change(doc)
    (job / "summary.json").write_text(json.dumps(doc))


def put(name: str, data: str | bytes):
    """A case that replaces a file of the job directory."""
    def change(job: Path):
        f = job / name
        f.write_bytes(data) if isinstance(data, bytes) else f.write_text(data)
    return change


def replace_with(name: str, make):
    """A case that replaces a file of the job directory with what make(path) creates."""
    def change(job: Path):
        (job / name).unlink()
        make(job / name)
    return change


def sparse(size: int):
    """A file of size bytes (a hole: it takes no disk space)."""
    def make(path: Path):
        path.touch()
        os.truncate(path, size)
    return make


def summary(change):
    return lambda job: edit_summary(job, change)


def deep(depth: int) -> str:
    return '{"schema": "openscc-summary", "version": 1, "job": ' + "[" * depth + "]" * depth + "}"


def set_key(path: str, value):
    """summary.json with the value at path (keys and list indexes separated by /) replaced."""
    def change(doc):
        *parents, last = [int(k) if k.isdigit() else k for k in path.split("/")]
        for k in parents:
            doc = doc[k]
        doc[last] = value
    return change


# (case, change to a copy of a recorded 4-UE timeline run, file named in the message, problem)
CASES = [
    ("summary missing", lambda job: (job / "summary.json").unlink(), "summary.json", "no such file"),
    ("summary is a directory", replace_with("summary.json", Path.mkdir), "summary.json",
     "is a directory, not a file"),
    ("summary is /dev/zero", replace_with("summary.json", lambda p: p.symlink_to("/dev/zero")), "summary.json",
     "not a regular file"),
    ("summary is a FIFO", replace_with("summary.json", os.mkfifo), "summary.json", "not a regular file"),
    ("summary too large", replace_with("summary.json", sparse(MAX_SUMMARY_BYTES + 1)),
     "summary.json", f"larger than {MAX_SUMMARY_BYTES} bytes, the limit for this file"),
    ("summary not UTF-8", put("summary.json", b'{"schema": "openscc-summary\xff"}'), "summary.json",
     "not UTF-8 text (byte 0xff at offset 27)"),
    ("summary not JSON", put("summary.json", "{not json"), "summary.json", "not valid JSON (Expecting property name"),
    ("top level a list", put("summary.json", "[1, 2]"), "summary.json", "the top level is a JSON list, not an object"),
    ("top level a string", put("summary.json", '"openscc-summary"'), "summary.json",
     "the top level is a JSON str, not an object"),
    ("100k-deep nesting", put("summary.json", deep(100000)), "summary.json", "not valid JSON (nested too deeply)"),
    ("NaN", summary(set_key("job/host_seconds", float("nan"))), "summary.json", "not valid JSON (NaN is not JSON)"),
    ("number overflows", put("summary.json", '{"schema": "openscc-summary", "version": 1, "job": 1e999}'),
     "summary.json", "not valid JSON (number out of range: 1e999)"),
    ("other schema", summary(set_key("schema", "other")), "summary.json",
     "schema 'other' version 1, expected 'openscc-summary' version 1"),
    ("schema mismatch", summary(set_key("ues/1/msgs_sent", -1)), "summary.json",
     "does not match its schema: ues/1/msgs_sent: -1 is less than the minimum of 0"),
    ("nue too large", summary(set_key("job/nue", 100000)), "summary.json",
     "does not match its schema: job/nue: 100000 is greater than the maximum of 1024"),
    ("million-tile mesh", summary(set_key("job/mesh/tiles_x", 1000000)), "summary.json",
     "does not match its schema: job/mesh/tiles_x: 1000000 is greater than the maximum of 1024"),
    ("mesh over 1024 cores", summary(set_key("job/mesh/tiles_y", 1000)), "summary.json",
     "does not match its schema: job/mesh: 6 x 1000 tiles of 2 cores: more than 1024 cores"),
    ("nue against ues", summary(set_key("job/nue", 3)), "summary.json",
     "does not match its schema: job/nue: 3 UEs, but ues lists 4"),
    ("UE outside the job", summary(set_key("ues/2/ue", 9)), "summary.json",
     "does not match its schema: ues/2/ue: UE 9 outside the job's UEs 0..3"),
    ("UE twice", summary(set_key("ues/2/ue", 1)), "summary.json", "does not match its schema: ues/2/ue: UE 1 listed twice"),
    ("tile outside the mesh", summary(set_key("ues/0/tile", [6, 0])), "summary.json",
     "does not match its schema: ues/0/tile: tile [6, 0] outside the 6 x 4 mesh"),
    ("core outside the mesh", summary(set_key("ues/0/core", 48)), "summary.json",
     "does not match its schema: ues/0/core: core 48 outside the mesh's cores 0..47"),
    ("UE on a host its board is not on", summary(set_key("ues/0/host", 1)), "summary.json",
     "does not match its schema: ues/0/host: board 0 of 1 runs on host 0 of 1, not 1"),
    ("power without the model", summary(set_key("files/power", "power.csv")), "summary.json",
     "does not match its schema: (top): 'chip_totals' is a required property"),
    ("measured region without the model", summary(set_key("measured_region", {
        "start_s": 0, "seconds": 1, "energy_j": 1, "average_w": 1, "edp_js": 1, "dynamic_j": 1, "static_j": 0, "uncore_j": 0})),
     "summary.json", "does not match its schema: (top): 'chip_totals' is a required property"),
    ("comm matrix missing", lambda job: (job / "comm_matrix.csv").unlink(), "comm_matrix.csv", "no such file"),
    ("comm matrix a directory", replace_with("comm_matrix.csv", Path.mkdir), "comm_matrix.csv",
     "is a directory, not a file"),
    ("comm matrix header", put("comm_matrix.csv", "a,b\n"), "comm_matrix.csv",
     "line 1: header 'a,b', expected 'src,dst,messages,bytes'"),
    ("comm matrix UE outside", put("comm_matrix.csv", "src,dst,messages,bytes\n0,1,5,320\n1,7,5,320\n"),
     "comm_matrix.csv", "line 3: UE 7 outside the job's UEs 0..3"),
    ("comm matrix pair twice", put("comm_matrix.csv", "src,dst,messages,bytes\n0,1,5,320\n0,1,5,320\n"),
     "comm_matrix.csv", "line 3: the pair 0,1 appears twice"),
    ("comm matrix fields", put("comm_matrix.csv", "src,dst,messages,bytes\n0,1,5\n"), "comm_matrix.csv",
     "line 2: 3 fields, expected 4 (src,dst,messages,bytes)"),
    ("comm matrix negative", put("comm_matrix.csv", "src,dst,messages,bytes\n0,1,-5,320\n"), "comm_matrix.csv",
     "line 2: '-5' is not a count from 0 to 18446744073709551615"),
    ("message sizes not UTF-8", put("message_sizes.csv", b"bytes,messages\n6\xc04,30\n"), "message_sizes.csv",
     "not UTF-8 text (byte 0xc0 at offset 16)"),
    ("message size beyond 64 bits", put("message_sizes.csv", "bytes,messages\n18446744073709551616,1\n"),
     "message_sizes.csv", "line 2: '18446744073709551616' is not a count from 0 to 18446744073709551615"),
    ("message sizes too many rows", put("message_sizes.csv", "bytes,messages\n" + "1,1\n" * (MAX_ROWS + 1)),
     "message_sizes.csv", f"more than {MAX_ROWS} rows"),
    ("message sizes /dev/zero", replace_with("message_sizes.csv", lambda p: p.symlink_to("/dev/zero")),
     "message_sizes.csv", "not a regular file"),
    ("message sizes too large", replace_with("message_sizes.csv", sparse(MAX_DATA_BYTES + 1)),
     "message_sizes.csv", f"larger than {MAX_DATA_BYTES} bytes, the limit for this file"),
]


@pytest.fixture
def job(native_run, tmp_path) -> Path:
    copy = tmp_path / "job"
    shutil.copytree(native_run, copy, ignore=shutil.ignore_patterns("report"))
    return copy


def assert_refused(p: subprocess.CompletedProcess, path: Path, problem: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2 and p.stdout == "", p
    assert p.stderr.startswith(f"openscc: {path}: {problem}") and p.stderr.count("\n") == 1, p.stderr


@pytest.mark.parametrize("change, name, problem", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_job_directory(job, native_run, tmp_path, change, name, problem):
    change(job)
    assert_refused(openscc("report", job, cwd=tmp_path), job / name, problem)
    # compare names whichever side is bad
    for a, b in ((native_run, job), (job, native_run)):
        assert_refused(openscc("compare", a, b, "-o", tmp_path / "cmp", cwd=tmp_path), job / name, problem)


def test_what_is_not_a_job_directory(tmp_path):
    assert_refused(openscc("report", tmp_path / "none", cwd=tmp_path), tmp_path / "none", "no such directory")
    (tmp_path / "file").write_text("x")
    assert_refused(openscc("report", tmp_path / "file", cwd=tmp_path), tmp_path / "file", "not a directory")
    assert_refused(openscc("compare", tmp_path, tmp_path / "none", cwd=tmp_path), tmp_path / "summary.json",
                   "no such file")


def test_output_is_never_written_through_a_file_or_symlink(job, native_run, tmp_path):
    (tmp_path / "file").write_text("keep")
    assert_refused(openscc("report", job, "-o", tmp_path / "file", cwd=tmp_path), tmp_path / "file", "not a directory")
    assert_refused(openscc("report", job, "-o", tmp_path / "file" / "out", cwd=tmp_path), tmp_path / "file",
                   "not a directory")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    symlinked = "is a symbolic link; openscc does not write through one"
    assert_refused(openscc("report", job, "-o", tmp_path / "link", cwd=tmp_path), tmp_path / "link", symlinked)
    (job / "report").symlink_to(tmp_path / "elsewhere")  # the default output directory
    assert_refused(openscc("report", job, cwd=tmp_path), job / "report", symlinked)
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").symlink_to(tmp_path / "file")
    assert_refused(openscc("report", job, "-o", out, cwd=tmp_path), out / "index.html", symlinked)
    assert_refused(openscc("compare", job, native_run, "-o", tmp_path / "file", cwd=tmp_path), tmp_path / "file",
                   "not a directory")
    assert (tmp_path / "file").read_text() == "keep" and not any((tmp_path / "elsewhere").iterdir())


def test_reproduce_inputs(tmp_path):
    (tmp_path / "file").write_text("keep")
    assert_refused(openscc("reproduce", "furst2012", "--build", tmp_path / "file", cwd=tmp_path), tmp_path / "file",
                   "no OpenSCC build with bin/rccerun and model-apps/ (run make build)")
    if not (BUILD / "model-apps").is_dir():
        pytest.skip(f"no OpenSCC build with model-apps in {BUILD} (make build)")
    assert_refused(openscc("reproduce", "furst2012", "--build", BUILD, "-o", tmp_path / "file", cwd=tmp_path),
                   tmp_path / "file", "not a directory")
    assert (tmp_path / "file").read_text() == "keep"


@pytest.mark.parametrize("package", ["matplotlib", "jinja2"])
def test_missing_plotting_package_is_named(job, tmp_path, package):
    """matplotlib and Jinja2 are imported only once the inputs are good: their absence is still a
    one-line message, not a traceback."""
    code = f"import sys; sys.modules[{package!r}] = None; from openscc.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.run([sys.executable, "-c", code, "report", str(job)], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p
    assert p.stderr.startswith(f"openscc: Python package {package} is missing: install matplotlib"), p

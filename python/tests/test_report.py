"""openscc: loading job directories, mesh routes, reports and comparisons."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest
from conftest import REPO

from openscc import cli
from openscc.files import PathError
from openscc.jobdir import bin_low, load, size_bin
from openscc.mesh import link_traffic, xy_route


def test_xy_route_goes_x_first():
    assert xy_route((0, 0), (2, 1)) == [((0, 0), (1, 0)), ((1, 0), (2, 0)), ((2, 0), (2, 1))]
    assert xy_route((3, 2), (3, 0)) == [((3, 2), (3, 1)), ((3, 1), (3, 0))]
    assert xy_route((1, 1), (1, 1)) == []


def test_link_traffic_adds_bytes_on_every_link_of_a_route():
    tiles = {0: (0, 0), 1: (0, 0), 2: (2, 0), 3: (2, 1)}
    traffic = link_traffic([(0, 2, 1, 100), (1, 3, 2, 10), (3, 0, 1, 7)], tiles)
    assert traffic[((0, 0), (1, 0))] == 110 and traffic[((2, 0), (2, 1))] == 10
    assert traffic[((2, 1), (1, 1))] == 7 and traffic[((0, 1), (0, 0))] == 7
    assert ((0, 0), (0, 0)) not in traffic  # same tile: no link


def test_load_reads_what_the_summary_names(native_run):
    run = load(native_run)
    assert run.job["nue"] == 4 and not run.modeled
    assert sum(m for _, _, m, _ in run.comm) == sum(u["msgs_sent"] for u in run.ues)
    assert sum(n for _, n in run.size_bins) == sum(u["msgs_sent"] for u in run.ues)


def test_load_checks_the_schema(native_run, tmp_path):
    doc = json.loads((native_run / "summary.json").read_text())
    doc["ues"][0]["msgs_sent"] = -1
    del doc["job"]["mesh"]
    (tmp_path / "summary.json").write_text(json.dumps(doc))
    with pytest.raises(PathError, match="does not match its schema: job: 'mesh' is a required property"):
        load(tmp_path)


def test_load_refuses_what_is_not_a_job_directory(tmp_path):
    with pytest.raises(PathError, match="summary.json: no such file"):
        load(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps({"schema": "other", "version": 9}))
    with pytest.raises(PathError, match="schema 'other' version 9"):
        load(tmp_path)
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(PathError, match="not valid JSON"):
        load(tmp_path)


def figures(index):
    html = index.read_text()
    return re.findall(r"<figcaption>([^<]*)</figcaption><img src=\"data:image/png;base64,", html), html


def test_report_of_a_native_run(native_run, tmp_path, capsys):
    out = tmp_path / "report"
    assert cli.main(["report", str(native_run), "-o", str(out)]) == 0
    index = out / "index.html"
    assert capsys.readouterr().out.strip() == str(index)
    titles, html = figures(index)
    assert titles == ["Mesh traffic", "Communication matrix", "Message sizes", "Per-UE breakdown"]
    assert "ui.perfetto.dev" in html and "stencil" in html
    for png in ("mesh_traffic.png", "comm_matrix.png", "message_sizes.png", "ue_breakdown.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_of_a_model_run_shows_power_and_energy(model_run):
    assert cli.main(["report", str(model_run)]) == 0  # default: JOBDIR/report
    titles, html = figures(model_run / "report" / "index.html")
    assert titles[-1] == "Power over virtual time" and "energy-delay product" in html
    assert (model_run / "report" / "power.png").exists()


def test_compare_puts_two_runs_side_by_side(native_run, model_run, tmp_path):
    out = tmp_path / "cmp"
    assert cli.main(["compare", str(native_run), str(model_run), "-o", str(out)]) == 0
    html = (out / "index.html").read_text()
    assert html.count("<figure>") == 9  # 4 figures of the native run, 5 of the model run
    assert "virtual time" in html and "A: " in html and "B: " in html


def test_cli_errors_name_the_directory(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err == f"openscc: {tmp_path / 'nothing'}: no such directory\n"
    with pytest.raises(SystemExit) as e:
        cli.main(["bogus"])
    assert e.value.code == 2


def test_link_traffic_equals_the_sum_over_every_route():
    """The difference-array sum in link_traffic against adding each route link by link."""
    rng = random.Random(12)
    for _ in range(200):
        w, h, n = rng.randint(1, 7), rng.randint(1, 5), rng.randint(1, 12)
        tiles = {u: (rng.randrange(w), rng.randrange(h)) for u in range(n)}
        comm = [(rng.randrange(n), rng.randrange(n), 1, rng.randint(1, 100)) for _ in range(rng.randint(0, 30))]
        expected = Counter()
        for src, dst, _, nbytes in comm:
            for link in xy_route(tiles[src], tiles[dst]):
                expected[link] += nbytes
        assert link_traffic(comm, tiles) == expected, (comm, tiles)


def test_message_sizes_fall_in_power_of_two_bins():
    assert [size_bin(n) for n in (0, 1, 2, 3, 4, 7, 8, 1023, 1024, (1 << 64) - 1)] == [0, 1, 2, 2, 3, 3, 4, 10, 11, 64]
    assert [bin_low(k) for k in (0, 1, 2, 3, 11, 64)] == [0, 1, 2, 4, 1024, 1 << 63]


def copy_job(run, parent, name="job"):
    job = parent / name
    shutil.copytree(run, job, ignore=shutil.ignore_patterns("report"))
    return job


def test_report_of_100000_distinct_message_sizes(native_run, tmp_path):
    """One bar per power-of-two bin: 100,000 sizes make 18 bars (0 and 1..99,999 in bins 0..17)."""
    job = copy_job(native_run, tmp_path)
    (job / "message_sizes.csv").write_text("bytes,messages\n" + "".join(f"{n},{n % 3 + 1}\n" for n in range(100000)))
    bins = load(job).size_bins
    assert [k for k, _ in bins] == list(range(18))
    assert dict(bins)[11] == sum(n % 3 + 1 for n in range(1024, 2048))
    assert sum(m for _, m in bins) == sum(n % 3 + 1 for n in range(100000))
    assert cli.main(["report", str(job), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "message_sizes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_of_the_largest_mesh(native_run, tmp_path):
    """32 x 32 tiles (1024 cores, rccerun's limit): the figure keeps its size."""
    job = copy_job(native_run, tmp_path)
    doc = json.loads((job / "summary.json").read_text())
    doc["job"]["mesh"].update(tiles_x=32, tiles_y=32, cores_per_tile=1)
    (job / "summary.json").write_text(json.dumps(doc))
    assert cli.main(["report", str(job), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "mesh_traffic.png").stat().st_size < 2_000_000


def test_names_that_are_not_utf8(native_run, tmp_path):
    """A job directory whose name is not UTF-8, and a program name that was not
    (escaped as a lone surrogate in summary.json): the report is written and
    its path printed as the file system has it."""
    job = copy_job(native_run, tmp_path, os.fsdecode(b"dir\xff"))
    doc = json.loads((job / "summary.json").read_text())
    doc["job"]["program"] = "prog\udcff"
    (job / "summary.json").write_text(json.dumps(doc))
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), PYTHONIOENCODING="utf-8:strict")
    p = subprocess.run([sys.executable, "-m", "openscc", "report", job], capture_output=True, env=env, timeout=120)
    # a fresh machine's first matplotlib import announces that it builds its font cache
    stderr = [ln for ln in p.stderr.splitlines() if not ln.startswith(b"Matplotlib is building the font cache")]
    assert p.returncode == 0 and stderr == [], p
    assert p.stdout == os.fsencode(job / "report" / "index.html") + b"\n"
    assert "prog\\udcff" in (job / "report" / "index.html").read_text()

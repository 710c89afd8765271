"""openscc: loading job directories, mesh routes, reports and comparisons."""
from __future__ import annotations

import json
import re

import pytest

from openscc import cli
from openscc.jobdir import JobDirError, load
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
    assert sum(n for _, n in run.sizes) == sum(u["msgs_sent"] for u in run.ues)


def test_load_checks_the_schema(native_run, tmp_path):
    doc = json.loads((native_run / "summary.json").read_text())
    doc["ues"][0]["msgs_sent"] = -1
    del doc["job"]["mesh"]
    (tmp_path / "summary.json").write_text(json.dumps(doc))
    with pytest.raises(JobDirError, match="does not match its schema: job: 'mesh' is a required property"):
        load(tmp_path)


def test_load_refuses_what_is_not_a_job_directory(tmp_path):
    with pytest.raises(JobDirError, match="no summary.json"):
        load(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps({"schema": "other", "version": 9}))
    with pytest.raises(JobDirError, match="schema 'other' version 9"):
        load(tmp_path)
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(JobDirError, match="not valid JSON"):
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
    assert cli.main(["report", str(tmp_path / "nothing")]) == 1
    assert f"openscc: {tmp_path / 'nothing'}: no summary.json" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli.main(["bogus"])
    assert e.value.code == 2

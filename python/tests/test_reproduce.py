"""openscc reproduce furst2012: a quick run of two experiments against a real build."""
from __future__ import annotations

import json

import pytest
from conftest import BUILD

from openscc import cli


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    if not (BUILD / "model-apps").is_dir():
        pytest.skip(f"no OpenSCC build with model-apps in {BUILD} (make build)")
    out = tmp_path_factory.mktemp("furst2012")
    assert cli.main(["reproduce", "furst2012", "--quick", "--experiments", "hops,power", "--build", str(BUILD),
                     "-o", str(out)]) == 0
    return out


def test_results_follow_the_paper(reproduced):
    r = json.loads((reproduced / "results.json").read_text())
    assert r["experiments"] == ["hops", "power"] and r["quick"] and r["runs"] == 5 + 5
    t = {int(h): v for h, v in r["hops"]["seconds"].items()}
    assert t[0] < t[1] < t[2] < t[3] < t[8]  # Fig. 5: farther pairs take longer
    assert r["power"]["share_1_pair_w"] == pytest.approx(31.616, rel=0.002)
    assert r["power"]["share_24_pairs_w"] == pytest.approx(50.768, rel=0.002)
    edp = {app: v["edp_js"] for app, v in r["power"]["24_pairs"].items()}
    assert set(edp) == {"share", "shift", "stencil", "pingpong"} and all(v > 0 for v in edp.values())


def test_files_of_the_reproduction(reproduced):
    table = (reproduced / "table.md").read_text()
    assert "| Share power, 1 pair (W) | 31.616 | 31.61" in table and "Stencil time grows with hops" in table
    html = (reproduced / "index.html").read_text()
    assert html.count("data:image/png;base64,") == 2
    assert (reproduced / "fig5_stencil_hops.png").exists() and (reproduced / "fig10_11_power_edp.png").exists()


def test_reproduce_errors(tmp_path, capsys):
    assert cli.main(["reproduce", "furst2012", "--build", str(tmp_path), "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (f"openscc: {tmp_path}: no OpenSCC build with bin/rccerun and model-apps/ "
                                       "(run make build)\n")
    with pytest.raises(SystemExit) as e:
        cli.main(["reproduce", "furst2012", "--experiments", "hops,nothing"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "other2099"])

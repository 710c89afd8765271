"""The A/B group of `make bench` (bench/openscc_bench/ab.py): baseline resolution, medians,
ratios and noise, the 3 % verdict and the results table.  Pure logic: nothing is timed."""
from __future__ import annotations

import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from openscc_bench import ab, ab_instructions  # noqa: E402
from openscc_bench.ab_markdown import ab_page  # noqa: E402
from openscc_bench.slots import take_medians  # noqa: E402

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def git(repo: Path, *argv: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org",
                           *argv], check=True, capture_output=True, text=True).stdout.strip()


def test_baseline_file_names_first_word_of_first_non_comment_line():
    assert ab.baseline_from_file("# comment\n\n  5513c9c  trailing words\nabcdef\n") == "5513c9c"
    assert ab.baseline_from_file("# only a comment\n\n") is None


def test_checked_in_baseline_is_the_commit_before_the_architecture_step():
    assert ab.default_baseline() == "5513c9c"


@needs_git
def test_resolve_baseline_in_a_git_checkout(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "f").write_text("x\n")
    git(tmp_path, "add", "f")
    git(tmp_path, "commit", "-q", "-m", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert ab.resolve_baseline(head[:7], tmp_path) == head
    assert ab.resolve_baseline("HEAD", tmp_path) == head
    with pytest.raises(ab.Skip, match=r"^unknown revision 'no-such-rev'$"):
        ab.resolve_baseline("no-such-rev", tmp_path)


@needs_git
def test_resolve_baseline_outside_a_git_checkout(tmp_path):
    with pytest.raises(ab.Skip, match=r"is not a git checkout \(.+\)$"):
        ab.resolve_baseline("5513c9c", tmp_path)


@needs_git
def test_export_tree_unpacks_the_revision_not_the_work_tree(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "f").write_text("committed\n")
    git(repo, "add", "f")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "f").write_text("edited, not committed\n")
    sha = git(repo, "rev-parse", "HEAD")
    ab.export_tree(sha, tmp_path / "out", repo)
    assert (tmp_path / "out" / "f").read_text() == "committed\n"
    assert git(repo, "status", "--porcelain") == "M f"  # the repository is left as it was


def test_cache_settings_take_compiler_and_flags():
    text = ("# comment\nCMAKE_BUILD_TYPE:STRING=Release\nCMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\n"
            "CMAKE_C_FLAGS:STRING=\nOPENSCC_SANITIZE:BOOL=OFF\nCMAKE_CXX_FLAGS:STRING=-g\n")
    assert ab.cache_settings(text) == {"CMAKE_BUILD_TYPE": "Release", "CMAKE_C_COMPILER": "/usr/bin/cc",
                                       "CMAKE_C_FLAGS": "", "OPENSCC_SANITIZE": "OFF"}


def test_jobs_alternate_current_and_baseline_over_the_foundation_rows():
    args = Namespace(ues=48, time_box=0.2, min_iters=3)
    jobs = ab.make_jobs(args, ab.SIDES, ab.AB_GROUPS)
    assert [j["name"] for j in jobs] == ["pingpong", "collective_2", "collective_48", "launch_48"]
    assert all(j["impls"] == ["current", "baseline"] for j in jobs)
    ids = [t["id"] for t in ab.ab_tests(48)]
    assert "pingpong_8" in ids and "pingpong_8192" in ids and "allreduce_48" in ids and "launch_48" in ids


def filled(tid: str, current: list[float], baseline: list[float], probes=None) -> dict:
    """A test with the given runs in repeat order (probes: the host-floor probe of each run)."""
    t = next(t for t in ab.ab_tests(48) if t["id"] == tid)
    for side, values in (("current", current), ("baseline", baseline)):
        for rep, v in enumerate(values):
            p = probes[rep] if probes else None
            t["results"][side]["repeats"].append({"repeat": rep, "value": v, "host_floor_us": p,
                                                  "host_floor_after_us": p})
    take_medians([t])
    return t


def test_ratio_of_medians_and_halves_noise():
    t = filled("pingpong_8", current=[1.02, 1.00, 1.04, 1.01], baseline=[1.00, 1.00, 1.10, 1.00])
    row = ab.compare(t, None)
    # medians 1.015 / 1.0; baseline halves: median(1.00, 1.10) = 1.05 vs median(1.00, 1.00) = 1.00
    assert row["current"] == pytest.approx(1.015) and row["baseline"] == pytest.approx(1.0)
    assert row["ratio"] == pytest.approx(1.015)
    assert row["noise"] == pytest.approx(0.05)
    assert row["within_noise"] is True
    assert ab.bound_verdict(row) == "within 3 % (+1.5 %; noise ±5.0 %)"


def test_regression_beyond_noise_and_bound():
    t = filled("pingpong_8", current=[1.10, 1.10, 1.10, 1.10], baseline=[1.00, 1.01, 1.01, 1.00])
    row = ab.compare(t, None)
    assert row["ratio"] == pytest.approx(1.10 / 1.005)
    assert row["noise"] == pytest.approx(0.0)
    assert row["within_noise"] is False
    assert ab.bound_verdict(row) == "regressed by 9.5 % (bound 3 %; noise ±0.0 %)"


def test_a_faster_current_is_judged_symmetrically():
    t = filled("allreduce_2", current=[0.50, 0.50], baseline=[1.00, 1.00])
    row = ab.compare(t, None)
    assert row["ratio"] == pytest.approx(0.5) and row["within_noise"] is False


def test_bound_is_judged_per_host_state_when_runs_mixed_them():
    row = {"ratio": 1.40, "noise": 2.2, "states": {"fast": 1.131, "slow": 1.024}}
    assert ab.bound_verdict(row) == "regressed by 13.1 % in a host state (fast +13.1 %, slow +2.4 %; bound 3 %)"
    row["states"] = {"fast": 1.01, "slow": 1.02}
    assert ab.bound_verdict(row) == "within 3 % in each host state (fast +1.0 %, slow +2.0 %; bound 3 %)"
    row["states"] = {"slow": 1.024}  # one state: its ratio, with the row's noise
    assert ab.bound_verdict(row) == "within 3 % (+2.4 %; noise ±220.0 %)"


def test_failed_side_leaves_the_row_unmeasured():
    t = filled("pingpong_8", current=[1.0], baseline=[])
    row = ab.compare(t, None)
    assert row["ratio"] is None and row["within_noise"] is None
    assert ab.bound_verdict(row) == "not measured"
    assert ab.bound_verdict(None) == "not measured"


def test_rows_split_by_host_state():
    # runs alternate between a fast (0.04 us) and a slow (0.16 us) cache-line probe
    probes = [0.04, 0.16, 0.04, 0.16]
    t = filled("pingpong_8", current=[1.0, 3.0, 1.0, 3.0], baseline=[1.0, 2.0, 1.0, 2.0], probes=probes)
    rows = ab.rows_of([t])
    assert rows[0]["states"] == {"fast": pytest.approx(1.0), "slow": pytest.approx(1.5)}


def page_doc(t: dict, rows: list[dict], **parts) -> dict:
    """An ab.json document around one test and its rows, as run_group writes it."""
    return {"command": "python3 bench/run_bench.py", "elapsed_s": 12.0,
            "host": {"date": "d", "nproc": 2, "cpu_model": "cpu", "os": "os", "kernel": "k",
                     "mpich_version": "m", "openmpi_version": "o"},
            "config": {"repeat": 4, "quick": False, "time_box_s": 0.2, "min_iters": 3,
                       "baseline": {"revision": "5513c9c", "commit": "5513c9c4c577fade5c3f08ec84510daa02a5c6d6",
                                    "cmake": {"CMAKE_BUILD_TYPE": "Release"}}},
            "tests": [t], "rows": rows, "bound": {"verdict": ab.bound_verdict(rows[0])}, **parts}


def test_page_shows_the_verdict_and_one_line_per_row():
    t = filled("pingpong_8", current=[1.02, 1.00, 1.04, 1.01], baseline=[1.00, 1.00, 1.10, 1.00])
    rows = [ab.compare(t, None)]
    page = ab_page(page_doc(t, rows)).splitlines()
    assert "**8 B half round trip: within 3 % (+1.5 %; noise ±5.0 %).**" in page
    assert ("| Test | baseline 5513c9c4c577 | current | current / baseline | noise (A/A) | within noise "
            "| by host state |") in page
    assert "| pingpong half RTT, 8 B (µs) | 1.00 | 1.02 | 1.015x | ±5.0 % | yes | — |" in page
    assert not any(line.startswith("## Errors") for line in page)


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="needs the repository's git checkout")
def test_unknown_baseline_skips_the_group_with_one_line(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run_bench.py"), "--tests", "ab",
                        "--baseline", "no-such-rev", "--build", str(tmp_path), "--ab-out", str(tmp_path / "ab")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "A/B group skipped: unknown revision 'no-such-rev'" in p.stdout.splitlines()
    assert "Traceback" not in p.stdout + p.stderr
    assert not (tmp_path / "ab.json").exists()


# --- the counted row (ab_instructions.py) ---------------------------------------------------------

ANNOTATED = """\
--------------------------------------------------------------------------------
Ir                    file:function
--------------------------------------------------------------------------------
16,476,828 (100.0%)  ???:counted_round_trips [/tmp/roundtrip_count]
 4,040,967 (24.53%)  ???:hw_wait_cond [/tmp/roundtrip_count]
 3,900,000 (23.67%)  ???:hw_wait_cond'2 [/tmp/roundtrip_count]
"""


def test_counted_row_takes_the_waits_out_of_the_total():
    total = ab_instructions.total_instructions("events: Ir\nsummary: 16476828\n")
    waited = ab_instructions.inclusive_of(ANNOTATED, "hw_wait_cond")
    assert (total, waited) == (16476828, 4040967)
    assert ab_instructions.per_round_trip(total, waited, 20000) == pytest.approx(621.79305)
    assert ab_instructions.inclusive_of(ANNOTATED, "hw_wait") == 0  # whole names only
    assert ab_instructions.inclusive_of(ANNOTATED.replace("hw_wait_cond [", "other ["), "hw_wait_cond") == 3900000


def test_counted_row_without_a_summary_is_an_error():
    with pytest.raises(ab_instructions.CountError, match="no summary line"):
        ab_instructions.total_instructions("events: Ir\n")


def test_counted_row_is_skipped_without_valgrind(tmp_path, monkeypatch):
    monkeypatch.setattr(ab_instructions.shutil, "which", lambda tool: None)
    row = ab_instructions.measure({"current": (tmp_path / "rccerun", tmp_path / "p"),
                                   "baseline": (tmp_path / "rccerun", tmp_path / "p")}, tmp_path)
    assert row["status"] == "skipped"
    assert row["reason"] == "valgrind, callgrind_annotate not installed"
    assert ab_instructions.verdict(row) == "not counted (valgrind, callgrind_annotate not installed)"


def test_page_shows_the_counted_row():
    t = filled("pingpong_8", current=[1.0, 1.0], baseline=[1.0, 1.0])
    rows = [ab.compare(t, None)]
    page = ab_page(page_doc(t, rows, instructions={"status": "ok", "repeat": 3, "baseline": 806.2,
                                                   "current": 631.0, "ratio": 631.0 / 806.2}))
    assert ("**Instructions of an 8 B round trip outside waiting (callgrind, UE 0 of "
            "`bench/rcce/roundtrip_count.c`): baseline 806, current 631, current / baseline 0.783x "
            "(median of 3 runs each).**") in page


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None,
                    reason="valgrind not installed (scripts/install-deps.sh installs it)")
def test_counted_run_of_this_tree(build, tmp_path):
    if build.asan:
        pytest.skip("valgrind does not run AddressSanitizer programs")
    program = tmp_path / "roundtrip_count"
    subprocess.run([str(build.rccecc), str(ROOT / "bench" / "rcce" / "roundtrip_count.c"), "-o", str(program)],
                   check=True, capture_output=True, timeout=300)
    wrapper = ab_instructions.write_wrapper(tmp_path)
    per_trip = ab_instructions.count_once(build.rccerun, program, wrapper, tmp_path / "cg.out", 2000)
    # a send and a receive of 8 bytes: hundreds of instructions, not tens and not a wait loop's millions
    assert 100 < per_trip < 5000

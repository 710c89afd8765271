"""Monitoring (rccerun --trace, docs/monitoring.md): what each level writes into
the job directory, and that the files agree with each other and with what the
programs did."""
from __future__ import annotations

import collections
import csv
import json

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

LEVELS = ["counters", "messages", "targets", "sizes", "timeline"]
FILES = {"targets": "comm_matrix.csv", "sizes": "message_sizes.csv", "timeline": "trace.json"}


def traced(build, scratch, nue, app, *args, level="timeline", opts=()):
    job = scratch / f"job-{level}"
    res = rccerun(build, "-nue", str(nue), "--trace", level, "--job-dir", str(job), *opts, build.app(app), *args,
                  cwd=scratch)
    assert res.rc == lib.RC_OK, res
    return res, lib.check_summary(job / "summary.json"), job


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_writes_its_files(build, scratch, level):
    res, s, job = traced(build, scratch, 4, "stencil", "8", "5", level=level)
    assert s["job"]["trace"] == level and s["job"]["model"] == "none"
    assert f"rccerun: trace: summary in {job}/summary.json" in res.err
    rank = LEVELS.index(level)
    for lvl, name in FILES.items():
        assert (job / name).exists() == (rank >= LEVELS.index(lvl)), name
    assert set(s["files"].values()) == {n for lvl, n in FILES.items() if rank >= LEVELS.index(lvl)}
    has_counts = "msgs_sent" in s["ues"][0]
    assert has_counts == (rank >= LEVELS.index("messages"))
    assert all(u["barriers"] > 0 for u in s["ues"])


def test_no_job_directory_without_trace_or_model(build, scratch):
    res = rccerun(build, "-nue", "2", build.app("hello"), cwd=scratch)
    assert res.rc == lib.RC_OK and not (scratch / "runs").exists(), res


def test_default_job_directory_is_under_runs(build, scratch):
    res = rccerun(build, "-nue", "2", "--trace", "counters", build.app("hello"), cwd=scratch)
    assert res.rc == lib.RC_OK, res
    (job,) = (scratch / "runs").iterdir()
    assert lib.check_summary(job / "summary.json")["job"]["id"] == job.name


def test_comm_matrix_totals_equal_message_counts(build, scratch):
    _, s, job = traced(build, scratch, 8, "gather_server", level="targets")
    matrix = rows(job / "comm_matrix.csv")
    sent, received = collections.Counter(), collections.Counter()
    sent_bytes = collections.Counter()
    for r in matrix:
        sent[int(r["src"])] += int(r["messages"])
        received[int(r["dst"])] += int(r["messages"])
        sent_bytes[int(r["src"])] += int(r["bytes"])
    for u in s["ues"]:
        assert sent[u["ue"]] == u["msgs_sent"] and received[u["ue"]] == u["msgs_recv"], u
        assert sent_bytes[u["ue"]] == u["bytes_sent"], u
    assert any(int(r["dst"]) == 0 for r in matrix)  # every client reports to UE 0


def test_message_sizes_cover_every_message(build, scratch):
    _, s, job = traced(build, scratch, 2, "pingpong", "4096", "3", level="sizes")
    sizes = {int(r["bytes"]): int(r["messages"]) for r in rows(job / "message_sizes.csv")}
    assert sum(sizes.values()) == sum(u["msgs_sent"] for u in s["ues"])
    assert sum(b * n for b, n in sizes.items()) == sum(u["bytes_sent"] for u in s["ues"])
    assert {1, 2, 1024, 4096} <= set(sizes)


def check_chrome_trace(path, summary):
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    depth = collections.Counter()
    for e in events:
        if e["ph"] == "B":
            depth[e["tid"]] += 1
        elif e["ph"] == "E":
            depth[e["tid"]] -= 1
            assert depth[e["tid"]] >= 0, e
    assert all(d == 0 for d in depth.values())
    starts = collections.Counter(e["id"] for e in events if e["ph"] == "s")
    ends = collections.Counter(e["id"] for e in events if e["ph"] == "f")
    assert starts == ends and sum(starts.values()) == sum(u["msgs_sent"] for u in summary["ues"])
    names = {e["name"] for e in events if e["ph"] == "B"}
    tracks = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    return doc, names, tracks


def test_timeline_is_a_chrome_trace_with_message_flows(build, scratch):
    _, s, job = traced(build, scratch, 4, "stencil", "8", "5")
    _, names, tracks = check_chrome_trace(job / "trace.json", s)
    assert {"RCCE_send", "RCCE_recv", "RCCE_barrier"} <= names
    assert tracks == {f"UE {u} (core {u}, tile {u // 2},0)" for u in range(4)}


def test_timeline_in_model_mode_uses_virtual_time(build, scratch):
    _, s, job = traced(build, scratch, 2, "pingpong", "1024", "3", opts=["--model", "scc"])
    doc, _, _ = check_chrome_trace(job / "trace.json", s)
    assert "virtual time" in doc["traceEvents"][0]["args"]["name"]
    finalize = [e for e in doc["traceEvents"] if e["name"] == "RCCE_finalize" and e["ph"] in "BE"]
    assert len(finalize) == 4 and all(e["ts"] > 0 for e in finalize)  # its return too, after the clock stopped
    last = max(e["ts"] for e in doc["traceEvents"] if "ts" in e)
    assert 0 < last <= s["chip_totals"]["seconds"] * 1e6 * (1 + 1e-8)  # the summary has 9 digits
    assert s["files"]["power"] == "power.csv" and (job / "power.csv").exists()


def test_full_logs_drop_events_and_say_so(build, scratch):
    res, s, job = traced(build, scratch, 2, "pingpong", "64", "5", opts=["--trace-events", "10"])
    assert "events did not fit the logs (10 per UE; rccerun --trace-events N)" in res.err, res
    assert all(u["events_dropped"] == u["events"] - 10 > 0 for u in s["ues"])
    json.loads((job / "trace.json").read_text())  # still a valid document


@pytest.mark.parametrize("args,message", [
    (["--trace", "verbose"], "--trace takes off, counters, messages, targets, sizes or timeline, got 'verbose'"),
    (["--trace-events", "0"], "--trace-events needs a number of events from 1 to 1073741824, got '0'"),
])
def test_bad_trace_options(build, scratch, args, message):
    res = rccerun(build, "-nue", "2", *args, build.app("hello"), cwd=scratch)
    assert res.rc == lib.RC_USAGE and message in res.err, res

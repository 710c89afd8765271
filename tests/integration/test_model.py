"""Model mode (rccerun --model scc, docs/model.md): virtual time seen by
programs, the job summary, the power sensor, DVFS latencies, and the errors of
the model's options.  Programs are counted builds (rccecc --model-build), so
their virtual times do not depend on the host."""
from __future__ import annotations

import csv
import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

TILE_MHZ = 533  # the scc chip's default tile clock (divider 3)


def model_run(build, scratch, nue, program, *args, opts=()):
    job = scratch / "job"
    res = rccerun(build, "-nue", str(nue), "--model", "scc", "--job-dir", str(job), "--replace-job-dir", *opts,
                  program, *args)
    assert res.rc == lib.RC_OK, res
    return res, lib.check_summary(job / "summary.json"), job


def test_summary_json_and_printout(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    res, s, job = model_run(build, scratch, 4, prog, "barrier")
    assert s["schema"] == "openscc-summary" and s["version"] == 1
    assert s["job"]["nue"] == 4 and s["job"]["chip"] == "scc" and s["job"]["args"] == ["barrier"]
    assert s["job"]["computation"] == "counted"
    assert [u["ue"] for u in s["ues"]] == [0, 1, 2, 3]
    for u in s["ues"]:  # every picosecond is computation, communication or waiting
        assert u["seconds"] == pytest.approx(u["compute_s"] + u["comm_s"] + u["wait_s"], rel=1e-9)
    t = s["chip_totals"]
    assert t["seconds"] == pytest.approx(max(u["seconds"] for u in s["ues"]))
    assert t["energy_j"] == pytest.approx(t["dynamic_j"] + t["static_j"] + t["uncore_j"])
    assert t["average_w"] == pytest.approx(t["energy_j"] / t["seconds"])
    assert t["edp_js"] == pytest.approx(t["energy_j"] * t["seconds"])
    rows = list(csv.reader((job / "power.csv").open()))
    assert rows[0] == ["start_s", "watts"] and len(rows) > 1
    assert all(float(w) > 25 for _, w in rows[1:])
    err = "\n".join(res.err_lines)
    assert re.search(r"rccerun: model: [\d.]+ s virtual on chip scc, [\d.]+ J, [\d.]+ W average", err), res
    assert "% compute" in err and f"summary in {job}/summary.json" in err
    assert "varies from run to run" not in err  # a counted build


def test_measured_region_spans_the_programs_clock_reads(build, compile_program, scratch):
    """docs/model.md "Measured region": from the earliest first to the latest last RCCE_wtime of any UE."""
    prog = compile_program(build, "model", "--model-build")
    res, s, _ = model_run(build, scratch, 4, prog, "barrier")
    reads = {int(u): (float(b), float(a)) for u, b, a in re.findall(r"ue (\d+) before (\S+) after (\S+)", res.out)}
    assert len(reads) == 4
    for u in s["ues"]:
        assert u["clock_reads"] == 2
        assert (u["first_read_s"], u["last_read_s"]) == pytest.approx(reads[u["ue"]], abs=1e-9)
    r, t = s["measured_region"], s["chip_totals"]
    assert r["start_s"] == pytest.approx(min(b for b, _ in reads.values()), abs=1e-9)
    assert r["start_s"] + r["seconds"] == pytest.approx(max(a for _, a in reads.values()), abs=1e-9)
    assert 0 < r["seconds"] < t["seconds"] and 0 < r["energy_j"] < t["energy_j"]
    assert r["energy_j"] == pytest.approx(r["dynamic_j"] + r["static_j"] + r["uncore_j"])
    assert r["average_w"] == pytest.approx(r["energy_j"] / r["seconds"])
    line = re.search(r"measured region \(first to last RCCE_wtime/MPI_Wtime\): ([\d.]+) s from ([\d.]+) s", res.err)
    assert line and float(line[1]) == pytest.approx(r["seconds"], abs=1e-6), res


def test_no_measured_region_without_clock_reads(build, scratch):
    res, s, _ = model_run(build, scratch, 2, build.app("hello"))
    assert "measured_region" not in s and all(u["clock_reads"] == 0 for u in s["ues"])
    assert "measured region" not in res.err


def test_stencil_verifies_after_its_clock_stops(build, scratch):
    """The serial reference runs after RCCE_finalize: the job ends with the timed loop's checksum, and
    the loop's own time (the program's max over UEs) is the measured region."""
    res, s, _ = model_run(build, scratch, 2, lib.counted_app(build, "stencil"), "32", "50")
    assert "stencil: OK" in res.out, res
    timed = float(re.search(r"([\d.]+) s$", res.out.splitlines()[0])[1])
    assert s["measured_region"]["seconds"] == pytest.approx(timed, rel=1e-3)
    # the serial check redoes both UEs' sweeps, about twice the loop: none of it is on the clock
    r = s["measured_region"]
    assert s["chip_totals"]["seconds"] - (r["start_s"] + r["seconds"]) < 0.5 * r["seconds"]


def test_host_time_runs_say_they_vary(build, scratch):
    res, _, _ = model_run(build, scratch, 2, build.app("hello"))
    assert "computation is host time x 125 and varies from run to run" in res.err, res


def test_barrier_leaves_at_latest_arrival(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    res, _, _ = model_run(build, scratch, 6, prog, "barrier")
    got = [(float(b), float(a)) for b, a in re.findall(r"ue \d+ before (\S+) after (\S+)", res.out)]
    assert len(got) == 6
    latest = max(b for b, _ in got)
    assert latest > min(b for b, _ in got)  # UE u computed u units first
    assert all(latest < a < latest + 1e-6 for _, a in got), got


def test_same_virtual_times_on_every_run(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    outs = {"".join(sorted(model_run(build, scratch, 6, prog, "barrier")[0].out.splitlines(True))) for _ in range(2)}
    assert len(outs) == 1, outs


def test_lock_holder_releases_before_next_acquires(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    res, _, _ = model_run(build, scratch, 2, prog, "lock")
    t = {int(u): (float(a), float(r)) for u, a, r in re.findall(r"ue (\d) acquired (\S+) released (\S+)", res.out)}
    assert t[1][0] >= t[0][1], t


def test_mpb_put_costs_lines_by_distance(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    near, _, _ = model_run(build, scratch, 2, prog, "put", opts=["--cores", "0,1"])
    far, _, _ = model_run(build, scratch, 2, prog, "put", opts=["--cores", "0,47"])
    t_near = float(re.search(r"put (\S+)", near.out)[1])
    t_far = float(re.search(r"put (\S+)", far.out)[1])
    assert t_near == pytest.approx(3 * 39 / (TILE_MHZ * 1e6), rel=1e-3)  # 3 lines to the own tile (ref 3: 39)
    assert t_far > t_near


def test_dvfs_waits_for_the_voltage_and_the_sensor_sees_it(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    res, s, _ = model_run(build, scratch, 1, prog, "dvfs")
    m = re.search(r"dvfs rc (\d+) before (\S+) after (\S+) watts (\S+) (\S+)", res.out)
    assert m and m[1] == "0", res
    before, after, w0, w1 = map(float, m.groups()[1:])
    # ref 2: a voltage change takes about 1e6 core cycles; the divider went down first (200 MHz).
    assert after - before == pytest.approx(1e6 / 200e6, rel=1e-3)
    # the sensor (docs/model.md "Power sensor"): w0, in the first 40 us, shows the chip at rest; w1
    # samples the voltage wait, where the divider is 8 already (200 MHz) and the voltage still 0.8 V
    # (it settles at the end): the uncore, six domains' static power and one core polling (activity
    # 0.9), 27.265 + 3.518 + 0.00141793 x 0.8^2 x 200 x 0.9 W
    assert w0 == pytest.approx(30.783, abs=0.001)
    assert w1 == pytest.approx(27.2653 + 3.5180 + 0.00141793 * 0.64 * 200 * 0.9, abs=0.001)


def test_a_domains_cores_switch_when_their_clocks_reach_the_masters_change(build, compile_program, scratch):
    """docs/model.md "DVFS": UE 1 works at a virtual time before UE 0 (its domain's master) lowered the
    clock from divider 3 to 16, though on the host after it: that work runs at the old frequency, the
    same work after a barrier (past the change) at the new one."""
    prog = compile_program(build, "model", "--model-build")
    res, _, _ = model_run(build, scratch, 2, prog, "dvfs_later")
    before, after = map(float, re.search(r"ue 1 units (\S+) (\S+)", res.out).groups())
    assert after / before == pytest.approx(16 / 3, rel=0.01), res


def test_sensor_reads_the_model_and_nothing_natively(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    res, _, _ = model_run(build, scratch, 2, prog, "sensor")
    # in the reader's first 40 us the sensor shows the chip at rest (docs/model.md "Power sensor"): the
    # uncore and six domains' static power at 0.8 V, 27.265 + 3.518 W, every core idle (halted)
    assert float(re.search(r"sensor (\S+)", res.out)[1]) == pytest.approx(30.783, abs=0.001)
    native = rccerun(build, "-nue", "2", prog, "sensor", cwd=scratch)
    assert native.rc == lib.RC_OK and "sensor -1.0000" in native.out, native


def test_sensor_readings_repeat_however_the_host_runs_the_ues(build, compile_program, scratch):
    """The sensor reads a window once every UE is past it (docs/model.md "Power sensor"): 8 UEs computing
    unequal shares, putting into each other's MPBs and meeting at barriers, one of them lowering its
    domain's clock, read the same in every run of a counted build; the lower clock shows in the last round."""
    prog = compile_program(build, "model", "--model-build")
    outputs = set()
    for _ in range(3):
        res, _, _ = model_run(build, scratch, 8, prog, "sensor_busy", opts=["--cores", "0,1,2,3,4,5,6,24"])
        outputs.add(res.out)
    assert len(outputs) == 1, outputs
    w = {(int(r), when): float(v) for r, when, v in re.findall(r"sensor (\d) (mid|end) (\S+)", outputs.pop())}
    assert len(w) == 6
    rest = 30.783  # the chip at rest (above); 125 W: every core executing at 1.3 V
    assert all(rest < v < 125 for v in w.values()), w
    assert w[(2, "mid")] < w[(0, "mid")], w  # UE 7's core at divider 6 from round 1 on


@pytest.mark.parametrize("flags,published", [("normal", 2.4), ("tagged", 1.3)])
def test_ping_pong_latency_of_seed_004_table_1(build, scratch, flags, published):
    prog = build.dir / "validate" / "ping_latency"
    res, _, _ = model_run(build, scratch, 2, prog, "8", "500", opts=["--scheme", "rplg", "--flags", flags])
    assert float(re.search(r"half_rtt_us (\S+)", res.out)[1]) == pytest.approx(published, rel=0.01)


@pytest.mark.parametrize("flags", ["normal", "tagged"])
def test_any_source_receives_cost_what_directed_ones_do(build, scratch, flags):
    """OpenSCC's per-sender sent flags serve as [SCC-2BOARD]'s probe flags (docs/ircce.md): a ping-pong
    whose receives take iRCCE_ANY_SOURCE costs what a directed one does (make validate's probe-flag rows
    list the paper's extra cost as a known gap)."""
    prog = build.dir / "validate" / "ping_latency"
    times = []
    for extra in ([], ["any"]):
        res, _, _ = model_run(build, scratch, 2, prog, "8", "300", *extra, opts=["--scheme", "rplg", "--flags", flags])
        times.append(float(re.search(r"half_rtt_us (\S+)", res.out)[1]))
    assert times[1] == pytest.approx(times[0], rel=1e-3), times


@pytest.mark.parametrize("nue,watts", [(2, 31.616), (48, 50.768)])
def test_share_power_of_seed_002(build, scratch, nue, watts):
    lib.skip_without_memory_hooks(build)  # Share's activity is mostly its shared-memory accesses
    _, s, _ = model_run(build, scratch, nue, lib.counted_app(build, "share"), "5", "1024", "--pairs")
    assert s["chip_totals"]["average_w"] == pytest.approx(watts, rel=0.002)


def test_power_follows_what_the_cores_do(build, scratch):
    """[FURST-2011] Fig. 10: at 24 pairs Share, heavy in memory accesses and low in IPC, draws less than
    Stencil, which computes (docs/model.md "Power model")."""
    lib.skip_without_memory_hooks(build)  # Share's activity is mostly its shared-memory accesses
    watts = {app: model_run(build, scratch, 48, lib.counted_app(build, app), *args)[1]["chip_totals"]["average_w"]
             for app, args in (("share", ("5", "1024", "--pairs")), ("stencil", ("32", "30", "8", "--pairs")))}
    assert watts["share"] < watts["stencil"]


def test_uncounted_program_runs_on_host_time(build, scratch):
    _, s, _ = model_run(build, scratch, 2, build.app("stencil"), "8", "20")
    assert s["job"]["host_clock"] == "wall" and s["job"]["computation"] == "host-time"
    assert s["chip_totals"]["seconds"] > 0
    assert all(u["compute_s"] >= 0 and u["msgs_sent"] > 0 for u in s["ues"])


@pytest.mark.parametrize("args,message", [
    (["--model", "fast"], "--model takes scc or none, got 'fast'"),
    (["--compute-slowdown", "-1"], "--compute-slowdown needs a number from 0 to 1000, got '-1'"),
    (["--compute-slowdown", "x"], "--compute-slowdown needs a number from 0 to 1000, got 'x'"),
])
def test_bad_model_options(build, scratch, args, message):
    res = rccerun(build, "-nue", "2", *args, build.app("hello"), cwd=scratch)
    assert res.rc == lib.RC_USAGE and message in res.err, res


def test_unwritable_job_dir_is_an_error(build, scratch):
    blocker = scratch / "file"
    blocker.write_text("not a directory")
    res = rccerun(build, "-nue", "2", "--model", "scc", "--job-dir", str(blocker / "job"), build.app("hello"),
                  cwd=scratch)
    assert res.rc == 4 and "cannot create job directory" in res.err, res


def test_chip_file_changes_the_model(build, compile_program, scratch):
    prog = compile_program(build, "model", "--model-build")
    chip = scratch / "slow-mpb.chip"
    chip.write_text("base = scc\nlat_mpb_write_local = 78\n")
    res, _, _ = model_run(build, scratch, 2, prog, "put", opts=["--cores", "0,1", "--chip", str(chip)])
    assert float(re.search(r"put (\S+)", res.out)[1]) == pytest.approx(3 * 78 / (TILE_MHZ * 1e6), rel=1e-3)


def test_single_copy_is_charged_as_the_chunks(build, scratch):
    """The host's one-copy shortcut for large messages costs what the chunks through the MPB cost."""
    pingpong = lib.counted_app(build, "pingpong")
    row = re.compile(r"^\s+(\d+)\s+\d+\s+(\d+\.\d+)\s", re.M)
    times = []
    for opts in ([], ["--no-single-copy"]):
        res, _, _ = model_run(build, scratch, 2, pingpong, "262144", "5", opts=["--cores", "0,47", *opts])
        times.append({int(b): float(t) for b, t in row.findall(res.out)})
    one_copy, chunks = times
    assert one_copy.keys() == chunks.keys() and 262144 in one_copy
    for size in one_copy:
        assert one_copy[size] == pytest.approx(chunks[size], rel=0.01), size


def virtual_outcome(summary: dict) -> tuple:
    """What a model run predicts: the chip's totals and every UE's times and energy."""
    keys = ("seconds", "compute_s", "comm_s", "wait_s", "dynamic_j")
    return (tuple(sorted(summary["chip_totals"].items())),
            tuple(tuple(u[k] for k in keys) for u in summary["ues"]))


@pytest.mark.parametrize("app,nue,args", [
    ("stencil", 48, ("32", "30")),
    ("share", 48, ("5", "1024", "--pairs")),
])
def test_contended_counted_runs_repeat_exactly(build, scratch, app, nue, args):
    """docs/model.md "Contention": the others' use of the shared resources is read in virtual-time
    order, so a contended counted run predicts the same on every run, to the picosecond, however the
    host interleaves its 48 UEs; and the contention is there: without it the prediction differs."""
    lib.skip_without_memory_hooks(build)
    program = lib.counted_app(build, app)
    outcomes = {virtual_outcome(model_run(build, scratch, nue, program, *args)[1]) for _ in range(3)}
    assert len(outcomes) == 1, outcomes
    free = scratch / "no-contention.chip"
    free.write_text("base = scc\nlat_mc_service_ns = 0\nlat_link_service_cycles = 0\nlat_mpb_service_cycles = 0\n")
    _, s, _ = model_run(build, scratch, nue, program, *args, opts=["--chip", str(free)])
    assert s["chip_totals"]["seconds"] < dict(next(iter(outcomes))[0])["seconds"]


@pytest.mark.parametrize("counted", [False, True])
def test_a_ue_spinning_on_memory_does_not_stop_the_others(build, compile_program, scratch, counted):
    """docs/model.md "Contention": UE 0 waits for UE 1 in a loop on shared memory, with no runtime call,
    while UE 1's puts need the others' use of the MPB ports and links.  A counted build's loop moves its
    clock (its loads are charged); a plain build's does not, and its UEs read the others' use as it is
    (no wait for virtual time): either way the job ends."""
    prog = compile_program(build, "model", *(["--model-build"] if counted else []))
    res, _, _ = model_run(build, scratch, 2, prog, "spin")
    assert "spin puts 2000" in res.out, res

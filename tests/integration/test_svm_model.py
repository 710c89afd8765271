"""Mailboxes and SVM in model mode (rccerun --model scc, docs/svm.md "Model
mode"): counted builds, so virtual times do not depend on the host."""
from __future__ import annotations

import re

import pytest

import openscc_testlib as lib
from openscc_testlib import rccerun

TILE_MHZ = 1600 // 3  # the scc chip's default tile clock
FAULT, FRAME = 1181, 58574  # the scc preset's time_svm_fault_cycles, time_svm_frame_cycles


def model(build, scratch, nue, program, *args, opts=()):
    res = rccerun(build, "-nue", nue, "--model", "scc", "--job-dir", scratch / "job", "--replace-job-dir", *opts,
                  program, *args)
    assert res.rc == lib.RC_OK, res
    return res


def table1(res) -> dict:
    return {(m, row): float(us) for m, row, us in re.findall(r"table1: model=(\w+) row=(\w+) us=([\d.]+)", res.out)}


def test_table1_rows_follow_the_kernel_path_constants(build, scratch):
    app = lib.counted_app(build, "svm_table1")
    t = table1(model(build, scratch, 2, app, opts=("--cores", "0,30")))
    assert t[("lazy", "alloc_4mb")] == pytest.approx(1024 * 385 / TILE_MHZ, rel=0.01)
    # one fault, then the touched line's first read from DDR3 (docs/model.md "Caches": tens of
    # cycles of the controller and the mesh; no memory hooks under ASan)
    miss = t[("lazy", "page_map")] * TILE_MHZ - FAULT
    assert (miss < 5) if build.asan else (60 < miss < 150)
    assert t[("lazy", "page_alloc")] == pytest.approx((FAULT + FRAME) / TILE_MHZ, rel=0.01)
    # strong: the fault plus a request, the owner's interrupt, the owner vector and the reply
    assert t[("strong", "page_map")] > t[("lazy", "page_map")] + 2 * 612 / TILE_MHZ
    assert t[("strong", "page_permission")] > t[("lazy", "page_map")] + 2 * 612 / TILE_MHZ
    chip = scratch / "slow-faults.chip"
    chip.write_text(f"base = scc\ntime_svm_fault_cycles = {2 * FAULT}\nlat_interrupt_cycles = 1224\n")
    slow = table1(model(build, scratch, 2, app, opts=("--cores", "0,30", "--chip", str(chip))))
    assert slow[("lazy", "page_map")] - t[("lazy", "page_map")] == pytest.approx(FAULT / TILE_MHZ, rel=0.02)
    # the handover pays the fault once more and two more interrupts (request and reply)
    extra = slow[("strong", "page_permission")] - t[("strong", "page_permission")]
    assert extra == pytest.approx((FAULT + 2 * 612) / TILE_MHZ, rel=0.05)


def latency(build, scratch, nue, cores, mode, *extra):
    app = lib.counted_app(build, "mailbox_pingpong")
    opts = ("--mailbox", mode) + (("--cores", cores) if cores else ())
    res = model(build, scratch, nue, app, "300", "10", *extra, opts=opts)
    return float(re.search(r"latency_us=([\d.]+)", res.out)[1])


def test_mailbox_latency_trends_of_figs_6_and_7(build, scratch):
    near, far = latency(build, scratch, 2, "0,2", "irq"), latency(build, scratch, 2, "0,47", "irq")
    assert near < far < near * 1.2  # [SVM-2012] Fig. 6 (docs/references.md): grows with distance, gently
    poll2 = latency(build, scratch, 2, "0,47", "poll")
    assert poll2 < far  # two cores: one mailbox to check, no interrupt to take
    poll48, irq48 = latency(build, scratch, 48, None, "poll"), latency(build, scratch, 48, None, "irq")
    irq2 = latency(build, scratch, 2, None, "irq")
    assert poll48 > 2 * latency(build, scratch, 2, None, "poll")  # Fig. 7: 48 mailboxes to sweep
    assert irq48 == pytest.approx(irq2, rel=0.01)  # the doorbell names the sender
    assert latency(build, scratch, 8, None, "irq", "--background") == pytest.approx(irq2, rel=0.05)


@pytest.mark.parametrize("model_name", ["strong", "lazy"])
def test_svm_counters_in_model_mode(build, compile_program, scratch, model_name):
    prog = compile_program(build, "svm", "--model-build")
    res = model(build, scratch, 8, prog, "counters", 30, model_name)
    assert "svm: counters reached 240" in res.out, res


def test_laplace_variants_agree_in_model_mode(build, scratch):
    app = lib.counted_app(build, "laplace")
    sums = {v: re.search(r"checksum=(\S+)", model(build, scratch, 4, app, v, 3, 64).out)[1]
            for v in ("mp", "strong", "lazy")}
    assert len(set(sums.values())) == 1, sums


def test_svm_check_charges_only_first_faults(build, scratch):
    """--svm-check refaults lazy pages after every acquire (cache misses, not charged):
    Table 1's rows, all first faults, stay what they are without it."""
    app = lib.counted_app(build, "svm_table1")
    plain = table1(model(build, scratch, 2, app, opts=("--cores", "0,30")))
    checked = table1(model(build, scratch, 2, app, opts=("--cores", "0,30", "--svm-check")))
    assert checked == plain

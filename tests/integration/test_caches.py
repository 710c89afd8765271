"""The private data caches of counted builds (docs/model.md "Caches", src/timing/cache.c)."""
import re

import pytest

import openscc_testlib as lib

L2_READ = 18          # the scc preset's lat_l2_read
SMALL = 4096          # fits level 1 (8 KB)
MEDIUM = 64 << 10     # fits level 2 (256 KB), not level 1
LARGE = 4 << 20       # fits neither


@pytest.fixture
def walker(build, compile_program, scratch):
    lib.skip_without_memory_hooks(build)
    prog = compile_program(build, "cache_walk", "--model-build")

    def cycles(mode, size, passes, chip_text=None, stats=False):
        """Cycles per access of the timed passes; with stats also the UE's summary.json entry."""
        opts = []
        if chip_text:
            chip = scratch / "caches.chip"
            chip.write_text("base = scc\nname = caches\n" + chip_text)
            opts = ["--chip", str(chip)]
        job = scratch / f"job-{mode}-{size}"
        res = lib.rccerun(build, "-nue", "1", "--model", "scc", *opts, "--job-dir", str(job), "--replace-job-dir",
                          prog, mode, str(size), str(passes))
        assert res.rc == lib.RC_OK, res
        got = float(re.search(r"cycles (\S+)", res.out)[1])
        return (got, lib.check_summary(job / "summary.json")["ues"][0]) if stats else got
    return cycles


def test_a_load_waits_for_the_level_that_holds_its_line(walker):
    l1, l2, memory = walker("read", SMALL, 40), walker("read", MEDIUM, 4), walker("read", LARGE, 1)
    assert l2 - l1 == pytest.approx(L2_READ, abs=0.5)
    assert memory - l1 > L2_READ + 50  # DDR3: tens of core cycles of the controller and the mesh


def test_the_level_2_latency_is_the_chips(walker):
    assert walker("read", MEDIUM, 4, "lat_l2_read = 40\n") - walker("read", SMALL, 40) == pytest.approx(40, abs=0.5)


def test_without_caches_private_memory_costs_only_the_blocks(walker):
    off = "cache_l1_bytes = 0\n"
    assert walker("read", LARGE, 1, off) == pytest.approx(walker("read", SMALL, 40, off), abs=0.1)


def test_stores_are_posted_one_at_a_time(walker):
    l1, l2, memory = walker("write", SMALL, 40), walker("write", MEDIUM, 4), walker("write", LARGE, 1)
    # the read pass before brought SMALL into level 1: its stores hit; MEDIUM's go to level 2, each
    # waiting for the one before, so a store costs about a level-2 access; LARGE's go to memory
    assert l1 < l2 <= l1 + L2_READ + 0.5 < memory


def test_dirty_lines_are_written_back(walker):
    lines, passes = MEDIUM // 32, 4
    _, clean = walker("read", MEDIUM, passes, stats=True)
    assert clean["write_backs"] == 0 and clean["l1_read_misses"] >= (passes + 1) * lines - SMALL // 32
    _, hits = walker("update", SMALL, 40, stats=True)
    assert hits["write_backs"] == 0  # the lines stay in level 1, dirty
    # every load misses level 1 and the line it replaces is dirty (level 2 holds it: the store goes there)
    _, dirty = walker("update", MEDIUM, passes, stats=True)
    assert passes * lines - 8192 // 32 <= dirty["write_backs"] <= passes * lines
    assert dirty["l1_read_misses"] == pytest.approx(clean["l1_read_misses"], abs=8)
    assert dirty["l2_read_misses"] == pytest.approx(clean["l2_read_misses"], abs=8)
    # level 2's dirty lines go to memory: one outstanding write, each a DDR3 access
    _, far = walker("update", LARGE, 1, stats=True)
    assert far["write_backs"] >= 2 * (LARGE // 32) - (256 << 10) // 32 - 8192 // 32


def test_cache_geometry_must_be_whole_sets(build, scratch):
    chip = scratch / "bad.chip"
    chip.write_text("base = scc\nname = bad\ncache_l1_bytes = 6000\n")
    res = lib.rccerun(build, "-nue", "1", "--chip", str(chip), "/bin/true")
    assert res.rc == 2 and "cache_l1_bytes = 6000" in res.err and "line_bytes" in res.err, res

"""The iRCCE group (bench/ircce/): pipelined vs blocking, ping-ping vs MPI,
flags, schemes, bursts; written to ircce.{json,md}."""
from __future__ import annotations

from typing import Callable

from .documents import document, launch_config, loop_config
from .formatting import size_label
from .measurements import Measurement
from .processes import launcher_config
from .slots import find_slot, new_slot, slot_median
from .targets import verdict

IRCCE_PROGRAMS = {
    "openscc": {"ircce": ("ircce/ircce_bench.c", "ircce_bench")},
    "mpich": {"pingping": ("ircce/pingping_mpi.c", "pingping_mpi")},
    "openmpi": {"pingping": ("ircce/pingping_mpi.c", "pingping_mpi")},
}
IRCCE_PP_SIZES = [8, 4096, 16384, 65536, 1048576]
IRCCE_NSC_SIZES = [16384, 65536, 1048576]
IRCCE_PINGPING_SIZES = [8, 4096, 65536, 1048576]
IRCCE_FLAG_SIZES = [1, 4, 8, 16, 24, 28, 32]
IRCCE_SCHEME_SIZES = [8, 4096, 65536, 1048576]
IRCCE_RPLG_TAGGED_SIZES = [8]
IRCCE_BURST_SIZES = [8, 1024]
IRCCE_BURST = 16


def section(key: str, title: str, sizes: list[int], columns: list[tuple[str, str]],
            ratio: tuple[str, str, str]) -> dict:
    """One table of ircce.md: its rows are sizes, its columns (key, heading)
    are variants, all in µs; ratio is (numerator column, denominator column
    or "best_mpi", heading)."""
    return {"key": key, "title": title, "sizes": sizes, "unit": "us", "columns": columns,
            "ratio": ratio}


PIPELINE_COLUMNS = [("rcce", "RCCE_send/recv"), ("ircce", "iRCCE_ssend/srecv")]
PIPELINE_RATIO = ("ircce", "rcce", "pipelined / blocking")
IRCCE_SECTIONS = [
    section("pp", "Pingpong half round trip (µs): RCCE blocking vs iRCCE pipelined",
            IRCCE_PP_SIZES, PIPELINE_COLUMNS, PIPELINE_RATIO),
    section("ppnsc", "Pingpong half round trip with `rccerun --no-single-copy` (µs)",
            IRCCE_NSC_SIZES, PIPELINE_COLUMNS, PIPELINE_RATIO),
    section("pingping", "Ping-ping, both sides isend + irecv at once: time per exchange (µs)",
            IRCCE_PINGPING_SIZES, [("openscc", "OpenSCC iRCCE"), ("mpich", "MPICH"), ("openmpi", "Open MPI")],
            ("openscc", "best_mpi", "OpenSCC / best MPI")),
    section("flags", "RCCE_send/recv half round trip (µs): `--flags normal` vs `--flags tagged` (the native default)",
            IRCCE_FLAG_SIZES, [("normal", "normal flags"), ("tagged", "--flags tagged")],
            ("tagged", "normal", "tagged / normal")),
    section("scheme", "RCCE_send/recv half round trip (µs): `--scheme lprg` vs `--scheme rplg`",
            IRCCE_SCHEME_SIZES, [("lprg", "lprg"), ("rplg", "rplg"), ("rplg_tagged", "rplg + tagged")],
            ("rplg", "lprg", "rplg / lprg")),
    section("burst", f"{IRCCE_BURST} messages in a row, time per message (µs): "
                     f"blocking RCCE_send vs {IRCCE_BURST} outstanding iRCCE_isend",
            IRCCE_BURST_SIZES,
            [("send", f"{IRCCE_BURST} x RCCE_send"), ("isend", f"{IRCCE_BURST} x iRCCE_isend + wait all")],
            ("isend", "send", "isend / send")),
]


def make_ircce_tests() -> list[dict]:
    """One test per (section, size); its results hold one slot per column."""
    tests = []
    for sec in IRCCE_SECTIONS:
        for s in sec["sizes"]:
            cols = [c for c, _ in sec["columns"]]
            if sec["key"] == "scheme" and s not in IRCCE_RPLG_TAGGED_SIZES:
                cols.remove("rplg_tagged")
            tests.append({"id": f"{sec['key']}_{s}", "section": sec["key"], "label": size_label(s),
                          "unit": sec["unit"], "ues": 2, "size": s, "columns": cols})
    return tests


def make_ircce_jobs(args) -> list[dict]:
    """One job = one launch; "expect" maps output lines (bench, impl field,
    size) to (test id, column).  Every job runs 2 UEs / ranks."""
    prog_args = ["-t", f"{args.time_box:g}", "-i", str(args.min_iters)]

    def sizes(lst):
        return ",".join(str(s) for s in lst)

    def pp(name, opts, modes, lst, section, cols):
        """A pingpong job: modes pp_rcce / pp_ircce, filling columns cols."""
        impl_of = {"pp_rcce": "rcce", "pp_ircce": "ircce"}
        exp = [("pingpong", impl_of[m], s, f"{section}_{s}", col)
               for s in lst for m, col in zip(modes, cols)]
        return {"name": name, "kind": "ircce", "ues": 2, "impls": ["openscc"],
                "rcce_opts": opts, "args": prog_args + ["-x", ",".join(modes), "-s", sizes(lst)],
                "expect": exp}

    jobs = [
        pp("ircce:pp", [], ["pp_rcce", "pp_ircce"], IRCCE_PP_SIZES, "pp", ("rcce", "ircce")),
        pp("ircce:pp-nsc", ["--no-single-copy"], ["pp_rcce", "pp_ircce"], IRCCE_NSC_SIZES, "ppnsc",
           ("rcce", "ircce")),
        {"name": "ircce:pingping", "kind": "ircce", "ues": 2, "impls": ["openscc"],
         "rcce_opts": [], "args": prog_args + ["-x", "pingping", "-s", sizes(IRCCE_PINGPING_SIZES)],
         "expect": [("pingping", "ircce", s, f"pingping_{s}", "openscc") for s in IRCCE_PINGPING_SIZES]},
        {"name": "ircce:pingping-mpi", "kind": "pingping", "ues": 2,
         "impls": ["mpich", "openmpi"], "rcce_opts": [],
         "args": prog_args + ["-x", "pingping", "-s", sizes(IRCCE_PINGPING_SIZES)],
         "expect": [("pingping", "mpi", s, f"pingping_{s}", None) for s in IRCCE_PINGPING_SIZES]},
        pp("ircce:flags-normal", ["--flags", "normal"], ["pp_rcce"], IRCCE_FLAG_SIZES, "flags", ("normal",)),
        pp("ircce:flags-tagged", ["--flags", "tagged"], ["pp_rcce"], IRCCE_FLAG_SIZES, "flags", ("tagged",)),
        pp("ircce:scheme-lprg", ["--scheme", "lprg", "--flags", "normal"], ["pp_rcce"], IRCCE_SCHEME_SIZES,
           "scheme", ("lprg",)),
        pp("ircce:scheme-rplg", ["--scheme", "rplg", "--flags", "normal"], ["pp_rcce"], IRCCE_SCHEME_SIZES,
           "scheme", ("rplg",)),
        pp("ircce:rplg-tagged", ["--scheme", "rplg", "--flags", "tagged"], ["pp_rcce"],
           IRCCE_RPLG_TAGGED_SIZES, "scheme", ("rplg_tagged",)),
        {"name": "ircce:burst", "kind": "ircce", "ues": 2, "impls": ["openscc"],
         "rcce_opts": [], "args": prog_args + ["-x", "burst_send,burst_isend", "-s", sizes(IRCCE_BURST_SIZES),
                                               "-n", str(IRCCE_BURST)],
         "expect": [("burst", impl, s, f"burst_{s}", col) for s in IRCCE_BURST_SIZES
                    for impl, col in (("rcce", "send"), ("ircce", "isend"))]},
    ]
    return jobs


def ircce_jobs(args, impls: list[str]) -> list[dict]:
    """The jobs, each narrowed to the selected implementations; jobs left without any are dropped."""
    jobs = []
    for j in make_ircce_jobs(args):
        j["impls"] = [i for i in j["impls"] if i in impls]
        if j["impls"]:
            jobs.append(j)
    return jobs


def ircce_tests(jobs: list[dict]) -> list[dict]:
    """The tests, with a pending slot for every column some job fills and a skipped one for the rest."""
    ran_cols: dict[str, set] = {}
    for j in jobs:
        for impl in j["impls"]:
            for _, _, _, tid, col in j["expect"]:
                ran_cols.setdefault(tid, set()).add(col or impl)
    tests = make_ircce_tests()
    for t in tests:
        t["results"] = {col: new_slot(col in ran_cols.get(t["id"], ())) for col in t["columns"]}
    return tests


def measurements(tests_by_id: dict) -> Callable[[dict, str], list[Measurement]]:
    """What a run of a job by an implementation fills: a job's "expect" entry
    (bench, impl field, size, test id, column) goes to that column of that
    test; the MPI peers fill the column of their implementation."""
    def of(job: dict, impl: str) -> list[Measurement]:
        out = []
        for bench, field, size, tid, col in job["expect"]:
            col = col or impl
            slot = find_slot(tests_by_id, tid, col)
            out.append(Measurement(bench, job["ues"], size, field, [] if slot is None else [slot],
                                   label=f"{col} {size}", missing=f"{bench} {field} {size}"))
        return out
    return of


def evaluate_ircce_targets(tests_by_id: dict) -> list[dict]:
    out = []

    def add(name, tid, col, ref_col, ref_desc, strict, tolerance=0.0):
        st, v = slot_median(find_slot(tests_by_id, tid, col))
        _, ref = slot_median(find_slot(tests_by_id, tid, ref_col))
        out.append({"target": name, "test": tid, "column": col, "openscc": v, "reference": ref,
                    "reference_column": ref_col, "reference_desc": ref_desc, "unit": "us",
                    "status": verdict(st, v, ref, strict, tolerance)})

    # Above 32 KiB both calls take the same single-copy path (docs/ircce.md), so
    # their medians differ by noise only: "as fast" allows 5 %.  The
    # --no-single-copy table shows where the pipeline itself decides.
    add("iRCCE pipelined 1 MiB half RTT <= RCCE blocking 1 MiB half RTT (5 % noise allowance: same single-copy path)",
        "pp_1048576", "ircce", "rcce", "RCCE_send/recv 1 MiB half RTT", strict=False, tolerance=0.05)
    add("tagged-flag 8 B half RTT < normal-flag 8 B half RTT", "flags_8", "tagged", "normal",
        "normal flags 8 B half RTT", strict=True)
    return out


def ircce_document(args, session: dict, impls: list[str], builds: dict, jobs: list[dict],
                   tests: list[dict], runs: list[dict]) -> dict:
    config = {**loop_config(args), **launch_config(args, impls, ["ircce"]), "burst": IRCCE_BURST,
              "launchers": launcher_config(args, impls)}
    return document("openscc-bench-ircce/1", session, config, builds, sections=IRCCE_SECTIONS,
                    jobs=[{"name": j["name"], "impls": j["impls"], "rcce_opts": j.get("rcce_opts", []),
                           "args": j["args"]} for j in jobs],
                    tests=tests, targets=evaluate_ircce_targets({t["id"]: t for t in tests}), runs=runs)

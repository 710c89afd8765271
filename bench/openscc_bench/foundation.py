"""The foundation group: RCCE on OpenSCC vs MPICH, Open MPI and the cache-line
floor (pingpong, collectives, launch-to-finish); written to foundation.{json,md}."""
from __future__ import annotations

from typing import Callable

from .documents import document, launch_config, loop_config
from .formatting import size_label
from .implementations import IMPLS, PEERS, best_peer
from .measurements import Measurement
from .processes import launcher_config
from .slots import new_slot, slot_median
from .host_state import MIN_STATE_RUNS, state_medians, threshold
from .targets import verdict

FOUNDATION_GROUPS = ["pingpong", "collective", "launch", "floor"]
PP_SIZES = [0, 8, 64, 1024, 8192, 65536, 1048576]

# program per implementation and job kind: (source under bench/, binary name)
PROGRAMS = {
    "openscc": {"pingpong": ("rcce/pingpong_bench.c", "pingpong_bench"),
                "collective": ("rcce/collective_bench.c", "collective_bench"),
                "launch": ("rcce/launch_bench.c", "launch_bench")},
    "mpich": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi"),
              "collective": ("mpi/collective_mpi.c", "collective_mpi"),
              "launch": ("mpi/launch_mpi.c", "launch_mpi")},
    "openmpi": {"pingpong": ("mpi/pingpong_mpi.c", "pingpong_mpi"),
                "collective": ("mpi/collective_mpi.c", "collective_mpi"),
                "launch": ("mpi/launch_mpi.c", "launch_mpi")},
    "floor": {"floor": ("floor/cacheline_pingpong.c", "cacheline_pingpong")},
}


def make_tests(big: int) -> list[dict]:
    tests = []
    for s in PP_SIZES:
        tests.append({"id": f"pingpong_{s}", "label": f"pingpong half RTT, {size_label(s)}",
                      "group": "pingpong", "bench": "pingpong", "metric": "half_rtt_us",
                      "unit": "us", "ues": 2, "size": s,
                      "floor": s in (0, 8)})
    for op, size in (("barrier", 0), ("allreduce", 8)):
        for n in (2, big):
            lbl = f"barrier, {n} UEs" if op == "barrier" else f"allreduce 8 B, {n} UEs"
            tests.append({"id": f"{op}_{n}", "label": lbl, "group": "collective",
                          "bench": op, "metric": "lat_us", "unit": "us", "ues": n,
                          "size": size, "floor": False})
    # table order: barrier 2, barrier big, allreduce 2, allreduce big
    tests.append({"id": f"launch_{big}", "label": f"launch-to-finish, {big} UEs",
                  "group": "launch", "bench": "launch", "metric": "wall_s", "unit": "s",
                  "ues": big, "size": None, "floor": False})
    return tests


def foundation_tests(big: int, impls: list[str], groups: list[str]) -> list[dict]:
    """The selected groups' tests, each with one slot per implementation (the
    floor only on the tests it serves)."""
    tests = [t for t in make_tests(big)
             if t["group"] in groups or (t["floor"] and "floor" in groups)]
    for t in tests:
        t["results"] = {}
        for impl in IMPLS:
            if impl == "floor" and not t["floor"]:
                continue
            skipped = impl not in impls or \
                (impl == "floor" and "floor" not in groups) or \
                (impl != "floor" and t["group"] not in groups)
            t["results"][impl] = new_slot(not skipped)
    return tests


def make_jobs(args, impls: list[str], groups: list[str]) -> list[dict]:
    """One job = one program invocation that yields one or more measurements."""
    big = args.ues
    prog_args = ["-t", f"{args.time_box:g}", "-i", str(args.min_iters)]
    jobs = []
    mpi_like = [i for i in impls if i != "floor"]
    # the floor goes first in every repeat: it is the most sensitive to
    # leftovers of the 48-process runs
    if "floor" in groups and "floor" in impls:
        jobs.append({"name": "floor", "kind": "floor", "ues": 2, "args": prog_args,
                     "impls": ["floor"], "expect": [("floor_pingpong", 2, 8)]})
    if "pingpong" in groups:
        jobs.append({"name": "pingpong", "kind": "pingpong", "ues": 2, "args": prog_args,
                     "impls": mpi_like,
                     "expect": [("pingpong", 2, s) for s in PP_SIZES]})
    if "collective" in groups:
        for n in (2, big):
            jobs.append({"name": f"collective_{n}", "kind": "collective", "ues": n,
                         "args": prog_args, "impls": mpi_like,
                         "expect": [("barrier", n, 0), ("allreduce", n, 8)]})
    if "launch" in groups:
        jobs.append({"name": f"launch_{big}", "kind": "launch", "ues": big, "args": [],
                     "impls": mpi_like, "expect": [("launch", big, None)]})
    return [j for j in jobs if j["impls"]]


def measurements(tests: list[dict]) -> Callable[[dict, str], list[Measurement]]:
    """What a run of a job by an implementation fills: a job's "expect" entry
    (bench, ues, size) goes to the test of that key, the floor's to every
    test the floor serves."""
    by_key = {(t["bench"], t["ues"], t["size"]): t for t in tests}
    floor_tests = [t for t in tests if t["floor"]]

    def of(job: dict, impl: str) -> list[Measurement]:
        out = []
        for key in job["expect"]:
            bench, ues, size = key
            served = floor_tests if bench == "floor_pingpong" else \
                [by_key[key]] if key in by_key else []
            out.append(Measurement(bench, ues, size, None, [t["results"][impl] for t in served],
                                   label=bench if size is None else f"{bench} {size}",
                                   missing=bench, wall_clock=bench == "launch"))
        return out
    return of


def results_in_state(results: dict, cut: float, state: str) -> dict | None:
    """A test's slots as the targets read them for the runs of one host state (host_state.py): slots
    holding that state's medians, or None when OpenSCC or every MPI peer has fewer than
    MIN_STATE_RUNS runs there (the state compares nothing)."""
    out = {}
    for impl, slot in results.items():
        if slot["status"] == "skipped" or impl == "floor":
            continue
        median, runs = state_medians(slot, cut)[state]
        out[impl] = {"status": "ok", "median": median} if runs >= MIN_STATE_RUNS else {"status": "failed"}
    measured = {impl for impl, r in out.items() if r["status"] == "ok"}
    return out if "openscc" in measured and measured & set(PEERS) else None


def measured_by_a_peer(t: dict) -> bool:
    return any(t["results"].get(p, {}).get("status", "skipped") != "skipped" for p in PEERS)


def evaluate_targets(tests_by_id: dict, big: int) -> list[dict]:
    """Each target on the medians of all runs; a 2-process target of a run whose host switched
    states (host_state.py) on each state's runs instead, met only when it holds in every state
    that both sides measured MIN_STATE_RUNS times (the entry shows the worst state's numbers)."""
    out = []
    cut = threshold(list(tests_by_id.values()))

    def check(results: dict, state: str | None, reference) -> dict:
        st, v = slot_median(results.get("openscc"))
        ref = reference(results)
        return {"state": state, "openscc": v, "reference": ref, "status": verdict(st, v, ref)}

    def add(name, tid, ref_desc, reference: Callable[[dict], float | None], unit):
        t = tests_by_id.get(tid)
        results = t["results"] if t else {}
        checked = []
        if cut is not None and t is not None and t["ues"] == 2:
            for state in ("fast", "slow"):
                in_state = results_in_state(results, cut, state)
                if in_state is not None:
                    checked.append(check(in_state, state, reference))
        if not checked:  # one host state, or no state measured enough by both sides: all runs
            checked = [check(results, None, reference)]
        worst = max(checked, key=lambda c: (c["status"] != "met",
                                            (c["openscc"] or 0) / c["reference"] if c["reference"] else 0))
        desc = ref_desc + (f" ({worst['state']} host state; {len(checked)} state(s) checked)" if worst["state"] else "")
        out.append({"target": name, "test": tid, "openscc": worst["openscc"], "reference": worst["reference"],
                    "reference_desc": desc, "unit": unit, "status": worst["status"], "states": checked})

    def peer(impl: str, factor: float = 1.0) -> Callable[[dict], float | None]:
        def reference(results: dict) -> float | None:
            _, v = slot_median(results.get(impl))
            return v * factor if v is not None else None
        return reference

    def fastest_peer(results: dict) -> float | None:
        return best_peer(results)[1]

    add("8 B half RTT <= fastest MPI peer", "pingpong_8", "min(MPICH, Open MPI) 8 B half RTT", fastest_peer, "us")
    add("8 B half RTT <= 0.8 x Open MPI", "pingpong_8", "0.8 x Open MPI 8 B half RTT", peer("openmpi", 0.8), "us")
    # every row that both sides measured: OpenSCC <= the faster MPI peer
    for tid, t in tests_by_id.items():
        if tid in ("pingpong_0", "pingpong_8") or not measured_by_a_peer(t):
            continue
        add(f"{t['label']}: <= fastest MPI peer", tid, "min(MPICH, Open MPI)", fastest_peer, t.get("unit", "us"))
    add("1 MiB half RTT <= 0.6 x MPICH", "pingpong_1048576", "0.6 x MPICH 1 MiB half RTT", peer("mpich", 0.6), "us")
    add(f"{big}-UE barrier <= 100 us", f"barrier_{big}", "limit", lambda results: 100.0, "us")
    add(f"{big}-UE launch-to-finish <= 0.2 s", f"launch_{big}", "limit", lambda results: 0.2, "s")
    return out


def foundation_document(args, session: dict, impls: list[str], groups: list[str], builds: dict,
                        tests: list[dict], runs: list[dict]) -> dict:
    config = {**loop_config(args), "ues_large": args.ues, **launch_config(args, impls, groups),
              "launchers": launcher_config(args, impls)}
    return document("openscc-bench-foundation/1", session, config, builds, tests=tests,
                    targets=evaluate_targets({t["id"]: t for t in tests}, args.ues), runs=runs)

"""Result slots: one implementation's (or column's) repeats of one test, and their median."""
from __future__ import annotations

import statistics

from .result_lines import value_of


def new_slot(run: bool) -> dict:
    """An empty slot: "pending" when the run measures it, "skipped" when it does not."""
    return {"status": "pending" if run else "skipped", "median": None, "values": [], "repeats": []}


def file_error(slot: dict, rep: int, error: str) -> None:
    slot["repeats"].append({"repeat": rep, "error": error})


def file_line(slot: dict, rep: int, rec: dict, hit: list[dict], missing: str) -> float | None:
    """Files one run's value (the last of the result lines hit) or its error;
    returns the value.  missing names the line in a "no ... line printed" error."""
    if hit and hit[-1].get("valid", True) is not False and value_of(hit[-1]) is not None:
        o = hit[-1]
        r = {"repeat": rep, "value": value_of(o), "iters": o.get("iters"), "line": o,
             "host_floor_us": rec.get("host_floor_us"), "host_floor_after_us": rec.get("host_floor_after_us")}
        if "error" in rec:
            r["run_error"] = rec["error"]
        slot["repeats"].append(r)
        return r["value"]
    if hit:
        slot["repeats"].append({"repeat": rep, "error": "invalid result (data check failed)",
                                "line": hit[-1]})
        return None
    e = rec.get("error") or "run succeeded but printed no result line"
    if rec.get("error"):
        e += f", no {missing} line printed"
    file_error(slot, rep, e)
    return None


def take_medians(tests: list[dict]) -> None:
    """Sets every measured slot's values, status ("ok" or "failed"), median, min and max."""
    for t in tests:
        for r in t["results"].values():
            if r["status"] == "skipped":
                continue
            r["values"] = [x["value"] for x in r["repeats"] if "value" in x]
            if r["values"]:
                r["status"] = "ok"
                r["median"] = statistics.median(r["values"])
                r["min"] = min(r["values"])
                r["max"] = max(r["values"])
            else:
                r["status"] = "failed"


def slot_median(slot: dict | None) -> tuple[str, float | None]:
    """("ok", median), ("failed", None) or ("not measured", None) for a target."""
    if slot is None or slot["status"] == "skipped":
        return "not measured", None
    if slot["status"] == "failed":
        return "failed", None
    return "ok", slot["median"]


def find_slot(tests_by_id: dict, tid: str, key: str) -> dict | None:
    """Test tid's slot of an implementation or column; None if either is absent."""
    t = tests_by_id.get(tid)
    return t["results"].get(key) if t else None

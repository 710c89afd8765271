"""Which result line a run should print, and the result slots its value goes to."""
from __future__ import annotations

from dataclasses import dataclass

from .formatting import fmt
from .slots import file_error, file_line


@dataclass
class Measurement:
    bench: str
    ues: int
    size: int | None   # None: a line of any size
    field: str | None  # the line's "impl" field; None: any
    slots: list[dict]  # one per test the value serves
    label: str         # names the value in the progress log
    missing: str       # names the line in a "no ... line printed" error
    wall_clock: bool = False  # launch-to-finish: the value is the run's wall time

    def matches(self, line: dict) -> bool:
        return (line.get("bench") == self.bench and line.get("ues") == self.ues
                and (self.size is None or line.get("size") == self.size)
                and (self.field is None or line.get("impl") == self.field))


def file_run(m: Measurement, rep: int, rec: dict, lines: list[dict]) -> str | None:
    """Files one run's value for m (or its error) in m's slots; returns the
    value as the progress log shows it, None when there is none."""
    hit = [o for o in lines if m.matches(o)]
    shown = None
    for slot in m.slots:
        if not m.wall_clock:
            value = file_line(slot, rep, rec, hit, m.missing)
            if value is not None:
                shown = f"{m.label}={fmt(value, 'us')}"
        elif hit and "error" not in rec:
            slot["repeats"].append({"repeat": rep, "value": rec["wall_s"]})
            shown = f"{rec['wall_s']:.3f}s"
        else:
            e = rec.get("error") or f"no output line (ues={m.ues})"
            slot["repeats"].append({"repeat": rep, "error": e, "wall_s": rec["wall_s"]})
    return shown


def file_not_run(m: Measurement, rep: int, error: str) -> None:
    """Files the error of a run that could not start (e.g. its program did not build)."""
    for slot in m.slots:
        file_error(slot, rep, error)

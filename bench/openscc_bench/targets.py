"""The verdict of one target, the same rule for both groups."""
from __future__ import annotations


def verdict(status: str, value: float | None, reference: float | None,
            strict: bool = False, tolerance: float = 0.0) -> str:
    """status is OpenSCC's slot_median status; met means value < reference
    (strict) or value <= reference x (1 + tolerance)."""
    if status == "not measured":
        return "not measured"
    if status == "failed":
        return "not met (OpenSCC failed)"
    if reference is None:
        return "undetermined (reference not measured or failed)"
    return "met" if (value < reference if strict else value <= reference * (1 + tolerance)) else "not met"

"""Numbers, sizes, ratios and table cells as the results pages show them."""
from __future__ import annotations


def size_label(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "s":
        return f"{v:.3f} s"
    if v < 1:
        return f"{v:.3f}"
    if v < 100:
        return f"{v:.2f}"
    if v < 10000:
        return f"{v:.1f}"
    return f"{v:,.0f}"


def ratio(num: float, den: float) -> str:
    q = num / den
    return f"{q:.2f}x" if q >= 0.1 else f"{q:.4f}x"


def cell(res: dict | None, unit: str) -> str:
    """A slot's table cell: its median, with the number of failed repeats if any."""
    if res is None:
        return "—"
    st = res["status"]
    if st == "skipped":
        return "not run"
    if st == "failed":
        return "failed"
    s = fmt(res["median"], unit)
    nfail = sum(1 for r in res["repeats"] if "error" in r)
    if nfail:
        s += f" ({nfail}/{len(res['repeats'])} failed)"
    return s

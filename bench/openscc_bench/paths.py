"""Where the repository, the benchmark sources and the results are."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"

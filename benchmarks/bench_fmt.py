"""`rulesdsl fmt` speed: each shipped ruleset formatted, against parsing it (the floor: fmt parses once).

Run: python benchmarks/bench_fmt.py
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.fmt import format_text  # noqa: E402
from rulesdsl.parser import parse  # noqa: E402
from rulesdsl.source import Source  # noqa: E402

RUNS = 5


def median_ms(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    print(f"python {platform.python_version()} on {platform.machine()}, median of {RUNS}")
    format_text("param x: int = 1\n")  # the grammar is built once per process, not per file
    parse(Source("x.rules", "param x: int = 1\n"))
    for path in sorted((ROOT / "rulesets").glob("*.rules")):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        fmt_ms = median_ms(lambda text=text: format_text(text))
        parse_ms = median_ms(lambda text=text: parse(Source("x.rules", text)))
        print(f"{path.name:16} {lines:5} lines  fmt {fmt_ms:7.1f} ms  parse {parse_ms:7.1f} ms")


if __name__ == "__main__":
    main()

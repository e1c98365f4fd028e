"""`rulesdsl check` speed: a designer's feedback loop on the bundled rulesets and the diagnostics corpus.

Run: python benchmarks/bench_check.py
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.compiler import check_path  # noqa: E402
from rulesdsl.parser import parse  # noqa: E402
from rulesdsl.source import Source  # noqa: E402

RUNS = 7
CORPUS = ROOT / "tests" / "diagnostics" / "cases"


def median_ms(fn: object, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    print(f"Python {platform.python_version()} on {platform.machine()}, median of {RUNS} runs")
    check_path(ROOT / "rulesets" / "covert.rules")  # warm: Lark builds its parser once per process
    for name in ("covert", "nukecards"):
        path = ROOT / "rulesets" / f"{name}.rules"
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        parse_ms = median_ms(lambda: parse(Source(path.name, text)))  # noqa: B023
        check_ms = median_ms(lambda: check_path(path))  # noqa: B023
        print(f"  {name}.rules ({lines} lines): parse {parse_ms:.1f} ms, check (parse + all passes) {check_ms:.1f} ms")
    cases = sorted(CORPUS.glob("*.rules"))
    start = time.perf_counter()
    for case in cases:
        check_path(case)
    total = time.perf_counter() - start
    print(f"  diagnostics corpus: {len(cases)} broken files in {total * 1000:.0f} ms "
          f"({total / len(cases) * 1000:.1f} ms each)")


if __name__ == "__main__":
    main()

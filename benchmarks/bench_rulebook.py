"""`rulesdsl doc` speed: each shipped ruleset's checked program -> its rulebook (model, Markdown and HTML),
beside the check it needs first.

Run: python benchmarks/bench_rulebook.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.compiler import check_path  # noqa: E402
from rulesdsl.rulebook import build, html, markdown  # noqa: E402

RUNS = 5


def median_ms(fn: object) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    for name in ("covert", "nukecards", "warlord", "wcg"):
        path = ROOT / "rulesets" / f"{name}.rules"
        text = path.read_text(encoding="utf-8")
        program = check_path(path).program
        assert program is not None
        check = median_ms(lambda path=path: check_path(path))  # type: ignore[misc]
        model = median_ms(lambda program=program, text=text: build(program, text))  # type: ignore[misc]
        book = build(program, text)
        md = median_ms(lambda book=book: markdown(book))  # type: ignore[misc]
        page = median_ms(lambda book=book: html(book))  # type: ignore[misc]
        print(f"{name:10} check {check:7.1f} ms  model {model:6.1f} ms  markdown {md:5.1f} ms  html {page:5.1f} ms  "
              f"({len(markdown(book)):,} and {len(html(book)):,} characters)")


if __name__ == "__main__":
    main()

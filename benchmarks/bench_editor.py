"""Editor support speed: what a designer waits for in an editor, per shipped ruleset.

For each ruleset: the language server's check of the whole text (what a change costs once the 0.3 s pause is
over), indexing its names, one hover (the median over every word of the file), completion at the start of
every 20th line, and the Pygments lexer over the file.

Run: python benchmarks/bench_editor.py
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

from rulesdsl.compiler import check_source  # noqa: E402
from rulesdsl.editor.analysis import WORD, analyse, completions, symbol_at  # noqa: E402
from rulesdsl.editor.lexer import RulesLexer  # noqa: E402
from rulesdsl.source import Source  # noqa: E402

RUNS = 3


def best_ms(fn: object, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> int:
    print(f"python {platform.python_version()} on {platform.machine()}; best of {RUNS} runs")
    print(f"{'ruleset':<16}{'lines':>7}{'check ms':>10}{'analyse ms':>12}{'hover med ms':>14}{'hover max ms':>14}"
          f"{'complete ms':>13}{'lex ms':>8}")
    for path in sorted((ROOT / "rulesets").glob("*.rules")):
        text = path.read_text(encoding="utf-8")
        analyse(text, path.name, path.parent)  # warm: the parser's tables, imports
        check = best_ms(lambda: check_source(Source(path.name, text), path.parent, ""))  # noqa: B023
        analysis_ms = best_ms(lambda: analyse(text, path.name, path.parent))  # noqa: B023
        a = analyse(text, path.name, path.parent)
        hovers = []
        lines = text.splitlines()
        for i, line in enumerate(lines, 1):
            for m in WORD.finditer(line):
                start = time.perf_counter()
                symbol_at(a, i, m.start() + 1)
                hovers.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        points = range(1, len(lines) + 1, 20)
        for i in points:
            completions(a, a.source, i, 1)
        complete = (time.perf_counter() - start) * 1000 / max(1, len(points))
        lex = best_ms(lambda: list(RulesLexer().get_tokens(text)))  # noqa: B023
        print(f"{path.name:<16}{len(lines):>7}{check:>10.0f}{analysis_ms:>12.0f}{statistics.median(hovers):>14.2f}"
              f"{max(hovers):>14.1f}{complete:>13.2f}{lex:>8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

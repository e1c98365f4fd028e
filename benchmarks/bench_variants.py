"""The shipped variants and their bases -> what variants cost: the cache key a turn computes (content_hash,
which now follows `extends`), and a check of each variant against its base's (the merge on the AST).

Run: python benchmarks/bench_variants.py
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

from rulesdsl.compiler import check_path, content_hash, read_source  # noqa: E402
from rulesdsl.parser import parse  # noqa: E402
from rulesdsl.variants import load  # noqa: E402

RULESETS = ROOT / "rulesets"


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    print(f"Python {platform.python_version()} on {platform.machine()}")
    print("content_hash (once a turn, the compiled module's cache key):")
    for path in (RULESETS / "warlord.rules", RULESETS / "covert.rules",
                 RULESETS / "variants" / "covert-twice-weekly.rules"):
        print(f"  {path.relative_to(ROOT)}: {median_ms(lambda p=path: content_hash(p), 51):.2f} ms")
    print("rulesdsl check (a designer's loop; a turn with a cached module does none of it):")
    for base, variant in (("covert", "covert-twice-weekly"), ("nukecards", "nukecards-blitz")):
        whole = median_ms(lambda b=base: check_path(RULESETS / f"{b}.rules"), 5)
        path = RULESETS / "variants" / f"{variant}.rules"
        both = median_ms(lambda p=path: check_path(p), 5)
        source, _ = read_source(path, path.name)
        module, _ = parse(source)
        assert module is not None
        merge = median_ms(lambda p=path, s=source, m=module: load(p, s, m, read_source, parse), 5)
        print(f"  {base}.rules {whole:.0f} ms; {variant}.rules {both:.0f} ms, of which reading and merging the "
              f"bases {merge:.0f} ms")


if __name__ == "__main__":
    main()

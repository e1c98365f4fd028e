"""Every golden scenario of every shipped ruleset (tests/golden/) played twice, plain and with `--trace` -> the
scenarios whose reports or news differ (none may: a trace only records), and with --check exit status 1 if any.

Run: python benchmarks/trace_goldens.py --check          (for .ci/run, after pytest)
     python benchmarks/trace_goldens.py wcg              (one ruleset's scenarios)

The suite plays the demo games and one variant traced (tests/unit/test_trace.py); this plays the traced build of
all six rulesets, Warlord's and WCG's included, whose checks alone would cost the suite 15 s. All 106 scenarios,
each twice: 0 differ, 3 min 53 s wall (69 s CPU) on this machine (2 cores, Python 3.11, other work running).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulesdsl.game.folder import GameFolder
from tests.golden import harness

RULESETS = ("covert", "nukecards", "warlord", "wcg", "covert-twice-weekly", "nukecards-blitz")


def play(s: harness.Scenario, trace: bool) -> list[tuple[int, str, str]] | str:
    process = GameFolder.process_turn

    def traced(self: GameFolder, *a: Any, **k: Any) -> Any:
        return process(self, *a, **{**k, "trace": trace})

    GameFolder.process_turn = traced  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as d:
            return list(harness.play(s, Path(d) / "game"))
    except Exception as e:  # a traced turn that fails where the plain one did not is a difference too
        return f"{type(e).__name__}: {e}"
    finally:
        GameFolder.process_turn = process  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", default=list(RULESETS))
    ap.add_argument("--check", action="store_true", help="exit 1 if any scenario differs")
    args = ap.parse_args()
    differ = []
    played = 0
    for ruleset in args.rulesets:
        for s in harness.scenarios(ruleset):
            played += 1
            if play(s, False) != play(s, True):
                differ.append(s.id)
                print(f"differs with --trace: {s.id}")
    print(f"{played} golden scenarios played plain and traced; {len(differ)} differ")
    return 1 if differ and args.check else 0


if __name__ == "__main__":
    sys.exit(main())

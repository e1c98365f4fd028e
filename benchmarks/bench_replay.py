"""Played games -> what the reviewers' tools cost: `rulesdsl replay` of the covert demo (README's quick start, five
days) and of WCG's 25-turn long game (benchmarks/wcg_long.py's, GM orders included), each beside the time its turns
took to play; and `rulesdsl diff` of each game with its replay (nothing differs: every file is read and compared).

Run: python benchmarks/bench_replay.py [--turns 25] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import wcg_long  # noqa: E402

from rulesdsl.cli import main as rulesdsl  # noqa: E402
from rulesdsl.game.folder import GameFolder  # noqa: E402
from rulesdsl.game.replay import replay  # noqa: E402
from rulesdsl.review.diff import compare_folders, compare_rules  # noqa: E402

EXAMPLES = ROOT / "examples" / "covert"


def covert_demo(tmp: Path) -> Path:
    game = tmp / "demo-game"
    folder = GameFolder.create(ROOT / "rulesets" / "covert.rules", game, EXAMPLES / "scenario.yaml", None)
    for day in range(1, 6):
        folder.process_turn(sorted((EXAMPLES / f"day{day}").glob("*.txt")))
    return game


def median_s(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(name: str, game: Path, played: float, runs: int) -> None:
    target = game.with_name(f"{game.name}-replay")

    def once() -> None:
        shutil.rmtree(target, ignore_errors=True)
        replay(game, target)

    turns = len(GameFolder(game).turn_numbers()) - 1
    replayed = median_s(once, runs)
    compared = median_s(lambda: compare_folders(game, target, "a", "b"), runs)
    print(f"{name}: {turns} turns played in {played:.2f} s; replayed in {replayed:.2f} s "
          f"({replayed / turns * 1000:.0f} ms a turn); diff of the two: {compared:.2f} s")


def measure_why(game: Path, tmp: Path, runs: int) -> None:
    rules = ROOT / "rulesets" / "covert.rules"
    new = tmp / "armed"
    new.mkdir()
    for template in (ROOT / "rulesets").glob("covert.report*.j2"):
        shutil.copy(template, new / template.name)
    text = rules.read_text(encoding="utf-8")
    (new / "covert.rules").write_text(text.replace("{ 1: 1, 2: 3, 3: 6", "{ 1: 1, 2: 2, 3: 6"), encoding="utf-8")
    for trace in (False, True):  # the first run of each compiles its build, once: not timed
        compare_rules(rules, new / "covert.rules", game, "a", "b", trace=trace)
    plain = median_s(lambda: compare_rules(rules, new / "covert.rules", game, "a", "b", trace=False), runs)
    traced = median_s(lambda: compare_rules(rules, new / "covert.rules", game, "a", "b", trace=True), runs)
    print(f"covert demo, arms_cost changed: diff --game in {plain:.2f} s untraced, {traced:.2f} s traced with "
          f"each line's provenance ({(traced / plain - 1) * 100:+.0f}%)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--turns", type=int, default=25, help="turns of the WCG long game")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ["RULESDSL_PROGRESS"] = "none"
    print(f"python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        demo = covert_demo(Path(tmp))
        measure("covert demo", demo, time.perf_counter() - start, args.runs)
        measure_why(demo, Path(tmp), max(args.runs, 5))
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            game, _ = wcg_long.play(Path(tmp) / "wcg", args.turns, wcg_long.WORLD)
        measure("wcg long game", game, time.perf_counter() - start, args.runs)
        assert rulesdsl(["diff", str(demo), str(demo.with_name("demo-game-replay"))]) == 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

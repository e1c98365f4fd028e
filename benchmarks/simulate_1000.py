"""The two shipped games' example scenarios -> 1,000 simulated games of each in a local process pool: the wall
time, the games per second, and the statistics `rulesdsl simulate` prints.

Not part of the test suite (it takes minutes). The turn limits are long enough for most random games to end
where the game can end at all (see the figures in the report of the run that chose them), and can be changed:

Run: python benchmarks/simulate_1000.py [--games N] [--workers W] [--only covert|nukecards] [--plots DIR]

Figures on this machine (2 cores, 2 workers, Python 3.11, other work loading it; seed 1), wall times:
- with the shipped simulation blocks (after S1): covert 1,000 games of up to 40 turns, 39,757 turns in
  165.9 s (6.0 games/s, 240 turns/s): 3% of the games end by the rules (a majority held two days), 97% reach
  40 turns with no winner; no problem found.
- without them (every order weight 1, before S1): covert 1,000 games in 37.5 s, every game ended by turn 18,
  since random players resign (median 5 turns); nukecards 1,000 games of up to 300 turns, 230,538 turns in
  601.5 s (383 turns/s): 55.6% ended by the rules (median length 271.5 turns, so 300 is about what most games
  need), but 98.1% with no winner (everyone destroyed); LAUNCH never carried out; no problem found.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.simulate.plots import write_plots  # noqa: E402
from rulesdsl.simulate.run import default_workers, make_jobs, prepare, run  # noqa: E402

# ruleset, its example scenario, the turn limit
GAMES = {
    "covert": (ROOT / "rulesets" / "covert.rules", ROOT / "examples" / "covert" / "scenario.yaml", 40),
    "nukecards": (ROOT / "rulesets" / "nukecards.rules", ROOT / "examples" / "nukecards" / "scenario.yaml", 300),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--workers", type=int, default=default_workers())
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", choices=sorted(GAMES))
    p.add_argument("--turns", type=int, help="the turn limit, for every game (default: each game's own)")
    p.add_argument("--plots", help="write each game's charts into DIR/NAME")
    args = p.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"{args.workers} workers")
    found = False
    for name, (rules, scenario, turns) in GAMES.items():
        if args.only and name != args.only:
            continue
        turns = args.turns or turns
        start = time.perf_counter()
        setup = prepare(rules, scenario)
        jobs = make_jobs(setup, args.games, turns, args.seed)
        stats = run(jobs, setup.seats, workers=args.workers)
        took = time.perf_counter() - start
        print(f"\n=== {name}: {args.games:,} games of up to {turns} turns: {took:.1f} s wall, "
              f"{args.games / took:.1f} games/s, {stats.turns / took:.0f} turns/s\n")
        print(stats.text(setup.heading(args.games, turns, args.seed)), end="")
        if args.plots:
            write_plots(stats, Path(args.plots) / name, setup.title)
        found = found or stats.problem_count > 0
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`rulesdsl simulate`'s one game (rulesdsl/simulate/play.py) -> its time per game and per turn, for Covert and the
card game on their example scenarios.

Run: python benchmarks/bench_simulate.py
     python benchmarks/bench_simulate.py --games 50 --turns 10 --seed 1 --profile

Each game is play(GameJob) of the shipped ruleset as it is (its own `simulation` block, if any), and again
with a hand-made block that checks hidden facts (Covert's influence, spies and superspy; each card player's
hand), to show what the leak check costs: LEAK_SAMPLES facts per declaration per turn, each a report of its
viewer. A game stops at its end (a victory; in Covert, random players resign) or at --turns. The compiled module
is loaded once before timing, as a worker process does once.

Figures on this machine (2 cores, Python 3.11), `python benchmarks/bench_simulate.py --games 50`, seed 1, CPU
times (the machine was loaded by other work, load 9.5: wall times were 2.5 times these):
  covert     50 games, 262 turns (random players resign, so games end early): 32 ms a game, 6.1 ms a turn;
             with the hidden facts 33 ms, 6.2 ms (each game's first leak is said, and that declaration is not
             sampled again in the game)
  nukecards  50 games, 500 turns: 45 ms a game, 4.5 ms a turn; with a hidden hand (4 more reports a turn,
             never a leak) 41 to 45 ms, within the noise
Before one report a turn was held to the report schema (all of them were; wall, load 3.4, 20 games): covert
9.7 ms a turn, nukecards 12.0 ms; after: 5.8 and 3.6 ms. Of what is left (cProfile, 20 games each): the reports
30 to 45% (the one schema check half of that in covert), the state's load and dump each turn 30 to 35%, the
engine's turn 10 to 16%, writing the mail 8 to 15%. So 1,000 games of 10 turns of either game take under a
minute of CPU.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.runtime.spec import HiddenSpec, RulesetSpec  # noqa: E402
from rulesdsl.simulate.play import game_seed, load_ruleset, play  # noqa: E402
from rulesdsl.simulate.results import GameJob  # noqa: E402

HIDDEN = {
    "covert": (HiddenSpec("Country", "influence", "influence", True, ("int",), line=55),
               HiddenSpec("Country", "spy", "spy", True, ("int",), line=56),
               HiddenSpec("", "superspy", "superspy", False, ("opt", ("thing", "Country")), line=73)),
    "nukecards": (HiddenSpec("", "hand", "hand", False, ("list", ("thing", "Card")), line=0),),
}


def run(name: str, games: int, turns: int, seed: int, spec: RulesetSpec | None) -> tuple[float, float, int, int]:
    """Wall and CPU seconds of `games` games, the turns they played and the problems they found."""
    rules = ROOT / "rulesets" / f"{name}.rules"
    scenario: dict[str, Any] = yaml.safe_load((ROOT / "examples" / name / "scenario.yaml").read_text(encoding="utf-8"))
    played = problems = 0
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(games):
        result = play(GameJob(str(rules), scenario, turns, i, game_seed(seed, i)), spec)
        played += result.turns
        problems += len(result.problems)
    return time.perf_counter() - start, time.process_time() - cpu, played, problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="the 15 costliest functions of the plain runs")
    args = ap.parse_args()
    for name in ("covert", "nukecards"):
        spec, _ = load_ruleset(str(ROOT / "rulesets" / f"{name}.rules"))
        checked = dataclasses.replace(spec, simulation=dataclasses.replace(spec.simulation, hidden=HIDDEN[name]))
        for label, use in (("as shipped", None), ("+ hidden facts", checked)):
            profile = cProfile.Profile() if args.profile and use is None else None
            if profile is not None:
                profile.enable()
            took, cpu, played, problems = run(name, args.games, args.turns, args.seed, use)
            if profile is not None:
                profile.disable()
            print(f"{name:9} {label:15} {args.games} games, {played} turns: {cpu * 1000 / args.games:6.1f} ms CPU a "
                  f"game, {cpu * 1000 / max(played, 1):5.2f} ms CPU a turn; wall {took * 1000 / args.games:6.1f} ms a "
                  f"game ({problems} problems)")
            if profile is not None:
                pstats.Stats(profile).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()

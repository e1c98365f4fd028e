"""The same turns run plain and with `--trace` -> their times (whole turn and engine), and the trace's size.

Run: python benchmarks/bench_trace.py                      (Covert's demo game, five days; Warlord, 100 players)
     python benchmarks/bench_trace.py --repeat 5 --skip-warlord

Each turn is run from a copy of the game folder before it, once plain and once traced (GameFolder.process_turn
with trace=False and True, as `rulesdsl turn` runs it), --repeat times each, alternating; the best CPU time of
each is shown (a turn's wall time is mostly the fsyncs of its commit, which vary more than the work). A turn
without --trace runs the normal compiled module on a plain engine.Game: the code it ran before the trace
existed, so "off" is today's turn; the traced build (cached beside it) runs only with --trace.
Warlord: bench_warlord.py's game (generated world, 100 players, the starting 750 divisions), its first two
turns, every player moving each division in a random direction (and on turn 1 building in its home city).

Figures on this machine (2 cores, Python 3.11), `python benchmarks/bench_trace.py --repeat 3`, best CPU of 3,
with reads, each report value's sources, and the rounds of loops inside steps recorded (trace format 2):
  covert, days 1-5:   off 0.030-0.034 s, --trace +17% to +31% (engine +1-2 ms); trace 121-129 kB a day
  warlord, turns 1-2: off 1.21, 1.37 s; --trace 2.45, 2.75 s (+104%, +102%; engine +0.57, +0.64 s, the rest
                      the reports' values worked out with their reads, and the trace's writing); trace 15.7,
                      17.4 MB. Before rounds were steps: engine +0.42 to +0.48 s, 13.3-13.4 and 14.7-14.8 MB.
Before reads were recorded (format 1): covert +4% to +11%, 42-50 kB a day; warlord +16%, +18%, 6.5, 7.3 MB.
Off is today's turn: `python benchmarks/bench_warlord.py --turns 2`, main before the trace and this branch
alternated, CPU of turns 1 and 2: main 1.67, 1.84 and 1.44, 1.60 s; with the trace in 1.55, 1.53 and 1.46,
1.61 s (the same module and engine; a turn asks `if trace` twice).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from warlord_game import new_game, random_moves

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[1]


def run(game: Path, mail: list[Path], trace: bool, into: Path) -> tuple[float, float, float, int]:
    """One turn on a copy of `game`: (wall s, CPU s, engine s, trace bytes)."""
    if into.exists():
        shutil.rmtree(into)
    shutil.copytree(game, into)
    folder = GameFolder(into)
    folder.timings = {}
    wall, cpu = time.perf_counter(), time.process_time()
    result = folder.process_turn(mail, trace=trace)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    written = result.folder / "trace.jsonl"
    return wall, cpu, folder.timings.get("engine", 0.0), written.stat().st_size if written.is_file() else 0


def compare(name: str, game: Path, turns: list[list[Path]], repeat: int, tmp: Path) -> None:
    for n, mail in enumerate(turns, 1):
        best: dict[bool, tuple[float, float, float, int]] = {}
        for _ in range(repeat):
            for trace in (False, True):
                got = run(game, mail, trace, tmp / f"run-{int(trace)}")
                if trace not in best or got[1] < best[trace][1]:  # CPU: a turn's wall time is mostly its fsyncs
                    best[trace] = got
        off, on = best[False], best[True]
        print(f"{name} turn {n}: off {off[1]:.3f} s CPU ({off[0]:.3f} wall, engine {off[2]:.3f}); "
              f"--trace {on[1]:.3f} s CPU ({on[0]:.3f} wall, engine {on[2]:.3f}): "
              f"{100 * (on[1] - off[1]) / off[1]:+.0f}% the turn's CPU, engine +{on[2] - off[2]:.3f} s; "
              f"trace {on[3] / 1e3:.0f} kB")
        # The next turn starts from this one, as played without the trace.
        GameFolder(game).process_turn(mail)


def covert(tmp: Path, repeat: int) -> None:
    example = ROOT / "examples" / "covert"
    game = tmp / "covert"
    GameFolder.create(ROOT / "rulesets" / "covert.rules", game, example / "scenario.yaml", None)
    days = [sorted((example / f"day{d}").glob("*.txt")) for d in range(1, 6)]
    compare("covert", game, days, repeat, tmp)


def warlord(tmp: Path, repeat: int, players: int) -> None:
    folder = new_game(tmp, players, 1)
    rng = random.Random(1)
    # Both turns' orders name the starting divisions: on turn 2 some have fallen, and their lines are refused.
    start = folder.turns_dir / "turn-000" / "state.yaml"
    turns = [random_moves(start, tmp, turn, players, rng) for turn in (1, 2)]
    compare("warlord", folder.root, turns, repeat, tmp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--skip-warlord", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        covert(tmp, args.repeat)
        if not args.skip_warlord:
            warlord(tmp, args.repeat, args.players)


if __name__ == "__main__":
    main()

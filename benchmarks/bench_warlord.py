"""rulesets/warlord.rules at full size -> times of `rulesdsl new` and of whole turns with orders from every player.

Run: python benchmarks/bench_warlord.py
     python benchmarks/bench_warlord.py --players 100 --turns 3 --seed 1

A generated 320 x 99 world (the ruleset's own generator) with --players players; then --turns turns, each
with a mail from every player: an A order in a random direction for each of its six starting divisions
(from the second turn, the ones still standing are read from the state), and on the first turn infantry
in all three centres of its home city. Each turn is GameFolder.process_turn, as `rulesdsl turn` runs it:
the mail read, the state loaded, the engine, 100 reports and the state written. Wall and CPU times, the
process's peak memory, and the game's divisions and owned sectors after each turn.

Figures on this machine (2 cores, Python 3.11), at the commit adding this script, 100 players, seed 1,
`python benchmarks/bench_warlord.py --turns 3`:
  new: 2.10 s wall, 2.05 s CPU (generation, 100 starting reports, the state), peak 132 MB
  turn 1: 1.20 s wall, 1.14 s CPU; 600 divisions and 695 owned sectors before it
  turn 2: 1.46 s wall, 1.32 s CPU; 659 divisions, 1,146 owned sectors
  turn 3: 1.44 s wall, 1.39 s CPU; 715 divisions, 1,854 owned sectors
Most of a turn is the 100 reports, and most of a report its 41 x 41 strategic map (a rules function per
sector); before the map's symbol asked first whether the player has ever seen the sector, turns 2 and 3
took 2.6 and 3.3 s wall.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from pathlib import Path

import yaml

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rulesets" / "warlord.rules"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        scenario = base / "scenario.yaml"
        players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, args.players + 1)]
        scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": args.seed, "players": players}),
                            encoding="utf-8")
        wall, cpu = time.perf_counter(), time.process_time()
        folder = GameFolder.create(RULES, base / "game", scenario, None)
        print(f"new: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
              f"peak {peak_mb():.0f} MB")
        for turn in range(1, args.turns + 1):
            state = yaml.safe_load((folder.turns_dir / f"turn-{turn - 1:03d}" / "state.yaml").read_text())
            division = state["Division"]
            cols = division["columns"]
            units: dict[str, list[int]] = {}
            for row in division["rows"]:
                rec = dict(zip(cols, row, strict=True))
                units.setdefault(str(rec["owner"]), []).append(int(rec["number"]))
            mail = []
            for i in range(1, args.players + 1):
                lines = ["WL-1", f"{i} C{i}"]
                lines += [f"A {n} {rng.randint(1, 8)}" for n in units.get(str(i), [])]
                if turn == 1:
                    lines += [f"C {i} 1"] * 3
                path = base / f"mail-{turn}-{i}.txt"
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                mail.append(path)
            wall, cpu = time.perf_counter(), time.process_time()
            folder.process_turn(mail)
            owned = state["Sector"].get("owner", {})
            print(f"turn {turn}: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
                  f"peak {peak_mb():.0f} MB; {sum(len(v) for v in units.values())} divisions and "
                  f"{len(owned) if isinstance(owned, dict) else '?'} owned sectors before it")


if __name__ == "__main__":
    main()

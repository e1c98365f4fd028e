"""rulesets/warlord.rules at full size -> times of `rulesdsl new` and of whole turns with orders from every player.

Run: python benchmarks/bench_warlord.py
     python benchmarks/bench_warlord.py --players 100 --turns 3 --seed 1

A generated 320 x 99 world (the ruleset's own generator) with --players players; then --turns turns, each
with a mail from every player: an A order in a random direction for each of its divisions
(from the second turn, the ones still standing are read from the state), and on the first turn infantry
in all three centres of its home city. Each turn is GameFolder.process_turn, as `rulesdsl turn` runs it:
the mail read, the state loaded, the engine, 100 reports and the state written. Wall and CPU times, the
process's peak memory, and the game's divisions and owned sectors before each turn.

Figures on this machine (2 cores, Python 3.11, other jobs running), 100 players, seed 1,
`python benchmarks/bench_warlord.py --turns 2 [--divisions N]` (the 150 free cities' forces are divisions
of no player, counted in N):
  new: 2.15 s wall (generation, 100 starting reports, the state), peak 133 MB
  the starting 750 divisions: turn 1 1.01 s, turn 2 1.07 s wall
  --divisions 1000:  turn 1 1.05 s, turn 2 1.30 s wall, peak 132 MB
  --divisions 5000:  turn 1 1.97 s, turn 2 2.40 s wall, peak 176 MB
  --divisions 20000: turn 1 4.41 s, turn 2 4.57 s wall, peak 370 MB
A turn's fixed part is the 100 reports, most of each its 41 x 41 strategic map (a rules function per
sector): before the map's symbol asked first whether the player has ever seen the sector, turns with the
starting divisions took 2.6 to 3.3 s wall. Per division, the orders (an A order each, in a direction) and
the six movement phases.
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


def add_divisions(path: Path, total: int) -> None:
    """Adds infantry divisions to a starting state, round the players' homes, until there are `total`."""
    state = yaml.safe_load(path.read_text(encoding="utf-8"))
    section = state["Division"]
    cols = section["columns"]
    rows = section["rows"]
    firsts = {}
    for row in rows:
        if row[cols.index("owner")] is not None:  # a free city's forces belong to no player
            firsts.setdefault(row[cols.index("owner")], row)
    numbers = {owner: max(int(r[cols.index("number")]) for r in rows if r[cols.index("owner")] == owner)
               for owner in firsts}
    owners = sorted(firsts, key=int)
    i = 0
    while len(rows) < total:
        owner = owners[i % len(owners)]
        numbers[owner] += 1
        row = list(firsts[owner])
        row[cols.index("number")] = numbers[owner]
        row[cols.index("regiments")] = 5
        rows.append(row)
        i += 1
    class NoAliases(yaml.SafeDumper):
        def ignore_aliases(self, data: object) -> bool:
            return True

    path.write_text(yaml.dump(state, Dumper=NoAliases, sort_keys=False), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--divisions", type=int, default=0,
                    help="divisions in all after the start: the others are added to the starting state, "
                         "spread over the players' homes (their order lines grow with them)")
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
        if args.divisions:
            add_divisions(folder.turns_dir / "turn-000" / "state.yaml", args.divisions)
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

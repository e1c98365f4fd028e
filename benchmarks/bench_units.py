"""Numbered units at Warlord's scale -> times of new, indexed moves, counts through the index, destroy, and the
state's save and load, at two sizes (the time should grow close to linearly).

Run: python benchmarks/bench_units.py
     python benchmarks/bench_units.py --units 5000 50000 --runs 3

A ruleset with Warlord's map (`grid Sector { size 320 by 99 ... }`, 31,680 sectors) and `thing Division
numbered per owner { sector: Sector indexed ... }` is compiled as `rulesdsl` compiles any; its phases are run
on a game of 100 players, each step timed (CPU time of this process, time.process_time, median of --runs, a
fresh game each run):
- new: every player makes its share of the units, each in a sector drawn at random;
- move x 6: every unit moves 6 times to a neighbouring sector (`d.sector = ...`, the index kept by the
  property's setter);
- count: every one of the 31,680 sectors counts its units through the index
  (`count(d for d in Division where d.sector == s)`);
- destroy 10%: every tenth unit is destroyed in a loop (its number freed, its indexes and the players' field
  that may hold it cleaned);
- save: runtime.state.dump and the YAML text (each unit one flow row); load: the YAML read back and
  runtime.state.load.

Figures on this machine (2 cores, Python 3.11, --runs 3, other work running beside it):
  step               5,000 units      20,000 units      50,000 units   ratio
  new                    0.016 s           0.091 s           0.371 s      23.7x
  move x 6               0.053 s           0.246 s           0.641 s      12.1x
  count                  0.003 s           0.006 s           0.005 s       1.6x
  destroy 10%            0.001 s           0.007 s           0.016 s      17.0x
  save                   0.079 s           0.302 s           0.752 s       9.6x
  load                   0.218 s           0.639 s           1.548 s       7.1x
  total                  0.369 s           1.290 s           3.333 s       9.0x
The whole grows as the units do (10x units, 9x time). Of the small steps, `new` of 50,000 is Python's cycle
collector walking a heap that grows as it makes them (11x with the collector paused), and a move costs
1.3 us at 50,000 against 0.9 us at 5,000, its buckets no longer in the processor's cache. Counting the
31,680 sectors' units through the index takes milliseconds at any size. The state's save and load are mostly
YAML (runtime/state.py itself: 0.04 s to dump 50,000 units, 0.27 s to load them).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchkit import compile_rules

from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import dump, load, new_game

PLAYERS = 100

RULES = '''ruleset "Bench units" { version "1" turn "turn" }
param per_player: int = 50
thing Terrain keyed by code { symbol: text }
data Terrain(code, symbol) { open: "." }
grid Sector {
  size 320 by 99
  wrap east west
  numbered "CCCRR"
  terrain: Terrain = Terrain.open
  units: int = 0
}
thing Division numbered per owner {
  sector: Sector indexed
  regiments: int = 1
}
player { picked: Division? }
orders { header "{account}", "{code}" }
define spot(c: int, r: int) -> Sector? = sector_at(c - 1, r - 1)
phase make {
  for each p in players {
    for each i in 1..per_player {
      let at = spot(roll(320, "spawn"), roll(99, "spawn"))
      if at != none { new Division(owner: p, sector: at) }
    }
  }
}
phase move {
  for each step in 1..6 {
    for each d in Division {
      let to = neighbour(d.sector, roll(8, "move"))
      if to != none { d.sector = to }
    }
  }
}
phase census {
  for each s in Sector { s.units = count(d for d in Division where d.sector == s) }
}
phase attrition {
  for each d in Division where d.number % 10 == 0 { destroy d }
}
report { template "t.report.j2" }
'''


def compile_bench(folder: Path) -> RulesetSpec:
    return compile_rules(folder, RULES)[1]


def fresh(spec: RulesetSpec, units: int) -> Game:
    players = [{"name": f"P{i}", "account": f"a{i}", "code": "X"} for i in range(PLAYERS)]
    g = new_game(spec, {"players": players, "parameters": {"per_player": units // PLAYERS}})
    g.turn = 1
    return g


def steps(spec: RulesetSpec, units: int) -> dict[str, float]:
    phase = {p.name: p.run for p in spec.phases}
    g = fresh(spec, units)
    out: dict[str, float] = {}

    def step(name: str, fn: Callable[[], Any]) -> Any:
        t = time.process_time()
        value = fn()
        out[name] = time.process_time() - t
        return value

    step("new", lambda: phase["make"](g))
    assert len(g.units["Division"].live()) == units
    step("move x 6", lambda: phase["move"](g))
    step("count", lambda: phase["census"](g))
    assert sum(s.units for s in g.all["Sector"]) == units  # type: ignore[attr-defined]
    step("destroy 10%", lambda: phase["attrition"](g))
    assert len(g.units["Division"].live()) == units - units // 10
    text = step("save", lambda: dump_text(dump(g)))
    again = step("load", lambda: load(spec, load_text(text)))
    assert len(again.units["Division"].live()) == units - units // 10
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=int, nargs="+", default=[5000, 20000, 50000])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec = compile_bench(Path(tmp))
        table: dict[int, dict[str, float]] = {}
        for n in args.units:
            runs = [steps(spec, n) for _ in range(args.runs)]
            table[n] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    names = list(next(iter(table.values())))
    print(f"{'step':<14}" + "".join(f"{n:>12,} units" for n in table) +
          ("   ratio" if len(table) > 1 else ""))
    for k in [*names, "total"]:
        row = [sum(t.values()) if k == "total" else t[k] for t in table.values()]
        ratio = f"   {row[-1] / row[0]:5.1f}x" if len(row) > 1 and row[0] else ""
        print(f"{k:<14}" + "".join(f"{v:>14.3f} s  " for v in row) + ratio)


if __name__ == "__main__":
    main()

"""Numbered units at Warlord's scale -> times of new, indexed moves, counts through the index, destroy, and the
state's save and load, at two sizes (the time should grow close to linearly).

Run: python benchmarks/bench_units.py
     python benchmarks/bench_units.py --units 5000 50000 --runs 3

A ruleset of 1,000 places (a keyed thing, standing in for sectors) and `thing Division numbered per owner
{ place: Place indexed ... }` is compiled as `rulesdsl` compiles any; its phases are run on a game of 100
players, each step timed (CPU time of this process, time.process_time, median of --runs, a fresh game each
run):
- new: every player makes its share of the units (`new Division(owner: p, place: pick(Place, ...))`);
- move x 6: every unit moves 6 times (`d.place = ...`, the index kept by the property's setter);
- count: every place counts its units through the index (`count(d for d in Division where d.place == c)`);
- destroy 10%: every tenth unit is destroyed in a loop (its number freed, its indexes and the players' field
  that may hold it cleaned);
- save: runtime.state.dump and the YAML text (each unit one flow row); load: the YAML read back and
  runtime.state.load.

Figures on this machine (2 cores, Python 3.11, --runs 3, other work running beside it):
  step               5,000 units      20,000 units      50,000 units   ratio
  new                    0.018 s           0.071 s           0.282 s      15.8x
  move x 6               0.049 s           0.191 s           0.542 s      11.0x
  count                  0.000 s           0.000 s           0.000 s       1.1x
  destroy 10%            0.001 s           0.003 s           0.012 s      16.5x
  save                   0.058 s           0.212 s           0.523 s       9.0x
  load                   0.114 s           0.477 s           1.169 s      10.3x
  total                  0.240 s           0.955 s           2.529 s      10.5x
Runs vary by a third on small steps (`new` of 50,000 took 0.14 to 0.28 s): the whole is what to compare. The
state's save and load are mostly YAML (runtime/state.py itself: 0.04 s to dump 50,000 units, 0.27 s to load).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulesdsl.compiler import check_path, load_module
from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import dump, load, new_game

PLACES = 1000
PLAYERS = 100

RULES = '''ruleset "Bench units" { version "1" turn "turn" }
param per_player: int = 50
thing Place keyed by code { units: int = 0 }
data Place(code, units) {
PLACE_ROWS
}
thing Division numbered per owner {
  place: Place indexed
  regiments: int = 1
}
player { picked: Division? }
orders { header "{account}", "{code}" }
phase make {
  for each p in players {
    for each i in 1..per_player {
      let at = pick(Place, "spawn")
      if at != none { new Division(owner: p, place: at) }
    }
  }
}
phase move {
  for each step in 1..6 {
    for each d in Division {
      let to = pick(Place, "move")
      if to != none { d.place = to }
    }
  }
}
phase census {
  for each c in Place { c.units = count(d for d in Division where d.place == c) }
}
phase attrition {
  for each d in Division where d.number % 10 == 0 { destroy d }
}
report { template "t.report.j2" }
'''


def compile_bench(folder: Path) -> RulesetSpec:
    rows = "\n".join(f"  P{i}: 0" for i in range(PLACES))
    path = folder / "t.rules"
    path.write_text(RULES.replace("PLACE_ROWS", rows), encoding="utf-8")
    (folder / "t.report.j2").write_text("{{ game.turn }}\n", encoding="utf-8")
    checked = check_path(path)
    assert checked.ok, checked.diagnostics
    _, spec = load_module(path, folder / "cache")
    return spec


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
    assert sum(c.units for c in g.all["Place"]) == units  # type: ignore[attr-defined]
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

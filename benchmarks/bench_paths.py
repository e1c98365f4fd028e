"""A Warlord-sized map and 2,000 route searches written in rules -> searches per second through the compiled module.

Run: python benchmarks/bench_paths.py
     python benchmarks/bench_paths.py --runs 3 --seed 2 --searches 2000

A ruleset with Warlord's 320 x 99 map (east-west wrap), its terrain and its `move_cost(t, m) -> int?` table
(infantry and armour columns, sea impassable to both, forest, swamp and mountains impassable to armour) is
compiled as `rulesdsl` compiles any. The map is generated with runtime/worldgen.py (70% land in 3
continents, so 30% of the map is impassable sea, plus clumps of forest, swamp, mountains and the rest) and
given to `new_game` as the scenario's drawn terrain layer. 2,000 (start, goal, class) triples are drawn:
both ends on land, 10 to 80 king moves apart, half infantry, half armour; a goal on another continent, or
walled off for armour, cannot be reached, and its search explores what it can reach, as an A order's would.

Timed (CPU time of this process, time.process_time, median of --runs, a fresh game for each run so that no
run reads what an earlier one worked out):
- path: `define route(a, b, m) = path(move_cost(x.terrain, m) for x from a to b)`, the generated function
  called once per triple. The terrain changes in no rule, so the prices are kept for the game (one set per
  class) and a goal the start cannot reach is known at once after the first search that fails;
- path within 40: the same search bounded to the sectors within 40 of its start
  (`path(... from a to b within 40)`); goals further than 40 away are left out of this line's triples;
- repeat: the 2,000 path searches again in the same game (a turn whose units share starts and goals);
- path, asked afresh: the same routes with a COST that also reads `x.toll`, a field a phase changes, so
  that every search asks COST of each sector it looks at (the search itself, without kept prices).

Figures on this machine (2 cores, Python 3.11, --runs 3, seed 1; other work running beside it):
  before this branch (`--no-bound`, the compiler at bc35f91; every search asks COST of each sector it
  looks at, whatever COST reads):
    path x 2,000                 5.290 s   (378 searches a second)
    path, asked afresh x 2,000   5.479 s   (365 searches a second)
  after (`python benchmarks/bench_paths.py`):
    path x 2,000                 0.569 s   (3,517 searches a second)
    path within 40 x 1,540       0.364 s   (4,235 searches a second)
    repeat x 2,000               0.005 s   (373,690 searches a second)
    path, asked afresh x 2,000   5.203 s   (384 searches a second)
  1,430 found, 28.9 steps on average, 570 unreachable.
Of the 5.3 s before, 85% were the 570 searches that found no route, each exploring the continent it
started on (6 ms each); with kept prices the first such search prices the map and cuts it into parts,
and the others take microseconds. The 1,430 searches that find a route take 0.38 ms each, the search's
own loop (a heap pop and up to 8 neighbours per sector looked at); the COST calls a kept price list saves
are the rest.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchkit import compile_rules

from rulesdsl.runtime import worldgen
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import new_game

WIDTH, HEIGHT = 320, 99

RULES = '''ruleset "Bench paths" { version "1" turn "turn" }
thing MoveClass keyed by code { name: text }
data MoveClass(code, name) { INF: "infantry"  ARM: "armour" }
thing Terrain keyed by code { symbol: text }
data Terrain(code, symbol) {
  open: "."  woods: "w"  marsh: "m"  hills: "h"  forest: "f"  swamp: "s"  mountains: "^"  sea: "~"
}
table move_cost(t: Terrain, m: MoveClass) -> int? {
  open, INF: 1
  open, ARM: 1
  woods, INF: 2
  woods, ARM: 2
  marsh, INF: 2
  marsh, ARM: 3
  hills, INF: 2
  hills, ARM: 2
  forest, INF: 2
  forest, ARM: none
  swamp, INF: 3
  swamp, ARM: none
  mountains, INF: 3
  mountains, ARM: none
  sea, INF: none
  sea, ARM: none
}
grid Sector {
  size 320 by 99
  wrap east west
  numbered "CCCRR"
  draw terrain with symbol
  terrain: Terrain = Terrain.sea
  toll: int = 0
}
orders { header "{account}", "{code}" }
define route(a: Sector, b: Sector, m: MoveClass) -> list of Sector =
  path(move_cost(x.terrain, m) for x from a to b)
define fresh_route(a: Sector, b: Sector, m: MoveClass) -> list of Sector =
  path(if x.toll > 0 then none else move_cost(x.terrain, m) for x from a to b)
phase tolls { for each s in Sector where s.toll > 0 { s.toll -= 1 } }
BOUNDED
report { template "t.report.j2" }
'''

BOUNDED = '''define near_route(a: Sector, b: Sector, m: MoveClass) -> list of Sector =
  path(move_cost(x.terrain, m) for x from a to b within 40)
'''

# Shares of the land (percent) and typical clump sizes, Warlord's mix roughly.
PATCHES = (("w", 12, 30), ("m", 6, 20), ("h", 12, 40), ("f", 8, 30), ("s", 3, 15), ("^", 6, 30))


def world(seed: int) -> list[str]:
    grid = Grid(WIDTH, HEIGHT, wrap_x=True)
    rng = random.Random(seed)
    land = worldgen.continents(grid, rng, range(grid.size), 70, 3)
    cells = ["~"] * grid.size
    for s in land:
        cells[s] = "."
    clumps = worldgen.patches(grid, rng, land, [p[1] for p in PATCHES], [p[2] for p in PATCHES])
    for (symbol, _, _), sectors in zip(PATCHES, clumps, strict=True):
        for s in sectors:
            cells[s] = symbol
    return ["".join(cells[r * WIDTH : (r + 1) * WIDTH]) for r in range(HEIGHT)]


def triples(rows: list[str], seed: int, n: int, most: int) -> list[tuple[int, int, str]]:
    grid = Grid(WIDTH, HEIGHT, wrap_x=True)
    cells = "".join(rows)
    rng = random.Random(seed + 1000)
    out: list[tuple[int, int, str]] = []
    while len(out) < n:
        a = rng.randrange(grid.size)
        if cells[a] == "~":
            continue
        r = rng.randint(10, most)
        b = grid.sector((grid.col(a) + rng.randint(-r, r)) % WIDTH, min(HEIGHT - 1, max(0, grid.row(a) +
                        rng.randint(-r, r))))
        if cells[b] == "~" or not 10 <= grid.distance(a, b) <= most:
            continue
        out.append((a, b, rng.choice(("INF", "ARM"))))
    return out


def compile_bench(folder: Path, bounded: bool) -> tuple[Any, RulesetSpec]:
    return compile_rules(folder, RULES.replace("BOUNDED", BOUNDED if bounded else ""))


def fresh(spec: RulesetSpec, rows: list[str]) -> Game:
    players = [{"name": "P", "account": "a", "code": "X"}]
    g = new_game(spec, {"players": players, "Sector": {"terrain": "\n".join(rows) + "\n"}})
    g.turn = 1
    return g


def searches(fn: Any, g: Game, todo: list[tuple[int, int, str]]) -> list[int]:
    sectors = g.sectors
    classes = g.index["MoveClass"]
    return [len(fn(g, sectors[a], sectors[b], classes[m])) for a, b, m in todo]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--searches", type=int, default=2000)
    ap.add_argument("--no-bound", action="store_true", help="leave out `within` (for a compiler without it)")
    args = ap.parse_args()
    rows = world(args.seed)
    todo = triples(rows, args.seed, args.searches, 80)
    grid = Grid(WIDTH, HEIGHT, wrap_x=True)
    near = [t for t in todo if grid.distance(t[0], t[1]) <= 40]
    with tempfile.TemporaryDirectory() as tmp:
        module, spec = compile_bench(Path(tmp), not args.no_bound)
        times: dict[str, list[float]] = {"path": [], "within": [], "repeat": [], "fresh": []}
        lengths: list[int] = []
        for _ in range(args.runs):
            g = fresh(spec, rows)
            t = time.process_time()
            lengths = searches(module.fn_route, g, todo)
            times["path"].append(time.process_time() - t)
            t = time.process_time()
            searches(module.fn_route, g, todo)
            times["repeat"].append(time.process_time() - t)
            g = fresh(spec, rows)
            t = time.process_time()
            assert searches(module.fn_fresh_route, g, todo) == lengths
            times["fresh"].append(time.process_time() - t)
            if not args.no_bound:
                g = fresh(spec, rows)
                t = time.process_time()
                searches(module.fn_near_route, g, near)
                times["within"].append(time.process_time() - t)
    found = [n for n in lengths if n]
    n = len(todo)
    print(f"map {WIDTH} x {HEIGHT}, seed {args.seed}; CPU seconds, median of {args.runs}", file=sys.stdout)
    for name, label, count in (("path", f"path x {n:,}", n), ("within", f"path within 40 x {len(near):,}",
                                                                   len(near)), ("repeat", f"repeat x {n:,}", n),
                               ("fresh", f"path, asked afresh x {n:,}", n)):
        if times[name]:
            m = statistics.median(times[name])
            print(f"  {label:<24} {m:7.3f} s  ({count / m:,.0f} searches a second)")
    print(f"  {len(found):,} found, {statistics.mean(found):.1f} steps on average, {n - len(found)} unreachable")


if __name__ == "__main__":
    main()

"""A Warlord-sized world generator written in the rules -> times of `rulesdsl new` and of the generation itself.

Run: python benchmarks/bench_worldrules.py
     python benchmarks/bench_worldrules.py --runs 3 --players 100

The ruleset (RULES below) generates a 320 x 99 world the way warlord.rules' draft wishes to, in a phase
`at start`: 30% land in 7 continents away from the polar rows, mountain ranges, five terrains in patches,
100 player homes spread at least 12 apart on open land (each owning the land it can walk to within 2
steps, found with `reachable`), 150 neutral cities and 60 ruins scattered, and the land joined to the
homes traced with `reachable`. Timed (CPU time of this process, median of --runs):
- new: GameFolder.create, as `rulesdsl new` runs it: the 31,680 sectors, the generation, 100 starting
  reports and the state written (the module compiled once before, as the compile cache keeps it; the
  first, compiling, is shown too);
- generate: state.new_game in process: the sectors and the generation, nothing written;
- the builtins alone on the same map, each once per run.

Figures on this machine (2 cores, Python 3.11, --runs 3), at the commit adding this script:
  100 players, 320 x 99: rulesdsl new 0.549 s (the first, compiling, 0.885 s); new_game (sectors and
  generation) 0.302 s. The builtins alone: continents 0.163 s, ranges 0.003 s, patches (one kind, 15% of
  the land) 0.004 s, spread (100, 12 apart) 0.012 s, scatter (150, 5 apart) 0.002 s, regions 0.006 s,
  coast 0.005 s, reach over all 9,300 land sectors 0.006 s. Continents is most of the generation; the
  generated code's comprehensions and assignments over the 31,680 sectors are the rest.
  The command itself, `rulesdsl new bench.rules g --scenario scenario.yaml` (the RULES and scenario below
  written out): 1.24 s wall, 91 MB peak, against the 2 s target; the same seed twice gives the same
  state.yaml byte for byte (2,987 lines).
  The spread asks 12 apart and gets 10: 100 homes do not fit 12 apart on this map's open land and plains,
  and `least_distance` tells the rules so.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from rulesdsl.compiler import load_module
from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime import generate
from rulesdsl.runtime.sectors import reach
from rulesdsl.runtime.state import new_game

RULES = '''ruleset "World Bench" {
  version "1"
}

orders {
  header "{account}", "{code}"
}

param map_width: int = 320
param map_height: int = 99
param generate_world: bool = true

thing Terrain keyed by code {
  symbol: text
  share: int = 0      # percent of the land, grown in patches
  site: bool = false  # a city may stand here
}

data Terrain(code, symbol, share, site) {
  sea: "~", 0, false
  open: ".", 0, true
  plains: "-", 15, true
  forest: "f", 15, false
  jungle: "j", 6, false
  swamp: "s", 5, false
  desert: "d", 8, false
  mountains: "^", 0, false
}

grid Sector {
  size map_width by map_height
  wrap east west
  numbered "CCCRR"
  draw terrain with symbol
  terrain: Terrain = Terrain.sea
  owner: Player?
  city: bool = false
  ruin: bool = false
}

player {
  home: Sector?
  land: int = 0
}

world {
  continents: int = 0
  home_spacing: int = 0
  reached: int = 0
}

phase create_world at start when generate_world {
  let land = continents(band(1, map_height - 2), 30, 7, "world")
  for each x in land {
    x.terrain = Terrain.open
  }
  for each x in ranges(land, size(land) * 8 div 100, 12, "world") {
    x.terrain = Terrain.mountains
  }
  for each t in Terrain where t.share > 0 by t.share descending {
    for each x in patches([y for y in land where y.terrain == Terrain.open], size(land) * t.share div 100, 40,
                          "world") {
      x.terrain = t
    }
  }
  world.continents = size(regions(land))
  let sites = [x for x in land where x.terrain.site]
  let homes = spread(sites, size(players), 12, "homes")
  world.home_spacing = least_distance(homes)
  for each i in 0..size(homes) - 1 {
    let home = homes[i]
    home.city = true
    players[i].home = home
    for each y in reachable(x for x from home where x.terrain != Terrain.sea and distance(x, home) <= 2) {
      y.owner = players[i]
    }
  }
  for each x in scatter([y for y in sites where not y.city], 150, 5, "cities") {
    x.city = true
  }
  for each x in scatter([y for y in land where not y.city], 60, 3, "ruins") {
    x.ruin = true
  }
  world.reached = size(reachable(x for x from homes where x.terrain != Terrain.sea))
}

procedure trace_land() {
  for each p in players {
    if p.home != none {
      p.land = size(reachable(x for x from p.home where x.owner == p))
    }
  }
}

phase first_supply at start {
  trace_land()
}

phase supply {
  trace_land()
}

report {
  home = me.home
  land = me.land
  template "bench.report.j2"
}
'''


def timed(fn: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def scenario(players: int) -> str:
    rows = "".join(f"  - {{name: Player {i + 1}, account: '{i + 1}', code: C{i + 1}}}\n" for i in range(players))
    return f"seed: 1\nplayers:\n{rows}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--players", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src = root / "src"
        src.mkdir()
        rules = src / "bench.rules"
        rules.write_text(RULES, encoding="utf-8")
        (src / "bench.report.j2").write_text("{{ player.name }}: {{ home }}, {{ land }} sectors\n", encoding="utf-8")
        (src / "scenario.yaml").write_text(scenario(args.players), encoding="utf-8")
        made = [0]

        def new() -> GameFolder:
            made[0] += 1
            return GameFolder.create(rules, root / f"game{made[0]}", src / "scenario.yaml", None)

        t = time.process_time()
        new()
        t_cold = time.process_time() - t
        t_new = timed(new, args.runs)

        _, spec = load_module(rules, root / "cache")
        data: dict[str, Any] = yaml.safe_load(scenario(args.players))
        games: list[Any] = []
        t_gen = timed(lambda: games.append(new_game(spec, data)), args.runs)
        g = games[-1]
        print(f"{args.players} players, 320 x 99: rulesdsl new {t_new:.3f} s (the first, compiling, "
              f"{t_cold:.3f} s); new_game (sectors and generation) {t_gen:.3f} s")
        print(f"  continents {g.world.continents}, homes {g.world.home_spacing} apart, "
              f"land joined to homes {g.world.reached}")

        rng = random.Random(1)
        parts: dict[str, Callable[[], object]] = {}
        land: list[Any] = []

        def cont() -> None:
            land[:] = generate.continents(g, rng, generate.band(g, 1, 97), 30, 7)

        parts["continents"] = cont
        cont()
        parts["ranges"] = lambda: generate.ranges(g, rng, land, len(land) * 8 // 100, 12)
        parts["patches (one kind, 15%)"] = lambda: generate.patches(g, rng, land, len(land) * 15 // 100, 40)
        parts["spread (100, 12 apart)"] = lambda: generate.spread(g, rng, land, 100, 12)
        parts["scatter (150, 5 apart)"] = lambda: generate.scatter(g, rng, land, 150, 5)
        parts["regions"] = lambda: generate.regions(g, land)
        parts["coast"] = lambda: generate.coast(g, land)
        inland = set(id(s) for s in land)
        parts["reach over all land"] = lambda: reach(g, land, lambda s: id(s) in inland)
        for name, fn in parts.items():
            print(f"  {name}: {timed(fn, args.runs):.3f} s")


if __name__ == "__main__":
    main()

"""A unit game's orders at Warlord's size -> the engine's time to read, choose and carry them out.

Run: python benchmarks/bench_orders.py
     python benchmarks/bench_orders.py --players 100 --units 50 --standing 10 --runs 5

A ruleset written here (no grid: section C alone) gives each of `--players` players `--units` moves
`M UNIT ROUTE` (a unit number and six packed digits, `digits 0..8`) and the same number of attacks
`A UNIT TARGET` on the same units, both `once per turn per unit as unit_order`, so half the lines are refused
by the shared once set, naming the line that took the unit first. Each player also has `--standing` standing
orders `F BASE TO PLANES` (`standing per base until planes == 0`), given on turn 1; on turn 2 the same mail
is given without them, so the engine reads each standing order again by its own syntax, judges its `valid`
and runs it. Timed (CPU time, median of `--runs`): turn 2 in `Game.process_turn`, from the mail's text to the
orders carried out, then `runtime.state.dump` + `load` of the state that holds the standing orders.
Not timed: the compile (cached), the reports.

Then a phase `at start` at Warlord's size: a 320 x 99 grid whose start phase draws each sector's terrain
(`roll` from one stream, 31,680 draws) and gives each player a home; timed: runtime.state.new_game with the
phase (`generate` true) and without it (a scenario that draws its own map sets `generate: false`).

Figures on this machine (2 cores, Python 3.11; median of 3-5 runs, CPU time):
  100 players, 10,000 lines + 1,000 standing orders:    88-112 ms a turn (8-10 us an order); dump + load 1-2 ms
  the same without standing orders (--standing 0):       75 ms
  100 players, 100,000 lines + 10,000 standing orders:  960 ms (8.6x the time for 10x the orders)
  new game on the 320 x 99 grid: 209 ms with the start phase (31,680 draws and 100 homes, each picked from
  a list of the open sectors nobody holds), 52 ms without it
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rulesdsl.compiler import load_module
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import dump, load, new_game

RULES = '''ruleset "Order bench" { turn "turn" }
player {
  moved: int = 0
  attacks: int = 0
  flown: int = 0
}
orders { header "{account}", "{code}" }
order move "M {unit} {route}" {
  unit: 1..99999
  route: digits 0..8
  once per turn per unit as unit_order
  effect { me.moved += size(route) }
}
order attack "A {unit} {target}" {
  unit: 1..99999
  target: 0..8
  once per turn per unit as unit_order
  effect { me.attacks += target }
}
order fly "F {base} {to} {planes}" {
  base: 1..999
  to: 0..999
  planes: digits 0..9
  valid base != to else "a flight goes somewhere else"
  standing per base until to == 0
  effect { me.flown += size(planes) }
}
phase flights: run fly
phase moves: run move
phase attacks: run attack
report {
  moved = me.moved
  template "b.j2"
}
'''


START_RULES = '''ruleset "Start bench" { turn "turn" }
param generate: bool = true
thing Terrain keyed by code {
  symbol: text
}
data Terrain(code, symbol) { open: "."  sea: "~"  hills: "^" }
grid Sector {
  size 320 by 99
  wrap east west
  numbered "CCCRR"
  draw terrain with symbol
  terrain: Terrain = Terrain.sea
  owner: Player?
}
player { home: Sector? }
orders { header "{account}", "{code}" }
phase world at start when generate {
  for each s in Sector {
    let r = roll(10, "terrain")
    if r <= 3 {
      s.terrain = Terrain.open
    } else if r == 4 {
      s.terrain = Terrain.hills
    }
  }
  for each p in players {
    let home = pick([s for s in Sector where s.terrain == Terrain.open and s.owner == none], "homes")
    if home != none {
      p.home = home
      home.owner = p
    }
  }
}
report {
  home = if me.home != none then "{me.home}" else "-"
  template "b.j2"
}
'''


def mail(players: int, units: int, standing: int, with_standing: bool) -> list[tuple[str, str]]:
    out = []
    for p in range(players):
        lines = [f"p{p}", f"C{p}"]
        if with_standing:
            lines += [f"F {b + 1} {b + 100} 23" for b in range(standing)]
        lines += [f"M {u + 1} {'012345678'[u % 9]}01234" for u in range(units)]
        lines += [f"A {u + 1} {u % 9}" for u in range(units)]
        out.append((f"p{p}.txt", "\n".join(lines) + "\n"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--units", type=int, default=50)
    ap.add_argument("--standing", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "b.rules"
        rules.write_text(RULES, encoding="utf-8")
        (Path(tmp) / "b.j2").write_text("{{ moved }}\n", encoding="utf-8")
        module, spec = load_module(rules)
        players = [{"name": f"P{i}", "account": f"p{i}", "code": f"C{i}"} for i in range(args.players)]
        start = new_game(spec, {"players": players, "seed": 1})
        start.module_file = str(module.__file__)
        first = load(spec, dump(start))
        first.process_turn(mail(args.players, args.units, args.standing, True))
        after_one = dump(first)
        lines = mail(args.players, args.units, args.standing, False)
        turn_times, io_times = [], []
        game: Game | None = None
        for _ in range(args.runs):
            game = load(spec, after_one)
            t0 = time.process_time()
            game.process_turn(lines)
            turn_times.append(time.process_time() - t0)
            t0 = time.process_time()
            load(spec, dump(game))
            io_times.append(time.process_time() - t0)
        assert game is not None
        p0 = game.turns["p0"]
        assert sum(1 for r in p0.used if r.repeat) == args.standing, "each standing order runs again"
        assert len(p0.refused) == args.units, "each attack repeats a move's unit"
        orders = args.players * (2 * args.units + args.standing)
        turn_s = statistics.median(turn_times)
        print(f"{args.players} players, {orders} order lines ({args.players * args.standing} standing orders "
              f"run again, {args.players * args.units} refused by the shared once set)")
        print(f"  turn (read, choose, run):  {turn_s * 1000:8.1f} ms  ({turn_s / orders * 1e6:.1f} us an order)")
        print(f"  state dump + load:         {statistics.median(io_times) * 1000:8.1f} ms")
        start_rules = Path(tmp) / "s.rules"
        start_rules.write_text(START_RULES, encoding="utf-8")
        (Path(tmp) / "b.j2").write_text("{{ home }}\n", encoding="utf-8")
        _, sspec = load_module(start_rules)
        for generate in (True, False):
            times = []
            for _ in range(args.runs):
                t0 = time.process_time()
                made = new_game(sspec, {"players": players, "seed": 1, "parameters": {"generate": generate}})
                times.append(time.process_time() - t0)
            homes = sum(1 for p in made.all_players if getattr(p, "home", None) is not None)
            print(f"  new game, 320 x 99, start phase {'run' if generate else 'skipped'}: "
                  f"{statistics.median(times) * 1000:8.1f} ms ({homes} homes)")


if __name__ == "__main__":
    main()

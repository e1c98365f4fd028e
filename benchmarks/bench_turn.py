"""A Warlord-sized turn -> times of its parts: fields reset each turn, a big `set of Sector` per player growing
by `add`, the whole turn, and the state's save and load, with Python's cycle collector running and paused.

Run: python benchmarks/bench_turn.py
     python benchmarks/bench_turn.py --units 5000 --turns 4 --runs 3

A ruleset with Warlord's map (320 x 99 = 31,680 sectors, two fields `reset each turn`), 100 players and
--units divisions numbered per owner (four fields `reset each turn`, as the Warlord draft's mp, halted,
ordered and motorised) is compiled as `rulesdsl` compiles any. Each turn every division looks around: its
sector and the sectors next to it join its owner's `known: set of Sector` (so each player's set grows to
thousands of sectors over the turns), marks its sector `seen_by` its owner, and spends its `mp`. Timed
(CPU time of this process, median of --runs, a fresh game each run), per turn after the first:
- reset: Game._reset_fields alone (every field `reset each turn` back at its default);
- look: the phase of `add`s to the players' sets;
- turn: Game.process_turn (reset, phases, reports' data not included);
- save, load: runtime.state.dump + YAML text, and back;
and the same turn with the cycle collector paused (gc.disable); then the commands themselves on a game
folder: `rulesdsl new` (the units made by a phase at start) and `rulesdsl turn` (state read, turn, 100
reports and the state written), as they ran before (collector running but for YAML) and as `rulesdsl` runs
them now (collector paused for the whole command).

Figures on this machine (2 cores, Python 3.11, `python benchmarks/bench_turn.py --runs 3 --turns 3`, other
work running beside it), 5,000 units, each player knowing 1,125 to 1,296 sectors after 7 turns:
  reset             0.005 s   (2 sector fields x 31,680 and 4 unit fields x 5,000: cheap, left as it is)
  look              0.029 s   (45,000 adds to the players' sets: 0.424 s when each add was a membership
                               pass and a sort of the whole set)
  turn              0.042 s   (a turn's phases; 0.043 s with the collector paused: no difference here)
  save, load        0.390 s, 0.612 s  (1.7 MB of state)
  command           collector on   paused
  rulesdsl new         1.024 s    0.526 s
  rulesdsl turn        1.012 s    0.786 s

Keyed chance (`python benchmarks/bench_turn.py --keyed --runs 3`; printed first by every run): 100,000 draws of
`roll(100, "air")` in generated code's form, from one stream with no key, keyed by 1,000 sectors (100 draws
each), and under 100,000 different keys (one draw each: a new stream per draw):
  100k rolls, no key          0.035 s   (the Mersenne Twister of an unkeyed stream, as before)
  100k rolls, 1k keys         0.183 s   (a keyed draw: blake2b of the stream's name and its count)
  100k rolls, 100k keys       0.413 s   (0.805 s when each key seeded a random.Random of its own)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchkit import compile_rules

from rulesdsl.cli import build_parser
from rulesdsl.cli import main as cli
from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime.core import roll
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import dump, load, new_game

PLAYERS = 100

RULES = '''ruleset "Bench turn" { version "1" turn "turn" }
param per_player: int = 50
thing Terrain keyed by code { symbol: text }
data Terrain(code, symbol) { open: "." }
grid Sector {
  size 320 by 99
  wrap east west
  numbered "CCCRR"
  terrain: Terrain = Terrain.open
  seen_by: set of Player reset each turn
  region: int = 0 reset each turn
}
thing Division numbered per owner {
  sector: Sector indexed
  regiments: int = 1
  mp: int = 6 reset each turn
  halted: bool = false reset each turn
  ordered: bool = false reset each turn
  motorised: bool = false reset each turn
}
player { known: set of Sector }
orders { header "{account}", "{code}" }
define spot(c: int, r: int) -> Sector? = sector_at(c - 1, r - 1)
phase make at start {
  for each p in players {
    for each i in 1..per_player {
      let at = spot(roll(320, "spawn"), roll(99, "spawn"))
      if at != none { new Division(owner: p, sector: at) }
    }
  }
}
phase look {
  for each d in Division {
    add d.sector to d.owner.known
    for each s in neighbours(d.sector) { add s to d.owner.known }
    add d.owner to d.sector.seen_by
    d.mp -= 1
  }
}
phase wander {
  for each d in Division {
    let to = neighbour(d.sector, roll(8, "move"))
    if to != none { d.sector = to }
  }
}
report { template "t.report.j2" }
'''


def compile_bench(folder: Path) -> RulesetSpec:
    return compile_rules(folder, RULES)[1]


def fresh(spec: RulesetSpec, units: int) -> Game:
    players = [{"name": f"P{i}", "account": f"a{i}", "code": "X"} for i in range(PLAYERS)]
    return new_game(spec, {"players": players, "parameters": {"per_player": units // PLAYERS}})


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.process_time()
    value = fn()
    return time.process_time() - t, value


def steps(spec: RulesetSpec, units: int, turns: int) -> dict[str, float]:
    g = fresh(spec, units)
    phase = {p.name: p.run for p in spec.phases}
    out: dict[str, list[float]] = {"reset": [], "look": [], "turn": [], "turn, gc paused": [], "save": [],
                                   "load": []}
    g.process_turn([])
    for _ in range(turns):
        out["reset"].append(timed(g._reset_fields)[0])
        out["look"].append(timed(lambda: phase["look"](g))[0])
        out["turn"].append(timed(lambda: g.process_turn([]))[0])
        gc.disable()
        try:
            out["turn, gc paused"].append(timed(lambda: g.process_turn([]))[0])
        finally:
            gc.enable()
        took, text = timed(lambda: dump_text(dump(g)))
        out["save"].append(took)
        out["load"].append(timed(lambda text=text: load(spec, load_text(text)))[0])
    known = [len(p.known) for p in g.all_players]  # type: ignore[attr-defined]
    print(f"  {units:,} units, after {2 * turns + 1} turns: a player knows {min(known):,} to {max(known):,} "
          f"sectors; state {len(text):,} bytes")
    return {k: statistics.median(v) for k, v in out.items()}


def keyed_rolls(spec: RulesetSpec) -> dict[str, float]:
    """100,000 draws of `roll(100, "air")` as generated code makes them: from the stream with no key, keyed by
    one of 1,000 sectors (a hundred draws each), and keyed by 100,000 different (sector, number) pairs (a new
    stream for each draw: the most a key can cost)."""
    g = fresh(spec, PLAYERS)
    g.turn = 1
    sectors = g.all["Sector"][:1000]
    out: dict[str, float] = {}
    g._rngs = {}
    out["100k rolls, no key"] = timed(lambda: [roll(g.rng("air"), 100) for _ in range(100_000)])[0]
    g._rngs = {}
    out["100k rolls, 1k keys"] = timed(lambda: [roll(g.keyed("air", x), 100) for _ in range(100) for x in sectors])[0]
    g._rngs = {}
    out["100k rolls, 100k keys"] = timed(lambda: [roll(g.keyed("air", x, i), 100) for i in range(100)
                                                  for x in sectors])[0]
    return out


def commands(folder: Path, units: int, turns: int, paused: bool) -> dict[str, float]:
    """`rulesdsl new` and `rulesdsl turn`, in this process, with the cycle collector running or paused for the
    whole command: the time of each (a turn's is the median of `turns`)."""
    rules = folder / "t.rules"
    scenario = folder / "scenario.yaml"
    players = "\n".join(f"- {{name: P{i}, account: a{i}, code: X, email: p{i}@example.org}}" for i in range(PLAYERS))
    scenario.write_text(f"players:\n{players}\nparameters: {{per_player: {units // PLAYERS}}}\n", encoding="utf-8")
    game = folder / ("game-paused" if paused else "game")

    def run(argv: list[str]) -> float:
        # `rulesdsl` itself (cli.main) pauses the collector for new and turn; the command's own function,
        # called without it, runs as before (the collector paused only while YAML is read and written).
        command = cli if paused else (lambda argv: (args := build_parser().parse_args(argv)).func(args))
        with contextlib.redirect_stdout(io.StringIO()):
            took, status = timed(lambda: command(argv))
        assert status == 0 and gc.isenabled(), argv
        return took

    made = run(["new", str(rules), str(game), "--scenario", str(scenario), "--seed", "5"])
    taken = [run(["turn", str(game)]) for _ in range(turns)]
    return {"rulesdsl new": made, "rulesdsl turn": statistics.median(taken)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=int, default=5000)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keyed", action="store_true", help="only the keyed rolls' line")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec = compile_bench(Path(tmp))
        keyed = [keyed_rolls(spec) for _ in range(args.runs)]
        for k in keyed[0]:
            print(f"{k:<24}{statistics.median(r[k] for r in keyed):>9.3f} s")
        if args.keyed:
            return
        for i in range(args.runs):
            for mode in ("on", "off"):
                (Path(tmp) / f"{mode}{i}").mkdir()
                for name in ("t.rules", "t.report.j2"):
                    (Path(tmp) / f"{mode}{i}" / name).write_text((Path(tmp) / name).read_text())
        runs = [steps(spec, args.units, args.turns) for _ in range(args.runs)]
        for k in runs[0]:
            print(f"{k:<16}{statistics.median(r[k] for r in runs):>9.3f} s")
        print(f"{'command':<16}{'collector on':>13}{'paused':>10}")
        on = [commands(Path(tmp) / f"on{i}", args.units, args.turns, False) for i in range(args.runs)]
        off = [commands(Path(tmp) / f"off{i}", args.units, args.turns, True) for i in range(args.runs)]
        for k in on[0]:
            running, paused = (statistics.median(r[k] for r in rs) for rs in (on, off))
            print(f"{k:<16}{running:>11.3f} s{paused:>8.3f} s")


if __name__ == "__main__":
    main()

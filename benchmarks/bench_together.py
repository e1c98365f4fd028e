"""Warlord's step 1 at its size -> the engine's time to carry out four kinds of orders one kind after the other
(`run ally` ... `run name`) and all four in one round robin (`run ally, link, split, name together`).

Run: python benchmarks/bench_together.py
     python benchmarks/bench_together.py --players 100 --lines 40 --runs 5

A ruleset written here gives each of `--players` players `--lines` order lines, the four kinds in turn
(D: ally, L: link two units, S: split a unit, N: name a city), each adding to a player field so that the effect
is not empty. The same mail is played with the four kinds run one after the other and run together. Timed (CPU
time, median of `--runs`): `Game.process_turn`, from the mail's text to the orders carried out; not timed: the
compile (cached), the reports. Both give the same result, apart from the order of the effects.

Figures on this machine (2 cores, Python 3.11; CPU time, median of 5 runs, of 3 for 40,000 lines):
  100 players, 4,000 lines (--lines 40):    one kind at a time 23.9 ms,  together 23.5 ms
  100 players, 40,000 lines (--lines 400):  one kind at a time 232 ms,   together 232 ms
One round robin over the four kinds costs what four round robins over one kind each do.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rulesdsl.compiler import load_module
from rulesdsl.runtime.state import dump, load, new_game

RULES = '''ruleset "Together bench" { turn "turn" }
player {
  allies: int = 0
  links: int = 0
  splits: int = 0
  names: int = 0
}
orders { header "{account}", "{code}" }
order ally "D {target}" {
  target: 1..100
  effect { me.allies += target }
}
order link "L {unit} {other}" {
  unit: 1..99999
  other: 1..99999
  effect { me.links += 1 }
}
order split "S {unit} {regiments}" {
  unit: 1..99999
  regiments: 1..45
  effect { me.splits += regiments }
}
order name "N {city} {name}" {
  city: 1..999
  name: text
  effect { me.names += 1 }
}
PHASES
report {
  allies = me.allies
  template "b.j2"
}
'''
APART = "phase ally: run ally\nphase link: run link\nphase split: run split\nphase name: run name\n"
TOGETHER = "phase immediate: run ally, link, split, name together\n"


def mail(players: int, lines: int) -> list[tuple[str, str]]:
    out = []
    for p in range(players):
        body = [f"p{p}", f"C{p}"]
        for i in range(lines):
            kinds = (f"D {i % 100 + 1}", f"L {i + 1} {i + 2}", f"S {i + 1} {i % 45 + 1}", f"N {i + 1} Town{i}")
            body.append(kinds[i % 4])
        out.append((f"p{p}.txt", "\n".join(body) + "\n"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    players = [{"name": f"P{i}", "account": f"p{i}", "code": f"C{i}"} for i in range(args.players)]
    lines = mail(args.players, args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "b.j2").write_text("{{ allies }}\n", encoding="utf-8")
        for label, phases in (("one kind at a time", APART), ("together", TOGETHER)):
            rules = Path(tmp) / f"{label.split()[0]}.rules"
            rules.write_text(RULES.replace("PHASES\n", phases), encoding="utf-8")
            module, spec = load_module(rules)
            start = dump(new_game(spec, {"players": players, "seed": 1}))
            times = []
            for _ in range(args.runs):
                game = load(spec, start)
                game.module_file = str(module.__file__)
                t0 = time.process_time()
                game.process_turn(lines)
                times.append(time.process_time() - t0)
            done = sum(len(game.orders_done[k]) for k in ("ally", "link", "split", "name"))
            assert done == args.players * args.lines, "every order is carried out"
            print(f"{args.players} players, {done} lines, {label}: {statistics.median(times) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

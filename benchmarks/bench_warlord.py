"""rulesets/warlord.rules at full size -> times of `rulesdsl new` and of whole turns with orders from every player.

Run: python benchmarks/bench_warlord.py
     python benchmarks/bench_warlord.py --players 100 --turns 3 --seed 1
     python benchmarks/bench_warlord.py --turns 2 --fleets 1000 --air     (part 2: sea and air; --air filled by P4)
     python benchmarks/bench_warlord.py --turns 2 --divisions 5000 --staff   (part 2: generals, research, spies)

A generated 320 x 99 world (the ruleset's own generator) with --players players; then --turns turns, each
with a mail from every player: an A order in a random direction for each of its divisions
(from the second turn, the ones still standing are read from the state), and on the first turn infantry
in all three centres of its home city. Each turn is GameFolder.process_turn, as `rulesdsl turn` runs it.
For each turn: wall and CPU times, the process's peak memory, the game's divisions and owned sectors before
it, the turn's parts (GameFolder.timings: mail read, state load, engine, reports, state save, commit) and
the state file written (size, lines). After the last turn: its state file's biggest sections, and its load
and save timed step by step (YAML, schemas, game made; game to data, YAML).

Figures on this machine (2 cores, Python 3.11), 100 players, seed 1,
`python benchmarks/bench_warlord.py --turns 2 [--divisions N]` (the 150 free cities' forces are divisions
of no player, counted in N); a turn's parts are those of turn 2:
  new: 1.5 to 1.9 s wall (generation, 100 starting reports, the state), peak 131 MB
  the starting 750 divisions: turn 1 0.87 s, turn 2 1.02 s wall; state 0.35 MB, 15,964 lines
  --divisions 1000:  turn 1 0.81 s, turn 2 0.89 s wall, peak 130 MB; state 0.39 MB, 17,173 lines
      load 0.33, engine 0.06, reports 0.32, save 0.13 s
  --divisions 5000:  turn 1 1.38 s, turn 2 1.78 s wall, peak 136 MB; state 0.87 MB, 30,243 lines
      load 0.59, engine 0.16, reports 0.60, save 0.35 s
  --divisions 20000: turn 1 3.72 s, turn 2 4.29 s wall, peak 347 MB; state 2.27 MB, 48,638 lines
      load 1.51, engine 0.60, reports 0.95, save 1.18 s
Part 2's seams (issue 13, P2: the new fields, stub calls and phases; nothing played yet), --divisions 5000,
CPU of turn 1 and turn 2, two runs each on a machine loaded by other work (wall times not comparable):
  before 1.70, 2.27 and 1.68, 2.27 s; after 1.76, 2.21 and 2.03, 2.38 s; the state of turn 2 0.87 -> 0.93 MB
  (the Division rows' aboard, digging and lifted columns), peak 173 -> 180 MB.
Sea and transports (P3: submarines' detection in the spotted list and the map, `sides` and `forces_at` by
distinct(...), boarding and cargo), --divisions 5000, CPU of turn 1 and turn 2 on a loaded machine: before
2.02, 2.36 and 1.88, 2.28 s; after 1.93, 2.27 and 1.79, 2.29 and 1.85, 2.19 s; the state unchanged (0.93 MB).
  --fleets 1000 (500 transport flotillas carrying 500 divisions, 500 warships: 6,500 units): 2.38, 2.51 and
  2.11, 2.55 s, peak 206 MB, the state of turn 2 1.18 MB, 39,227 lines.
Generals, research and espionage (issue 13, P5: two generals a player from the start, each with a 7 x 7
tactical map in every report), --divisions 5000, CPU of turn 1 and turn 2 on a machine loaded by other work
(load 3 to 5 on 2 cores; wall times not comparable): before 1.95, 2.18 and 1.82, 2.19 s; after 1.98, 2.20 and
1.90, 2.29 s; with --staff (P, E, K, I from every player) 2.09, 2.40; 2.04, 2.53; 2.42, 2.37 s. The state of
turn 2 0.93 -> 0.96 MB (200 generals), peak 181 -> 182 MB.
Part 2's air forces (P4), --divisions 5000, CPU of turn 1 and turn 2 on a machine loaded by other work: main
before P4 2.02, 2.56 and 2.10, 2.26 s; P4 without --air 1.65, 2.22 and 1.67, 2.20 s; P4 with --air (100 O and
100 B missions a turn, each O seeing 49 sectors more) 2.31, 2.62 and 2.16, 2.55 s; the state of turn 2 with
--air 0.93 -> 1.01 MB (the squares observed: explored_by), peak 181 -> 186 MB. Rebased on the sea block, at load
2.5: without --air 1.78, 2.28 s; with --air 2.07, 2.30 s (engine 0.30 and 0.20 s wall).
P6 (messages, rating, drop-outs and rebels, coalitions, the starting outline), all of part 2 in, on a quiet
machine (load 0.9), --divisions 5000, CPU of turn 1 and turn 2: main before P6 2.08, 2.19 and 2.35, 2.56 s; P6
2.04, 2.40 and 2.21, 2.26 s; the state of turn 2 0.96 -> 0.97 MB (players met, cities reported), peak 187 ->
186 MB. The whole of part 2, --divisions 5000 --fleets 1000 --air --staff: new 3.23 s; turns 2.74, 2.82 s CPU
(load 0.73/0.97, engine 0.24/0.27, reports 1.20/0.99, save 0.42/0.52 s wall), state 1.27 MB, peak 230 MB.
20 times the units take 4.8 times the turn. A turn's fixed part is the 100 reports (most of each its
41 x 41 strategic map, a rules function per sector) and the state's load and save; per division, the state
file's rows (at 20,000 the Division section is 79% of the file, and YAML is half of the load and 90% of the
save), the orders (an A order each, in a direction) and the six movement phases. Before the grid's sets of
players were written by member (`--turns 3`, the state of turn 3: 0.69 MB, 45,902 lines; now 0.39 MB,
17,951 lines) a turn with the starting divisions took 1.24 to 1.33 s; before the strategic map asked first
whether the player has ever seen a sector, 2.6 to 3.3 s.
The calendar (issue 14; Warlord has none, so a phase and a chosen order each read one empty tuple more),
--divisions 5000, CPU of turn 1 and turn 2, load 1.1-1.3, two runs each alternated: main 2.05, 2.25 and 2.09,
2.35 s; with the calendar 1.94, 2.38 and 2.13, 2.44 s: within the runs' spread; state and peak unchanged.
Money with places (issue 14, `money "0.1"`; Warlord's money is whole, so its module is generated as before),
--divisions 5000, CPU of turn 1 and turn 2, alternated, on a machine loaded by other work (load 7 to 10 on 2
cores; wall times not comparable): main 2.31, 2.58 and 2.39, 2.57 s; with money places 2.13, 2.63 and 2.14,
2.60 s: within the spread; the state of turn 2 unchanged (0.97 MB, 34,594 lines), peak 186-188 MB both.
GM orders' defaults and world orders (issue 14, L2; Warlord has neither: an order line read asks one flag more,
a turn one empty list), --divisions 5000, CPU of turn 1 and turn 2 on a machine loaded by the other branches'
suites (wall times not comparable): main 2.06, 2.67 s; with L2 2.22, 2.44 and 2.42, 2.38 s; engine 0.58/0.58
against 0.40/0.67 and 0.39/0.44 s wall: within the spread; state (0.97 MB) and peak (186 MB) unchanged.
A scenario's forced draws (issue 14, C4; this game forces none, so a stream's first draw of a turn reads one
empty dict more, a pick or a weighted draw asks its stream's type), --divisions 5000, CPU of turn 1 and turn
2, load 5-9 (other work on the machine), two runs each alternated: main (before money places) 1.95, 2.43 and
2.12, 2.46 s; with forced draws 1.95, 2.48 and 2.09, 2.51 s: within the runs' spread; state and peak unchanged.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import tempfile
import time
from pathlib import Path

import yaml
from warlord_game import new_game

from rulesdsl.game.folder import GameFolder, _schema, read_yaml, yaml_bytes
from rulesdsl.game.schemafit import fits
from rulesdsl.runtime.state import dump, load

PARTS = ("mail", "load", "engine", "reports", "save", "commit")

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


def add_fleets(path: Path, total: int) -> None:
    """--fleets: a starting state -> the same with `total` flotillas at sea round the players' homes (the
    nearest sea within 4 sectors, players in turn; homes with no sea near are left out): every other one a
    transport flotilla of 2 ships carrying a division of 3 infantry, the others cruisers, destroyers and
    submarines in turn. Each turn's A orders then move them (and land the cargo where the way is land)."""
    state = yaml.safe_load(path.read_text(encoding="utf-8"))
    terrain = state["Sector"]["terrain"].splitlines()
    height, width = len(terrain), len(terrain[0])
    section = state["Division"]
    cols = section["columns"]
    rows = section["rows"]
    homes = {}
    city_cols = state["City"]["columns"]
    for row in state["City"]["rows"]:
        rec = dict(zip(city_cols, row, strict=True))
        if rec["home"] and rec["owner"] is not None:
            homes[str(rec["owner"])] = str(rec["sector"])
    numbers: dict[str, int] = {}
    template: dict[str, list[object]] = {}
    for row in rows:
        owner = row[cols.index("owner")]
        if owner is not None:
            numbers[owner] = max(numbers.get(owner, 0), int(row[cols.index("number")]))
            template.setdefault(owner, row)

    def seas(at: str) -> list[str]:
        col, r = int(at[:3]), int(at[3:])
        near = sorted((max(abs(dc), abs(dr)), dr, dc) for dc in range(-4, 5) for dr in range(-4, 5)
                       if 0 <= r + dr < height and terrain[r + dr][(col + dc) % width] == "~")
        return [f"{(col + dc) % width:03d}{r + dr:02d}" for _, dr, dc in near]

    places = {owner: seas(at) for owner, at in sorted(homes.items(), key=lambda kv: int(kv[0]))}
    owners = [o for o, near in places.items() if near]

    def unit(owner: str, at: str, kind: str, regiments: int, aboard: str | None) -> None:
        numbers[owner] += 1
        row = list(template[owner])
        rec = dict(zip(cols, row, strict=True))
        rec.update(number=numbers[owner], sector=at, kind=kind, regiments=regiments, rank=0, route=[],
                   goal=None, heading=0, plan=[], came_from=None, arrived=0, motorised=False, aboard=aboard)
        rows.append([rec[c] for c in cols])

    warships = ("CRU", "DES", "SUB")
    for i in range(total):
        owner = owners[i % len(owners)]
        near = places[owner]
        at = near[(i // len(owners)) % len(near)]
        if i % 2 == 0:
            unit(owner, at, "TRN", 2, None)
            unit(owner, at, "INF", 3, f"{owner}/{numbers[owner]}")
        else:
            unit(owner, at, warships[(i // 2) % 3], 4, None)

    class NoAliases(yaml.SafeDumper):
        def ignore_aliases(self, data: object) -> bool:
            return True

    path.write_text(yaml.dump(state, Dumper=NoAliases, sort_keys=False), encoding="utf-8")


def _distance(a: str, b: str) -> int:
    dc = abs(int(a[:3]) - int(b[:3]))
    return max(min(dc, 320 - dc), abs(int(a[3:]) - int(b[3:])))


def air_orders(player: int, turn: int, rng: random.Random, at: dict[tuple[str, int], str]) -> list[str]:
    """--air: a player's lines for a turn, from where every division stands -> one O (2 fighters, so that
    they attack what they find) and one B (2 bombers) at the nearest unit of another player, and a W at its
    home on the first turn."""
    own = sorted(n for o, n in at if o == str(player))
    if not own:
        return []
    home = at[str(player), own[0]]
    near = min((s for (o, _), s in at.items() if o not in (str(player), "None")),
               key=lambda s: (_distance(home, s), s), default=home)
    col, row = int(near[:3]), int(near[3:])
    lines = [f"O 2 {(col + rng.randint(-2, 2)) % 320:03d}{row:02d}", f"B 2 {near}"]
    if turn == 1:
        lines.append(f"W {player} 1")
    return lines


def sections(path: Path) -> dict[str, tuple[int, int]]:
    """A state file -> bytes and lines of each top-level section, the grid's layers and the players' fields
    (`Sector.seen_by`, `players.seen`) counted on their own: what makes the file big."""
    out: dict[str, tuple[int, int]] = {}
    top = sub = ""
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line[:1] not in (" ", "-", ""):
                top, sub = line.split(":", 1)[0], ""
            elif top in ("players", "world", "Sector") and (m := re.match(r"(?:- |  )([a-z_]+):", line)):
                sub = m[1]
            key = f"{top}.{sub}" if sub else top
            size, lines = out.get(key, (0, 0))
            out[key] = (size + len(line.encode("utf-8")), lines + 1)
    return out


def state_figures(folder: GameFolder, turn: int) -> None:
    """The state file of `turn`: its size and lines, the biggest sections, and the times of its load and save
    in their steps (the calls GameFolder.load_game and a turn's save make)."""
    path = folder.turns_dir / f"turn-{turn:03d}" / "state.yaml"
    parts = sections(path)
    size = sum(b for b, _ in parts.values())
    lines = sum(n for _, n in parts.values())
    print(f"state of turn {turn}: {size / 1e6:.2f} MB, {lines} lines; the biggest sections:")
    for key, (b, n) in sorted(parts.items(), key=lambda kv: -kv[1][0])[:10]:
        print(f"  {key:24s} {b / 1e3:8.1f} kB {n:7d} lines ({100 * b / size:.0f}% of the bytes)")
    spec, module_file = folder.load_spec()
    t0 = time.perf_counter()
    data = read_yaml(path, "state")
    t1 = time.perf_counter()
    ok = fits(data, _schema("state.schema.json"))
    ok = ok and fits({k: v for k, v in data.items() if k in spec.state_schema["properties"]}, spec.state_schema)
    t2 = time.perf_counter()
    game = load(spec, data, module_file)
    t3 = time.perf_counter()
    plain = dump(game)
    t4 = time.perf_counter()
    text = yaml_bytes(plain)
    t5 = time.perf_counter()
    print(f"  load {t3 - t0:.2f} s: YAML {t1 - t0:.2f} s, schemas {t2 - t1:.2f} s (fits: {ok}), game made "
          f"{t3 - t2:.2f} s; save {t5 - t3:.2f} s: game to data {t4 - t3:.2f} s, YAML {t5 - t4:.2f} s"
          f"{'' if text == path.read_bytes() else ' (NOT the same bytes as the file)'}")


def staff_orders(player: int, players: int, turn: int, units: list[int]) -> list[str]:
    """--staff: a player's P, E, K and I lines for a turn -> its lines: both generals to its first units, research,
    its engineers (division 4 of the start) searching (mostly refused: another order, or no ruin there), a spy
    order on its neighbour and counter-espionage on itself by turns."""
    lines = [f"P {g} {n}" for g, n in zip((1, 2), units, strict=False)]
    lines += ["E 1", "K 4 1"]
    lines.append(f"I {player % players + 1} 3" if turn % 2 else f"I {player} 1")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--divisions", type=int, default=0,
                    help="divisions in all after the start: the others are added to the starting state, "
                         "spread over the players' homes (their order lines grow with them)")
    ap.add_argument("--goals", action="store_true",
                    help="A orders to a sector up to 8 columns and rows away (a route search each, and a failed "
                         "order where none reaches it), not in a direction")
    ap.add_argument("--fleets", type=int, default=0,
                    help="flotillas in all, at sea round the players' homes, each with a move order a turn")
    ap.add_argument("--air", action="store_true",
                    help="observation, bombing and flight orders from every player")
    ap.add_argument("--staff", action="store_true",
                    help="general, research, engineering and spy orders from every player")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        wall, cpu = time.perf_counter(), time.process_time()
        folder = new_game(base, args.players, args.seed)
        print(f"new: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
              f"peak {peak_mb():.0f} MB")
        if args.divisions:
            add_divisions(folder.turns_dir / "turn-000" / "state.yaml", args.divisions)
        if args.fleets:
            add_fleets(folder.turns_dir / "turn-000" / "state.yaml", args.fleets)
        for turn in range(1, args.turns + 1):
            state = yaml.safe_load((folder.turns_dir / f"turn-{turn - 1:03d}" / "state.yaml").read_text())
            division = state["Division"]
            cols = division["columns"]
            units: dict[str, list[int]] = {}
            at: dict[tuple[str, int], str] = {}
            for row in division["rows"]:
                rec = dict(zip(cols, row, strict=True))
                units.setdefault(str(rec["owner"]), []).append(int(rec["number"]))
                at[str(rec["owner"]), int(rec["number"])] = str(rec["sector"])
            mail = []
            for i in range(1, args.players + 1):
                lines = ["WL-1", f"{i} C{i}"]
                if args.goals:
                    for n in units.get(str(i), []):
                        s = at[str(i), n]
                        col = (int(s[:3]) + rng.randint(-8, 8)) % 320
                        row = min(98, max(0, int(s[3:]) + rng.randint(-8, 8)))
                        lines.append(f"A {n} {col:03d}{row:02d}")
                else:
                    lines += [f"A {n} {rng.randint(1, 8)}" for n in units.get(str(i), [])]
                if turn == 1:
                    lines += [f"C {i} 1"] * 3
                if args.air:
                    lines += air_orders(i, turn, rng, at)
                if args.staff:
                    lines += staff_orders(i, args.players, turn, units.get(str(i), []))
                path = base / f"mail-{turn}-{i}.txt"
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                mail.append(path)
            folder.timings = {}
            wall, cpu = time.perf_counter(), time.process_time()
            folder.process_turn(mail)
            owned = state["Sector"].get("owner", {})
            print(f"turn {turn}: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
                  f"peak {peak_mb():.0f} MB; {sum(len(v) for v in units.values())} divisions and "
                  f"{len(owned) if isinstance(owned, dict) else '?'} owned sectors before it")
            print("  " + ", ".join(f"{part} {folder.timings.get(part, 0.0):.2f}" for part in PARTS) + " s wall")
            path = folder.turns_dir / f"turn-{turn:03d}" / "state.yaml"
            text = path.read_bytes()
            lines = text.count(b"\n")
            print(f"  state written: {len(text) / 1e6:.2f} MB, {lines} lines")
        state_figures(folder, args.turns)


if __name__ == "__main__":
    main()

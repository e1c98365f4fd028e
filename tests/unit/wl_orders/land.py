"""Warlord's full-size test, land forces: a player's report of the turn before -> its A, M, C, S, L, N and D
lines, some written to be refused or to fail, each with the reason the rules give.

Each file of tests/unit/wl_orders/ writes one part of every mail (land.py part 1's orders; each part-2
package adds its own file), with the same three names: EXPECTED (every reason its lines may be refused or
fail with), BAD is its own, and orders(report, turn, rng, others)."""

from __future__ import annotations

import random
from typing import Any

WIDTH, HEIGHT = 320, 99

UNIT_KINDS = ("Infantry", "Engineers", "Tanks", "Trucks", "Artillery")

# Every reason a line may be refused or fail with in this script: the rules' own words. Anything else (a
# Python error's text, "a loop ran too long", a reason the script did not expect) is a fault to look at.
EXPECTED = (
    r"you have no division \d+",
    r"division \d+ no longer exists: it was removed earlier this turn",  # linked away by an L before it
    r"division \d+ is at \d{5} already",
    # an A order to a sector no route reaches fails, saying why (its terrain, or the terrain in the way)
    r"no route from \d{5} to \d{5}: [A-Za-z ]+ cannot enter [a-z]+",
    r"no route from \d{5} to \d{5}: every way there crosses terrain [A-Za-z ]+ cannot enter( \([a-z, ]+\))?",
    r"there is no sector 99999: the map is 320 columns by 99 rows",
    r"route must be digits from 0 to 8, written together, not \"0019x\"",
    r"there is already an order for unit \d+ this turn: line \d+ \"[AM] \d+ \d+\"",
    r"there is no unit type \d+ at tech level one: build [0-9a-z ,()-]+",
    r"you cannot declare an alliance with yourself",
    r"a name has 1 to 12 characters",
    r"city \d+ is not yours",
    r"not an order of this game",
)

# Lines written to be refused or to fail, a few in each mail -> what the reason must say.
BAD = {
    "A 99 {heading}": "you have no division 99",
    "M 1 0019x": "0019x",
    "A 1 99999": "there is no sector 99999",
    "C {city} 7": "no unit type 7",
    "D {me}": "alliance with yourself",
    "N 1 {city} ABCDEFGHIJKLMN": "1 to 12 characters",
    "Z 1": "not an order of this game",
    "C {other} 1": "is not yours",
}


def sector(col: int, row: int) -> str:
    return f"{col % WIDTH:03d}{min(max(row, 1), HEIGHT - 2):02d}"


def orders(report: dict[str, Any], turn: int, rng: random.Random,
            others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its order lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    me = report["player"]["account"]
    cities = [c["number"] for c in report["cities"]]
    # The forces list holds the player's cities too (no kind of unit as their name).
    units = [f for f in report["forces"] if f["name"] in UNIT_KINDS]
    lines: list[str] = []
    bad: dict[str, str] = {}
    ordered: set[int] = set()
    city = cities[0] if cities else 1
    if turn == 1:
        lines += [f"C {city} 1", f"C {city} 3", f"N 1 {city} HOME {me}"]
        lines.append(f"D {others[0]}")
    if turn == 2 and rng.random() < 0.3:
        lines.append(f"D {others[0]}")  # cancels the alliance of turn 1
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for f in units:
        by_kind.setdefault(f["name"], []).append(f)
    infantry = by_kind.get("Infantry", [])
    if infantry and infantry[0]["size"] > 4:
        lines.append(f"S {infantry[0]['number']} 3")
    if len(infantry) >= 2 and infantry[0]["sector"] == infantry[1]["sector"] \
            and infantry[0]["size"] + infantry[1]["size"] <= 45 and rng.random() < 0.5:
        lines.append(f"L {infantry[0]['number']} {infantry[1]['number']}")
    for f in units:
        n = f["number"]
        col, row = int(f["sector"][:3]), int(f["sector"][3:])
        pick = rng.random()
        if pick < 0.35:
            lines.append(f"A {n} {rng.randint(1, 8)}")
        elif pick < 0.6:
            lines.append(f"M {n} {''.join(str(rng.randint(0, 8)) for _ in range(rng.randint(1, 6)))}")
        elif pick < 0.85:
            lines.append(f"A {n} {sector(col + rng.randint(-6, 6), row + rng.randint(-4, 4))}")
        else:
            continue
        ordered.add(n)
    if units and rng.random() < 0.5:
        lines.append(f"A {units[0]['sector']} {rng.randint(1, 8)}")  # the units there without an order
    # Lines that must not be taken, a few for each player.
    # A city of another player's number, unless this player has taken it (a long game, benchmarks/warlord_long.py).
    own = {c["number"] for c in report["cities"] if c["comment"] == ""}
    other = next(n for n in [others[1], *range(1, 1000)] if n not in own)
    for template in rng.sample(sorted(BAD), 3):
        line = template.format(city=city, me=me, other=other, heading=rng.randint(1, 8))
        lines.append(line)
        bad[line] = BAD[template]
    if ordered:
        n = min(ordered)
        line = f"M {n} 1"
        lines.append(line)  # a second order to a unit
        bad[line] = f"already an order for unit {n}"
    return lines, bad

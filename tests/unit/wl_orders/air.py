"""Warlord's full-size test, air forces: a player's report of the turn before -> its W, O, B, V and F lines,
some written to be refused or to fail, each with the reason the rules give (see land.py for the three names)."""

from __future__ import annotations

import random
from typing import Any

CITIES = 250

EXPECTED = (
    r"no fighters of yours free within 15 sectors of \d{5}",
    r"no bombers of yours within 25 sectors of \d{5}",
    r"airbase \d+ is not yours",
    r"you have no airbase",
    r"a flight goes from one airbase to another",
    r"airbase \d+ is more than (30|50) sectors from airbase \d+: too far for (fighters|bombers)",
    r"airbase \d+ has \d+ fighters free and \d+ bombers: too few to fly",
    r"division \d+ is not at an airbase of yours",
    r"division \d+ needs \d+ bombers \(one a size point\); you have \d+ in range",
    r"airbase \d+ is more than 50 sectors from division \d+",
    r"fighters must be at least 1",
    # land.py's A or M to a unit this file lifted first (air.py's lines come before land.py's)
    r"there is already an order for unit \d+ this turn: line \d+ \"V \d+ \d+\"",
)

BAD = {
    "W {other} 1": "is not yours",
    "F {city} {city} 10": "from one airbase to another",
    "O 0 {home}": "at least 1",
}


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its air lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    mine = [c for c in report["cities"] if c["comment"] == ""]
    theirs = [c for c in report["cities"] if c["comment"] != ""]
    lines: list[str] = []
    bad: dict[str, str] = {}
    if not mine:
        return lines, bad
    home = mine[0]
    if turn == 1:
        lines.append(f"W {home['number']} 1")
    # O at reported cities (the closest bases' fighters; one too far fails) and at a sector round home, B at
    # spotted enemy units.
    for c in rng.sample(theirs, min(2, len(theirs))):
        lines.append(f"O {rng.randint(1, 2)} {c['sector']}")
    col, row = int(home["sector"][:3]), int(home["sector"][3:])
    near = f"{(col + rng.randint(-12, 12)) % 320:03d}{min(97, max(1, row + rng.randint(-12, 12))):02d}"
    lines.append(f"O {rng.randint(1, 3)} {near}")
    spotted = [s["sector"] for s in report["spotted"]]
    if spotted:
        lines.append(f"B 1 {rng.choice(spotted)}")
    # F between two own airbases on alternate turns, and cancelled in between.
    if len(mine) >= 2:
        if turn % 2 == 1:
            lines.append(f"F {mine[0]['number']} {mine[1]['number']} {rng.randint(0, 2)}1")
        else:
            lines.append(f"F {mine[0]['number']} 0 0")
    # V of a division at an own city to another, now and then (it takes the unit's one order of the turn).
    if len(mine) >= 2 and rng.random() < 0.2:
        at = [f for f in report["forces"] if f["sector"] == mine[0]["sector"]
              and f["name"] in ("Infantry", "Engineers", "Tanks", "Trucks", "Artillery")]
        if at:
            lines.append(f"V {at[-1]['number']} {mine[1]['number']}")
    numbers = {c["number"] for c in mine}
    other = rng.choice([n for n in range(1, CITIES + 1) if n not in numbers])
    for template in rng.sample(sorted(BAD), 1):
        line = template.format(other=other, city=home["number"], home=home["sector"])
        lines.append(line)
        bad[line] = BAD[template]
    return lines, bad

"""Warlord's full-size test, sea forces: a player's report of the turn before -> its C line for transports
at a coastal home, M lines for its flotillas and B 0 lines next to them, some written to be refused or to fail,
each with the reason the rules give (see land.py for the three names every maker has)."""

from __future__ import annotations

import random
import re
from typing import Any

WIDTH, HEIGHT = 320, 99

SHIP_KINDS = ("Destroyers", "Cruisers", "Battleships", "Transports", "Submarines")

# Directions 1 (north) to 8, clockwise: column and row steps.
STEPS = {1: (0, -1), 2: (1, -1), 3: (1, 0), 4: (1, 1), 5: (0, 1), 6: (-1, 1), 7: (-1, 0), 8: (-1, -1)}

EXPECTED = (
    r"no capital ships of yours are next to \d{5}, and B 0 sends no bombers",
    r"flotilla \d+ has \d+ ships?: split off fewer than that",
    # land.py's L and S lines meet units at sea in a long game (benchmarks/warlord_long.py)
    r"(division|flotilla) \d+ is aboard a transport: land it first",
    r"(division|flotilla) \d+ carries cargo: unload it first",
)

BAD = {
    "S {flotilla} {size}": "split off fewer than that",
    "B 0 {target}": "no capital ships of yours are next to",
}


def sector(col: int, row: int) -> str:
    return f"{col % WIDTH:03d}{min(max(row, 1), HEIGHT - 2):02d}"


def coastal(report: dict[str, Any], at: str) -> bool:
    """Whether the strategic map of a report shows sea next to sector `at` (a city there can build ships)."""
    rows = report["strategic_map"]
    corner = report["map_corner"]
    if not rows or not corner:
        return False
    col = (int(at[:3]) - int(corner[:3])) % WIDTH
    row = int(at[3:]) - int(corner[3:])
    return any(0 <= row + dr < len(rows) and 0 <= col + dc < len(rows[row + dr])
               and rows[row + dr][col + dc] == "~" for dc, dr in STEPS.values())


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its sea lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    cities = [c for c in report["cities"] if c["comment"] == ""]
    flotillas = [f for f in report["forces"] if f["name"] in SHIP_KINDS]
    lines: list[str] = []
    bad: dict[str, str] = {}
    if turn == 1 and cities and coastal(report, cities[0]["sector"]):
        lines.append(f"C {cities[0]['number']} 13")   # transports, built in the harbour
    for f in flotillas:
        n = f["number"]
        col, row = int(f["sector"][:3]), int(f["sector"][3:])
        step = STEPS[rng.randint(1, 8)]
        if f["name"] == "Transports":
            line = f"B 0 {sector(col + step[0], row + step[1])}"   # transports have no guns
            lines.append(line)
            bad[line] = BAD["B 0 {target}"]
        lines.append(f"M {n} {''.join(str(rng.randint(1, 8)) for _ in range(rng.randint(1, 5)))}")
    # A transport with cargo aboard is refused a split for that first (a long game, benchmarks/warlord_long.py).
    carrying = {m for g in report["forces"] for m in re.findall(r"In Transit \(flotilla (\d+)\)", g["comment"])}
    free = [f for f in flotillas if str(f["number"]) not in carrying]
    if free:
        f = free[0]
        template = "S {flotilla} {size}"
        line = template.format(flotilla=f["number"], size=f["size"])
        lines.append(line)
        bad[line] = BAD[template]
    return lines, bad

"""W5b's order maker for the long game: a player's report (JSON) of the turn before -> FORTIFY, WAKE and SPY
lines for what the player has (army points in a country it rules, mothballed units, spy planes)."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any

ORDERS = ["fortify_now", "wake", "spy"]
EXPECTED = [
    r"you do not rule .+",
    r"only ground units are fortified; .+ is not one",
    r"\d+ .+ fortified cost \d+ army points in .+; you have \d+",
    r"you have \d+ mothballed .+ in .+",
    r"waking \d+ .+ costs .+; you have .+ saved",
    r"you have no spy plane left in .+ this month",
]

RULES = Path(__file__).resolve().parents[3] / "rulesets" / "wcg.rules"
ROW = re.compile(r'^\s+([A-Z][A-Z0-9_]*): "([^"]+)"', re.MULTILINE)
FORCE = re.compile(r"^(.+): (\d+) (.+?)(?: \((\w+)\))?$")
TURNS_A_YEAR = 25


@cache
def codes(thing: str) -> dict[str, str]:
    """The rules' `data THING(code, name, ...)` block -> each row's name to its code."""
    text = RULES.read_text(encoding="utf-8")
    start = text.index(f"data {thing}(")
    block = text[start:text.index("\n}", start)]
    return {name: code for code, name in ROW.findall(block)}


def kind_of(turn: int) -> str:
    """The kind of processed turn `turn`: budget, then action and reaction for each month."""
    place = (turn - 1) % TURNS_A_YEAR
    return "budget" if place == 0 else "action" if place % 2 == 1 else "reaction"


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    countries, kinds = codes("Country"), codes("UnitKind")
    lines: list[str] = []
    bad: dict[str, str] = {}
    ruled = [countries[n] for n in report.get("ruled", []) if n in countries]
    for row in report.get("points", []):
        code = countries.get(row["country"])
        if code in ruled and row["points"] >= 10 and rng.random() < 0.5:
            # Infantry cost at most 10 points, so half of points // 10 of them is always affordable.
            lines.append(f"FORTIFY {code},INF,{max(1, row['points'] // 20)}")
    if ruled and rng.random() < 0.05:
        strangers = [c for c in countries.values() if c not in ruled]
        if strangers:
            line = f"FORTIFY {rng.choice(strangers)},INF,1"
            lines.append(line)
            bad[line] = "you do not rule"
    for row in report.get("forces", []):
        m = FORCE.match(row)
        if m is None or m.group(1) not in countries or m.group(3) not in kinds:
            continue
        where, count, kind, state = countries[m.group(1)], int(m.group(2)), kinds[m.group(3)], m.group(4)
        if state == "mothballed" and rng.random() < 0.5:
            lines.append(f"WAKE {where},{kind},{rng.randint(1, count)}")
        if state is None and kind == "SPY" and kind_of(turn) == "action":
            lines.append(f"SPY {where},{rng.choice(list(countries.values()))}")
    return lines, bad

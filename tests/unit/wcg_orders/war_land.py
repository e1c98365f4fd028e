"""W5b's and Z1's order maker for the long game: a player's report (JSON) of the turn before -> FORTIFY, WAKE and
SPY lines for what the player has (army points in a country it rules, mothballed units, spy planes), and BUILD of
G.C.A.S.D. levels (Z1), one of them written to be refused above level 5."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any

from .story import kind_of

ORDERS = ["fortify_now", "wake", "spy", "build"]
EXPECTED = [
    r"you do not rule .+",
    r"only ground units are fortified; .+ is not one",
    r"\d+ .+ fortified cost \d+ army points in .+; you have \d+",
    r"you have \d+ mothballed .+ in .+",
    r"waking \d+ .+ costs .+; you have .+ saved",
    r"you have no spy plane left in .+ this month",
    # Z1: BUILD's G.C.A.S.D. and production limit, MOVE's helicopters, INVADE's armour (rb 44, 70, 71, 63)
    r".+ turns at most \d+ army points a year into units; -?\d+ are left this year and \d+ .+ cost \d+ \(rb 44\)",
    r".+'s G\.C\.A\.S\.D\. is at level \d+; \d+ is the highest \(rb 70\)",
    r".+ was conquered less than a month ago \(rb 48\) and you have no troops there \(rb 71\)",
    r"only armoured units attack more than once a year \(rb 63\): plan \d+ has units that attacked in \d+",
]

RULES = Path(__file__).resolve().parents[3] / "rulesets" / "wcg.rules"
ROW = re.compile(r'^\s+([A-Z][A-Z0-9_]*): "([^"]+)"', re.MULTILINE)
FORCE = re.compile(r"^(.+): (\d+) (.+?)(?: \((\w+)[^)]*\))?$")


@cache
def codes(thing: str) -> dict[str, str]:
    """The rules' `data THING(code, name, ...)` block -> each row's name to its code."""
    text = RULES.read_text(encoding="utf-8")
    start = text.index(f"data {thing}(")
    block = text[start:text.index("\n}", start)]
    names = {name: code for code, name in ROW.findall(block)}
    if thing == "UnitKind":  # the report counts units in the plural (W6: units(n, kind))
        names |= {f"{name}s": code for name, code in names.items()} | {"armoured unit": "ARM", "armoured units": "ARM"}
    return names


@cache
def sizes_of() -> dict[str, float]:
    """The rules' `data Country(...)` rows -> each code's size (the fourth column)."""
    text = RULES.read_text(encoding="utf-8")
    rows = re.findall(r'^  ([A-Z]{2,5}): "[^"]+", (?:true|false), ([\d.]+),', text, re.MULTILINE)
    return {code: float(size) for code, size in rows}


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
    # Z1: a G.C.A.S.D. level now and then where the player has points (a level costs 100 x size at most; the
    # sizes are the data's, a scenario's may be a tenth larger); above level 5 is refused.
    sizes = sizes_of()
    for row in report.get("points", []):
        code = countries.get(row["country"])
        if code in ruled and code in sizes and row["points"] >= 110 * sizes[code] + 1 and rng.random() < 0.3:
            lines.append(f"BUILD {code},GCASD,1")
    if ruled and rng.random() < 0.1:
        line = f"BUILD {ruled[0]},GCASD,6"
        lines.append(line)
        bad[line] = "is the highest (rb 70)"
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

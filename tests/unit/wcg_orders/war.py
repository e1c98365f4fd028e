"""WCG's long game, W5a's sea orders: a player's report of the turn before (JSON) -> HIDE and SURFACE lines for
its submarines, and a line written to be refused."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from .story import kind_of, sub_home

ORDERS = ["hide", "surface"]
EXPECTED = [
    r"you have no submarines on the surface in .+",
    r"you have no hidden submarines in .+",
    r"your \d+ (hidden )?submarines in .+ (hide|surface) together: write .+",
]

RULES = Path(__file__).resolve().parents[3] / "rulesets" / "wcg.rules"
# The country rows of the rules' data (`  USA: "United States", true, ...`): the report names countries, orders
# give their codes.
CODES = {name: code for code, name in re.findall(r'^  ([A-Z]{2,5}): "([^"]+)", (?:true|false),', RULES.read_text(
    encoding="utf-8"), re.MULTILINE)}
SUBS = re.compile(r"^(.+): (\d+) submarines?(?: \(hidden\))?$")


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    if kind_of(turn) == "budget":  # HIDE and SURFACE are for action and reaction turns
        return [], {}
    lines: list[str] = []
    bad: dict[str, str] = {}
    if sub_home(report):  # the script hides these for a sneak attack
        return lines, bad
    # The report does not say which stacks are hidden: alternate, so that both orders are carried out, and
    # whichever finds nothing to do is refused with a reason this maker expects.
    held: dict[str, int] = {}
    for row in report.get("forces", []):
        m = SUBS.match(row)
        if m and m.group(1) in CODES:
            held[CODES[m.group(1)]] = held.get(CODES[m.group(1)], 0) + int(m.group(2))
    for code, n in sorted(held.items())[:1]:
        lines.append(f"{'HIDE' if turn % 4 < 2 else 'SURFACE'} {code},{n}")
    empty = sorted(set(CODES.values()) - set(held))
    if empty and rng.random() < 0.2:
        line = f"HIDE {rng.choice(empty)},1"
        lines.append(line)
        bad[line] = "you have no submarines on the surface in"
    return lines, bad

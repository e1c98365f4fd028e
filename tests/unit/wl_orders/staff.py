"""Warlord's full-size test, generals, research and espionage: a player's report of the turn before -> its P,
N 3, E, K and I lines, some written to be refused or to fail, each with the reason the rules give (see
land.py for the three names every maker has)."""

from __future__ import annotations

import random
from typing import Any

from tests.unit.wl_orders.land import UNIT_KINDS

EXPECTED = (
    r"you have \d+ PP: research of \d+ costs \d+",
    r"you have \d+ PP: spying costs \d+",
    r"at tech level \d+ a spy order spends at most \d+ PP",
    r"the ruin at \d{5} holds nothing more",
    r"you have no general \d+",  # a player whose general was lost with no city to replace him at
)

BAD = {
    "I {me} 99": "a spy order spends at most",
}


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its order lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    me = report["player"]["account"]
    units = [f for f in report["forces"] if f["name"] in UNIT_KINDS]
    lines: list[str] = []
    bad: dict[str, str] = {}
    if units and report["generals"]:
        # general 1 to the largest division, the lowest number of equals: the lead of the army
        lead = min(units, key=lambda f: (-f["size"], f["number"]))
        lines.append(f"P 1 {lead['number']}")
    if turn == 1:
        lines.append(f"N 3 2 MARSHAL {me}")
    # PPs left after part 1's production (its C orders and centres restarting cost up to about 6 a turn) and
    # the sea maker's transports (4 at a coastal home), so that research and spying are paid for: lines the
    # rules refuse are the BAD ones
    budget = report["pp"] - 10
    step = turn % 3
    if budget >= 1 and step != 1:  # a spy order's turn keeps its PPs for the spies
        lines.append(f"E {min(3, budget)}")
        budget -= min(3, budget)
    # engineers standing on a ruin search it (refused when part 1's maker gave the unit an order first)
    ruins = set(report["ruins"])
    lines += [f"K {f['number']} 1" for f in units if f["name"] == "Engineers" and f["sector"] in ruins]
    # a spy order on the nearest player, then counter-espionage on oneself, then its end
    if step == 0:
        lines.append(f"I {me} 0")
    elif step == 1 and budget >= 2:
        lines.append(f"I {others[0]} {rng.randint(2, min(5, budget))}")
    elif step == 2 and budget >= 1:
        lines.append(f"I {me} 1")
    if rng.random() < 0.3:
        template = rng.choice(sorted(BAD))
        line = template.format(me=me)
        lines.append(line)
        bad[line] = BAD[template]
    return lines, bad
